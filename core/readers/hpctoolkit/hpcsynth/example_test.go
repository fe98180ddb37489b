package hpcsynth_test

import (
	"fmt"
	"os"

	"github.com/macroscope-hpc/macroscope/core/readers/hpctoolkit/hpcsynth"
)

// A database of one rank with two threads: its experiment.xml and a trace
// file per thread, the GPU stream's (thread 500) among them.
func ExampleWrite() {
	dir, err := os.MkdirTemp("", "hpcsynth")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	if err := hpcsynth.Write(dir, 1, 2); err != nil {
		fmt.Println(err)
		return
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		fmt.Println(e.Name())
	}
	// Output:
	// experiment.xml
	// synth-000000-000-0000abcd-42-0.hpctrace
	// synth-000000-001-0000abcd-42-0.hpctrace
	// synth-000000-500-0000abcd-42-0.hpctrace
}
