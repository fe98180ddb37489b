package aggregate_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/aggregate"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/synthmodel"
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
