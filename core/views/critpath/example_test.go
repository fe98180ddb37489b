package critpath_test

import (
	"fmt"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/views/critpath"
	"github.com/macroscope-hpc/macroscope/core/views/stragglers"
)

// The critical path of an SMPI run built to have a known one: rank 0
// computes and sends to rank 1, which computes and enters the
// MPI_Allreduce last; rank 3 then computes and sends to rank 2, which
// ends the run.
func Example() {
	tr, err := formats.ReadFile("../../../testdata/critpath/cp_mixed.trace", "paje")
	if err != nil {
		panic(err)
	}
	r, err := critpath.Compute(tr, critpath.Options{})
	if err != nil {
		panic(err)
	}
	for _, s := range r.Segments {
		fmt.Printf("%s %v-%v via %s\n", r.Resources[s.Resource], s.Start, s.End, s.Via)
	}
	a := r.Attribution
	fmt.Printf("%s: %.1f%% of the path\n", a.ByState[0].State, 100*a.ByState[0].Share)
	// Output:
	// rank-0 0.000000000-1.000000000 via start
	// rank-1 1.000000000-3.000004000 via late sender
	// rank-3 3.000004000-3.400016000 via collective
	// rank-2 3.400016000-3.900020000 via late sender
	// computing: 100.0% of the path
}

// Who enters each MPI_Allreduce last, and how much waiting it causes.
func Example_stragglers() {
	tr, err := formats.ReadFile("../../../testdata/critpath/cp_coll.trace", "paje")
	if err != nil {
		panic(err)
	}
	r, err := stragglers.Compute(tr, stragglers.Options{})
	if err != nil {
		panic(err)
	}
	for _, in := range r.Instances {
		fmt.Printf("%s: %s last by %v, the others waited %v\n", in.Name, r.Resources[in.Last], in.Lateness, in.WaitCaused)
	}
	// Output:
	// PMPI_Allreduce: rank-0 last by 2.000000000, the others waited 6.000000000
	// PMPI_Allreduce: rank-1 last by 1.999996000, the others waited 6.000000000
	// PMPI_Allreduce: rank-2 last by 1.999996000, the others waited 6.000000000
}
