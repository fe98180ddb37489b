package critpath_test

import (
	"fmt"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/trace"
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

// The delay costs of an SMPI run, computed while the trace is read: rank
// 0 computes 2 s more than rank 1 before sending to it, and rank 1, late
// in turn, reaches MPI_Barrier last.
func Example_delayCosts() {
	acc := critpath.New(critpath.Options{})
	if err := formats.Read("../../../testdata/critpath/cp_delay.trace", "paje", acc, trace.ReadOptions{}); err != nil {
		panic(err)
	}
	r, err := acc.Result()
	if err != nil {
		panic(err)
	}
	for _, c := range r.DelayCosts().Costs {
		fmt.Printf("%s %s (%v): %.6f s short-term, %.6f s long-term\n", r.Resources[c.Resource], c.State, c.Kind,
			c.ShortTerm/1e9, c.LongTerm/1e9)
	}
	// Output:
	// rank-0 computing (late sender): 2.000000 s short-term, 0.000000 s long-term
	// rank-0 computing (collective): 0.000000 s short-term, 2.000000 s long-term
	// rank-1 computing (collective): 2.000000 s short-term, 0.000000 s long-term
	// rank-1 PMPI_Recv (collective): 0.000004 s short-term, 0.000000 s long-term
}

// The critical path of a PyTorch (Kineto) trace, with Holistic Trace
// Analysis' semantics: aten::add launches a kernel on an idle stream
// (launch delay 20 µs), the CPU waits for it in cudaStreamSynchronize,
// then runs aten::mul. The path goes from the launch through the kernel
// and back to the CPU where the synchronisation ends.
func Example_gpu() {
	tr, err := formats.ReadFile("testdata/kineto_launch.json", "chrome")
	if err != nil {
		panic(err)
	}
	r, err := critpath.Compute(tr, critpath.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Semantics, r.Length())
	for _, s := range r.Segments {
		line := fmt.Sprintf("%-10s %v-%v %-10s %s", r.Resources[s.Resource], s.Start, s.End, s.Via, s.Name)
		fmt.Println(strings.TrimSpace(line))
	}
	// Output:
	// hta 0.000230000
	// 1/python   0.000000000-0.000010000 compute    aten::add
	// 0/stream 7 0.000010000-0.000030000 launch
	// 0/stream 7 0.000030000-0.000200000 kernel     add_kernel
	// 1/python   0.000210000-0.000210000 sync wait
	// 1/python   0.000220000-0.000220000 dependency
	// 1/python   0.000220000-0.000250000 compute    aten::mul
}

// The wait states of the run of Example with the MPI calls they are
// on: rank 1 enters the MPI_Allreduce last, at 3.000004, and rank 2
// waits in its MPI_Recv for rank 3's send, at 3.400016.
func ExampleResult_WaitCalls() {
	tr, err := formats.ReadFile("../../../testdata/critpath/cp_mixed.trace", "paje")
	if err != nil {
		panic(err)
	}
	r, err := critpath.Compute(tr, critpath.Options{})
	if err != nil {
		panic(err)
	}
	for w, call := range r.WaitCalls() {
		fmt.Printf("%s %s at %v: %v %s\n", r.Resources[w.Call.Resource], r.Names[call.Name], call.Enter, w.Wait, w.Kind)
	}
	// Output:
	// rank-0 PMPI_Allreduce at 1.200000000: 1.800004000 collective
	// rank-1 PMPI_Recv at 0.000000000: 1.000000000 late sender
	// rank-2 PMPI_Allreduce at 0.500000000: 2.500004000 collective
	// rank-2 PMPI_Recv at 3.000012000: 0.400004000 late sender
	// rank-3 PMPI_Allreduce at 0.500000000: 2.500004000 collective
}
