package trace_test

import (
	"fmt"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// A stream whose operations overlap three deep is the container "stream
// 7" and two lanes beside it.
func ExampleLaneName() {
	for k := range 3 {
		fmt.Println(trace.LaneName("stream 7", k))
	}
	// Output:
	// stream 7
	// stream 7 (overlap lane 1)
	// stream 7 (overlap lane 2)
}

// A trace converted before holds the track "worker (overlap lane 1)"
// beside the thread "worker", whose slices overlap three deep again: its
// lanes take the names no sibling has.
func ExampleLanes() {
	siblings := map[string]bool{"worker": true, "worker (overlap lane 1)": true}
	lanes := trace.Lanes{Taken: func(name string) bool { return siblings[name] }}
	for k := range 3 {
		fmt.Println(lanes.Name("worker", k))
	}
	// Output:
	// worker
	// worker (overlap lane 2)
	// worker (overlap lane 3)
}
