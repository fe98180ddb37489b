package cmem_test

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/macroscope-hpc/macroscope/arrowio/cmem"
)

// Arrays built with the allocator live outside the Go heap, ready to be
// handed to Python through the Arrow C data interface.
func ExampleNew() {
	mem := cmem.New()
	b := array.NewFloat64Builder(mem)
	defer b.Release()
	b.AppendValues([]float64{1, 2, 3}, nil)
	a := b.NewFloat64Array()
	defer a.Release()
	fmt.Println(a.Float64Values())
	// Output: [1 2 3]
}
