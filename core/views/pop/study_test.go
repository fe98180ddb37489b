package pop

import (
	"math"
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
