package pop_test

import (
	"fmt"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/views/pop"
)

// The POP efficiencies of pypop's EPOCH runs on 1 and 2 processes
// (Extrae traces), as BSC's modelfactors.py gives them.
func Example() {
	var runs []pop.Run
	for _, n := range []int{1, 2} {
		tr, err := formats.ReadFile(fmt.Sprintf("../../../testdata/epoch/epoch_%dproc.prv.zst", n), "paraver")
		if err != nil {
			panic(err)
		}
		r, err := pop.Compute(tr, pop.Options{})
		if err != nil {
			panic(err)
		}
		runs = append(runs, *r)
	}
	f, err := pop.ComputeFactors(runs, pop.Auto)
	if err != nil {
		panic(err)
	}
	fmt.Println(f.Labels(), f.Scaling)
	for _, row := range f.Form(pop.Multiplicative)[:6] {
		fmt.Printf("%-26s %.4f %.4f\n", row.Label, 100*row.Values[0], 100*row.Values[1])
	}
	// Output:
	// [1 2] strong
	// Global efficiency          99.9256 94.9065
	// Parallel efficiency        99.9256 99.3783
	// Load balance               100.0000 99.7609
	// Communication efficiency   99.9256 99.6164
	// Serialisation efficiency   100.0000 99.8424
	// Transfer efficiency        99.9256 99.7737
}
