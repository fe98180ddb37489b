package bsp

import (
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestIterations checks the structure of a run without noise: each rank
// computes, then waits until the slowest rank has computed and the
// collective is over.
func TestIterations(t *testing.T) {
	sc := Scenario{Ranks: 4, PerNode: 2, Iterations: 3, Slow: []int{1}, Slowdown: 0.5, SlowFrom: 1, Missing: []int{3}}
	tr, err := sc.Trace()
	if err != nil {
		t.Fatal(err)
	}
	ms := trace.Second / 1000
	// Iteration 0: 1 ms + 0.25 ms; then the slowed rank computes 1.5 ms.
	us := trace.Second / 1000000
	if want := 1250*us + 2*1750*us; tr.End != want {
		t.Errorf("end %v, want %v", tr.End, want)
	}
	var paths []string
	for c := 1; c < len(tr.Containers); c++ {
		paths = append(paths, tr.ContainerPath(int32(c), "/"))
	}
	if len(paths) != 5 || paths[4] != "node-1/rank-2" {
		t.Errorf("containers %v (rank 3 missing)", paths)
	}
	compute := map[string]trace.Time{}
	for _, s := range tr.States.All() {
		if tr.Values[s.Value].Name == Compute {
			compute[tr.Containers[s.Container].Name] += s.End - s.Start
		}
	}
	if compute["rank-0"] != 3*ms || compute["rank-1"] != 4*ms {
		t.Errorf("computation %v", compute)
	}
	if _, err := (Scenario{Ranks: 2, Iterations: 1, Slow: []int{7}}).Trace(); err == nil {
		t.Error("a slowed rank beyond the ranks: no error")
	}
}

// TestDeterministic: the same seed gives the same run.
func TestDeterministic(t *testing.T) {
	sc := Scenario{Ranks: 10, Iterations: 20, Noise: 0.1, Seed: 7}
	a, _ := sc.Trace()
	b, _ := sc.Trace()
	if a.End != b.End || a.States.Len() != b.States.Len() || a.States.Len() != 400 {
		t.Errorf("ends %v %v, states %d %d", a.End, b.End, a.States.Len(), b.States.Len())
	}
}
