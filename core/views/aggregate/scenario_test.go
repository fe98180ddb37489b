package aggregate_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/gen/synthmodel"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
)

// detailingRange returns the range of p over which the optimal spatial cut
// of the scenario is exactly the one that details its heterogeneity, and
// the number of distinct optimal cuts.
func detailingRange(t testing.TB, sc synthmodel.Scenario, m *micro.Model, normalize bool) (lo, hi float64, levels int) {
	e, err := aggregate.NewSpatial(synthmodel.Input(m), aggregate.Options{Normalize: normalize})
	if err != nil {
		t.Fatal(err)
	}
	ls, err := aggregate.SignificantExact(e, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := sc.Detailed()
	sort.Strings(want)
	paths := synthmodel.Paths(m.Tree)
	for _, l := range ls {
		got := make([]string, len(l.Partition.Parts))
		for i, pt := range l.Partition.Parts {
			got[i] = paths[pt.Node]
		}
		sort.Strings(got)
		if strings.Join(got, ",") == strings.Join(want, ",") {
			return l.PLow, l.PHigh, len(ls)
		}
	}
	return -1, -1, len(ls)
}

func TestScenarioDetailsTheHeterogeneity(t *testing.T) {
	scales := []synthmodel.Scenario{
		{Fanout: [5]int{4, 2, 2, 2, 2}, Slices: 1, Noise: 0.002, Contrast: 0.4},
		{Fanout: [5]int{10, 10, 10, 10, 10}, Slices: 1, Noise: 0.002, Contrast: 0.4},
	}
	if !testing.Short() {
		scales = append(scales, synthmodel.Million())
	}
	for _, sc := range scales {
		m, err := sc.Model()
		if err != nil {
			t.Fatal(err)
		}
		for _, normalize := range []bool{false, true} {
			lo, hi, n := detailingRange(t, sc, m, normalize)
			if lo < 0 {
				t.Fatalf("%d processes, normalize=%v: no p details exactly the heterogeneous groups (%d levels)", sc.Processes(), normalize, n)
			}
			t.Logf("%7d processes, normalize=%-5v: the heterogeneity alone is detailed for p in [%.6g, %.6g] (%d levels)",
				sc.Processes(), normalize, lo, hi, n)
		}
	}
}

// solvedPaths returns the sorted paths of the parts of the default
// spatial optimum (normalised, the paper's measure) of m at p.
func solvedPaths(t testing.TB, m *micro.Model, p float64) []string {
	e, err := aggregate.NewSpatial(synthmodel.Input(m), aggregate.Options{Normalize: true})
	if err != nil {
		t.Fatal(err)
	}
	part, err := e.Solve(p)
	if err != nil {
		t.Fatal(err)
	}
	paths := synthmodel.Paths(m.Tree)
	got := make([]string, len(part.Parts))
	for i, pt := range part.Parts {
		got[i] = paths[pt.Node]
	}
	sort.Strings(got)
	return got
}

// At the paper's p = 10%, with the spatial kind's defaults (resources
// valued by their shares, size gain, normalised: Lamarche-Perrin et al.'s
// measure), the optimal cut separates exactly the injected groups: their
// ancestors and themselves are split, everything else is aggregated as
// high as it can be. Variants with other seeds place the four groups
// elsewhere and draw the noise at random.
func TestScenarioAtTenPercent(t *testing.T) {
	scales := []synthmodel.Scenario{
		{Fanout: [5]int{4, 2, 2, 2, 2}, Slices: 1, Noise: 0.002, Contrast: 0.4},
		{Fanout: [5]int{10, 10, 10, 10, 10}, Slices: 1, Noise: 0.002, Contrast: 0.4},             // 100,000
		{Fanout: [5]int{10, 10, 10, 10, 10}, Slices: 1, Noise: 0.002, Contrast: 0.4, Seed: 7},    // other places
		{Fanout: [5]int{6, 4, 8, 16, 32}, Slices: 3, Noise: 0.01, Contrast: 0.3, Seed: 2026},     // 98,304, other layout
		{Fanout: [5]int{5, 3, 7, 12, 20}, Slices: 1, Noise: 0.02, Contrast: 0.25, Seed: 0xdecaf}, // 25,200
	}
	if !testing.Short() {
		scales = append(scales, synthmodel.Million(),
			synthmodel.Scenario{Fanout: [5]int{8, 12, 10, 25, 40}, Slices: 1, Noise: 0.005, Contrast: 0.4, Seed: 31337})
	}
	for _, sc := range scales {
		m, err := sc.Model()
		if err != nil {
			t.Fatal(err)
		}
		want := sc.Detailed()
		sort.Strings(want)
		got := solvedPaths(t, m, 0.1)
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%d processes, seed %d: %d parts at p = 0.1, want the %d that detail the injected groups %v",
				sc.Processes(), sc.Seed, len(got), len(want), sc.Places())
		}
	}
}

// p of the spatial kind does not depend on the number of slices: the same
// behaviour sliced 10, 30 and 100 ways has the same optimal cuts, at any p,
// here with behaviour that changes over time (so that cells would differ).
func TestSpatialOptimumIndependentOfSlices(t *testing.T) {
	base := synthmodel.Scenario{Fanout: [5]int{4, 3, 3, 3, 4}, Slices: 1, Noise: 0.05, Contrast: 0.3, Seed: 5}
	one, err := base.Model()
	if err != nil {
		t.Fatal(err)
	}
	X := len(one.States)
	for _, slices := range []int{10, 30, 100} {
		// Each resource swings around its shares (r, 1-r): above them in
		// even slices, below in odd ones, so that the window's mean stays
		// (r, 1-r) while no two consecutive cells are alike.
		m := *one
		m.Slices = slices
		m.Values = make([]float64, one.NumLeaves()*slices*X)
		for leaf := 0; leaf < one.NumLeaves(); leaf++ {
			r := one.Values[leaf*X]
			swing := min(r, 1-r) / 2
			for s := 0; s < slices; s++ {
				d := swing
				if s%2 == 1 {
					d = -swing
				}
				m.Values[(leaf*slices+s)*X] = r + d
				m.Values[(leaf*slices+s)*X+1] = 1 - r - d
			}
		}
		for _, p := range []float64{0.001, 0.01, 0.1, 0.3, 0.5} {
			want := strings.Join(solvedPaths(t, one, p), ",")
			if got := strings.Join(solvedPaths(t, &m, p), ","); got != want {
				t.Errorf("%d slices, p = %v: %s, with one slice %s", slices, p, got, want)
			}
		}
	}
}
