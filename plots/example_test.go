package plots_test

import (
	"bytes"
	"fmt"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
	"github.com/macroscope-hpc/macroscope/core/views/moments"
	"github.com/macroscope-hpc/macroscope/plots"
)

// The moments of the aggregates of an aggregation, each node's on a line
// of its own, side by side in time.
func ExampleAggregateFigure() {
	t, err := formats.ReadFile("../testdata/jacobi32.trace", "paje")
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := micro.Build(t, micro.Options{Slices: 20, Depth: micro.Innermost})
	if err != nil {
		fmt.Println(err)
		return
	}
	engine, err := aggregate.New(aggregate.KindSpatiotemporal, aggregate.Input{Tree: m.Tree, Slices: m.Slices, States: len(m.States), Values: m.Values, Cells: m.Cells}, aggregate.Options{Normalize: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	part, err := engine.Solve(0.5)
	if err != nil {
		fmt.Println(err)
		return
	}
	rows, _, err := moments.Aggregates(t, m, part, moments.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	img, err := plots.AggregateFigure(rows, moments.ByNode, m.Start, m.End, plots.MomentsOptions{Width: 480, Title: "jacobi32"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(bytes.HasPrefix(img, []byte("\x89PNG")))
	// Output:
	// true
}

// Names longer than the kaleidoscope writes whole keep their start and end.
func ExampleKaleidoscopeLabel() {
	fmt.Println(plots.KaleidoscopeLabel("MPI_Allreduce"))
	fmt.Println(plots.KaleidoscopeLabel("void at::native::elementwise_kernel<128, 4>(int)"))
	// Output:
	// MPI_Allreduce
	// void at::native:...el<128, 4>(int)
}
