package pop

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestStudySummaryInOrderGiven: each run's study factors come back in the
// order the runs are given (ComputeFactors sorts them, fewest processes
// first) and equal the closed forms of strong scaling against the run of
// fewest processes: computation scalability, the reference's useful total
// over the run's; speed-up, the reference's runtime over the run's; global
// efficiency, parallel efficiency times computation scalability.
func TestStudySummaryInOrderGiven(t *testing.T) {
	run := func(p int, runtime, total float64) Run {
		return Run{Processes: p, Resources: p, Runtime: trace.Time(runtime * 1e9), UsefulTotal: trace.Time(total * 1e9),
			UsefulMax: trace.Time(total / float64(p) * 1e9), UsefulAvg: total / float64(p) * 1e9, Instructions: math.NaN(), Cycles: math.NaN()}
	}
	runs := []Run{run(8, 3, 20), run(2, 10, 18), run(16, 2, 24), run(4, 5.5, 19)}
	study, err := StudySummary(runs, Auto)
	if err != nil {
		t.Fatal(err)
	}
	ref := runs[1]
	for i, r := range runs {
		got := map[string]float64{}
		for _, f := range study[i] {
			got[f.Key] = f.Values[0]
		}
		comp := float64(ref.UsefulTotal) / float64(r.UsefulTotal)
		pe := r.UsefulAvg / float64(r.Runtime)
		want := map[string]float64{"computation_scalability": comp, "speedup": float64(ref.Runtime) / float64(r.Runtime), "global_efficiency": pe * comp}
		for k, w := range want {
			if math.Abs(got[k]-w) > 1e-12 {
				t.Errorf("run %d (%d processes): %s = %g, want %g", i, r.Processes, k, got[k], w)
			}
		}
		if v, ok := got["ipc_scalability"]; !ok || !math.IsNaN(v) {
			t.Errorf("run %d: ipc_scalability %v (present %v), want NaN without counters", i, v, ok)
		}
	}
}

// TestSerialSeries: runs of one thread of one process, without MPI calls
// or OpenMP, have nothing parallel: their table keeps global and parallel
// efficiency, computation scalability and its factors, speed-up, IPC and
// frequency, each the closed form, and leaves the MPI rows out (load
// balance 1 by definition, communication efficiency the parallel
// efficiency again, no messages for serialisation or transfer). A series
// with a run of two processes keeps the MPI table.
func TestSerialSeries(t *testing.T) {
	run := func(size float64, runtime, useful float64) Run {
		return Run{Source: fmt.Sprint(size), Processes: 1, Resources: 1, ThreadsPerProcess: 1, Model: "serial",
			Runtime: trace.Time(runtime * 1e9), UsefulTotal: trace.Time(useful * 1e9), UsefulMax: trace.Time(useful * 1e9),
			UsefulAvg: useful * 1e9, Instructions: 2e9 * useful, Cycles: 3e9 * useful}
	}
	runs := []Run{run(1, 10, 9), run(2, 8, 6)}
	f, err := ComputeFactors(runs, Strong)
	if err != nil {
		t.Fatal(err)
	}
	if !f.Serial() || f.WithoutMPI() || f.Hybrid() {
		t.Fatalf("serial %v, without MPI %v, hybrid %v; want a serial series only", f.Serial(), f.WithoutMPI(), f.Hybrid())
	}
	var keys []string
	got := map[string][]float64{}
	for _, r := range f.Form(Multiplicative) {
		keys = append(keys, r.Key)
		got[r.Key] = r.Values
	}
	if add := f.Form(Additive); len(add) != len(keys) {
		t.Errorf("additive form: %d rows, want the same %d", len(add), len(keys))
	}
	wantKeys := []string{"global_efficiency", "parallel_efficiency", "computation_scalability", "instruction_scalability",
		"ipc_scalability", "frequency_scalability", "speedup", "ipc", "frequency"}
	if !slices.Equal(keys, wantKeys) {
		t.Fatalf("rows %q, want %q", keys, wantKeys)
	}
	ref := f.Runs[0]
	for i, r := range f.Runs {
		pe := r.UsefulAvg / float64(r.Runtime)
		comp := float64(ref.UsefulTotal) / float64(r.UsefulTotal)
		want := map[string]float64{"global_efficiency": pe * comp, "parallel_efficiency": pe, "computation_scalability": comp,
			"instruction_scalability": ref.Instructions / r.Instructions, "ipc_scalability": 1, "frequency_scalability": 1,
			"speedup": float64(ref.Runtime) / float64(r.Runtime), "ipc": 2.0 / 3, "frequency": 3}
		for k, w := range want {
			if math.Abs(got[k][i]-w) > 1e-12 {
				t.Errorf("run %d: %s = %g, want %g", i, k, got[k][i], w)
			}
		}
	}
	two := run(3, 5, 8)
	two.Processes, two.Resources = 2, 2
	f, err = ComputeFactors(append(runs, two), Strong)
	if err != nil {
		t.Fatal(err)
	}
	if f.Serial() || !slices.ContainsFunc(f.Rows, func(r Factor) bool { return r.Key == "load_balance" }) {
		t.Errorf("a series with a run of two processes: serial %v, rows without load balance", f.Serial())
	}
}
