package tracetest_test

import (
	"fmt"

	"github.com/macroscope-hpc/macroscope/core/trace/tracetest"
)

// Nested makes a trace of two states per call: the call and the one
// nested in it.
func ExampleNested() {
	t := tracetest.Nested(2, 3)
	fmt.Println(t.States.Len(), len(t.Containers)-1, t.End)
	s := t.States.At(1)
	fmt.Println(t.ValueName(s.Value), s.Start, s.End, s.Depth)
	// Output:
	// 12 3 0.000000036
	// inner 0.000000003 0.000000007 1
}
