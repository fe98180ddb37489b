package micro_test

import (
	"fmt"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// A model zoomed into without the trace it was built from: the window of
// its slices 2 to 4 holds the same cells over a shorter time.
func ExampleModel_Window() {
	src, _, err := formats.Open("../../testdata/jacobi32.trace", "paje", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	m, _, err := micro.FromSource(src, micro.Options{Slices: 10, Depth: micro.Innermost}, trace.ReadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	w, err := m.Window(2, 4)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d slices from %s to %s s\n", m.Slices, m.Start, m.End)
	fmt.Printf("%d slices from %s to %s s\n", w.Slices, w.Start, w.End)
	fmt.Println(w.Value(5, 0, 0) == m.Value(5, 2, 0), w.Value(5, 2, 0) == m.Value(5, 4, 0))
	// Output:
	// 10 slices from 0.000000000 to 8.503801000 s
	// 3 slices from 1.700760200 to 4.251900500 s
	// true true
}

// The parts of a trace are built on the window of all the parts, unless
// the model's options fix its bounds.
func ExampleOptions_Window() {
	start := trace.Time(1_000)
	opt := micro.Options{Slices: 10, Start: &start}
	fmt.Println(opt.Window(0, 5_000)) // in seconds
	// Output:
	// 0.000001000 0.000005000
}
