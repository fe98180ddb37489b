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

// A loop whose items differ in size counts its work with a Looker: it
// looks at the channel at its first step, then once every
// trace.StopEvery items, and stays stopped once it has seen it closed.
func ExampleLooker() {
	cancel := make(chan struct{})
	look := trace.Looker{Cancel: cancel}
	sizes := []int{3, 10_000, 10_000, 1}
	for i, n := range sizes {
		if i == 1 {
			close(cancel) // the user's Ctrl-C, during the second step
		}
		if err := look.Stopped(n); err != nil {
			fmt.Printf("stopped before step %d: %v\n", i, err)
			break
		}
		fmt.Printf("step %d: %d items\n", i, n)
	}
	// Output:
	// step 0: 3 items
	// step 1: 10000 items
	// stopped before step 2: computation canceled
}
