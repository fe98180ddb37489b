package pop_test

import (
	"fmt"
	"slices"
	"strings"

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

// The hybrid factors of a run of 2 processes of 2 threads, from its raw
// data (microseconds): each thread's useful time and its part inside
// OpenMP constructs, each process's time outside MPI calls, in OpenMP
// constructs and in serial computation on its main thread.
func ExampleFactors_Hybrid() {
	const us = 1000
	run := pop.Run{Processes: 2, Resources: 4, ThreadsPerProcess: 2, Model: "MPI+OpenMP",
		Runtime: 100 * us, UsefulTotal: 190 * us, UsefulMax: 80 * us, UsefulAvg: 47.5 * us,
		HasIdeal: true, IdealRuntime: 90 * us, UsefulIdealMax: 90 * us,
		PerResource: []pop.Resource{{Useful: 50 * us, UsefulOpenMP: 30 * us}, {Useful: 20 * us, UsefulOpenMP: 20 * us},
			{Useful: 80 * us, UsefulOpenMP: 50 * us}, {Useful: 40 * us, UsefulOpenMP: 40 * us}},
		PerProcess: []pop.Process{
			{Threads: 2, OutsideMPI: 60 * us, IdealOutside: 60 * us, OpenMP: 40 * us, SerialUseful: 20 * us},
			{Threads: 2, OutsideMPI: 90 * us, IdealOutside: 90 * us, OpenMP: 60 * us, SerialUseful: 30 * us}},
	}
	f, err := pop.ComputeFactors([]pop.Run{run}, pop.Strong)
	if err != nil {
		panic(err)
	}
	fmt.Println(f.Hybrid(), f.Labels())
	for _, form := range []pop.Form{pop.Multiplicative, pop.Additive} {
		for _, row := range f.Form(form) {
			if hybrid := []string{"mpi_", "openmp_", "thread_", "process_", "serial_region"}; slices.ContainsFunc(hybrid,
				func(p string) bool { return strings.HasPrefix(row.Key, p) }) {
				fmt.Printf("%-14s %-34s %.4f\n", row.Form, row.Label, row.Values[0])
			}
		}
	}
	// Output:
	// true [2x2]
	// multiplicative MPI parallel efficiency            0.7500
	// multiplicative MPI load balance                   0.8333
	// multiplicative MPI communication efficiency       0.9000
	// multiplicative MPI serialisation efficiency       1.0000
	// multiplicative MPI transfer efficiency            0.9000
	// multiplicative OpenMP parallel efficiency         0.6333
	// multiplicative OpenMP load balance                0.7125
	// multiplicative OpenMP communication efficiency    0.8889
	// multiplicative Thread level efficiency (pypop)    0.6333
	// multiplicative OpenMP region efficiency (pypop)   0.8000
	// multiplicative Serial region efficiency (pypop)   0.7917
	// additive       Process level efficiency           0.7500
	// additive       MPI load balance                   0.8500
	// additive       MPI communication efficiency       0.9000
	// additive       MPI serialisation efficiency       1.0000
	// additive       MPI transfer efficiency            0.9000
	// additive       Thread level efficiency            0.7250
	// additive       OpenMP region efficiency           0.8500
	// additive       Serial region efficiency           0.8750
}
