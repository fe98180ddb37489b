package compare

import (
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestPresenceSplit: where a run lacks a resource or a time, the
// divergence is that of the runs' absent shares plus the present share
// times the divergence of their states where present (the chain rule),
// on every row; a resource of one run only differs by presence alone;
// ranked by present score, what changed on the resources both runs have
// comes first.
func TestPresenceSplit(t *testing.T) {
	a := tiny(4, span{"h/r0", "Compute", 0, 4}, span{"h/r1", "Compute", 0, 1}, span{"h/r1", "Wait", 1, 4})
	b := tiny(6, span{"h/r0", "Compute", 0, 6}, span{"h/r1", "Compute", 0, 3}, span{"h/r1", "Wait", 3, 6},
		span{"h/r2", "Wait", 0, 6}, span{"g/r3", "Compute", 0, 2})
	set, err := Build([]Input{{Name: "A", Trace: a}, {Name: "B", Trace: b}},
		Options{Slices: 6, Align: Align{Method: Start}}, trace.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := set.NodeRows(EqualPhases(6, 3))
	if err != nil {
		t.Fatal(err)
	}
	tab, err := set.Differences(rows, TableOptions{Rank: ByPresent, Test: TestOptions{Permutations: -1}})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range tab.Rows {
		path := set.Resources.Path(d.Node, "/")
		if got := d.PresenceDivergence + d.PresentShare*d.PresentDivergence; !near(got, d.Divergence, 1e-12) {
			t.Errorf("%s %d-%d: %v + %v x %v = %v, divergence %v", path, d.First, d.Last, d.PresenceDivergence,
				d.PresentShare, d.PresentDivergence, got, d.Divergence)
		}
		if !near(d.PresentScore, d.Mass*d.PresentShare*d.PresentDivergence, 1e-12) {
			t.Errorf("%s: present score %v", path, d.PresentScore)
		}
		if path == "h/r2" || path == "g" {
			// B's alone: the runs differ by presence only, 1 bit, nothing present to compare.
			if !near(d.Divergence, 1, 1e-12) || !near(d.PresenceDivergence, 1, 1e-12) || d.PresentDivergence != 0 || d.PresentScore != 0 {
				t.Errorf("%s %d-%d: %+v", path, d.First, d.Last, d)
			}
		}
	}
	// The first resource by present score is r1 over the time both runs
	// last: A waits sooner than B. (By score, B's own r2 and r3 rank
	// first, 1 bit each.)
	for _, d := range tab.Rows {
		if !set.Resources.IsLeaf(d.Node) {
			continue
		}
		if path := set.Resources.Path(d.Node, "/"); path != "h/r1" || d.Last > 3 || d.PresentDivergence <= 0 || d.PresenceDivergence != 0 {
			t.Errorf("first resource %s %d-%d: %+v", path, d.First, d.Last, d)
		}
		break
	}
	// Where nothing is absent, the split is trivial.
	same, _ := Build([]Input{{Name: "A", Trace: a}, {Name: "A2", Trace: a}}, Options{Slices: 4}, trace.ReadOptions{})
	rows, _ = same.NodeRows(nil)
	tab, _ = same.Differences(rows, TableOptions{Test: TestOptions{Permutations: -1}})
	for _, d := range tab.Rows {
		if d.PresentShare != 1 || d.PresenceDivergence != 0 || d.PresentDivergence != d.Divergence {
			t.Errorf("without absent: %+v", d)
		}
	}
}
