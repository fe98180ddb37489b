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
