package trace_test

import (
	"fmt"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// A computation on a trace in memory looks at its Cancel channel every
// trace.StopEvery items, and stops with ErrComputationCanceled once it is
// closed.
func ExampleStopped() {
	cancel := make(chan struct{})
	fmt.Println(trace.Stopped(cancel), trace.Stopped(nil))
	close(cancel)
	fmt.Println(trace.Stopped(cancel))
	// Output:
	// <nil> <nil>
	// computation canceled
}
