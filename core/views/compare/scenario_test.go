package compare

import (
	"testing"

	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
)

// levelTable returns the differences at the recommended level of the
// set's model (the knee of the significant levels, resolution 0.01):
// the level's nodes over the time ranges it shows them, ranked by
// outlier score.
func levelTable(t *testing.T, set *Set) (*Table, float64) {
	t.Helper()
	e, err := aggregate.New(aggregate.KindSpatiotemporal, set.Input(), aggregate.Options{Normalize: true})
	if err != nil {
		t.Fatal(err)
	}
	levels, err := aggregate.SignificantCompact(e, 1e-2)
	if err != nil {
		t.Fatal(err)
	}
	_, p, err := aggregate.Recommend(levels, aggregate.RuleKnee, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	part, err := e.Solve(p)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := set.Differences(NodesOf(set.PartitionRows(part)), TableOptions{Rank: ByOutlier})
	if err != nil {
		t.Fatal(err)
	}
	return tab, p
}

// TestSlowdownFound injects a 5% slowdown of one rank among 1,000 (100
// per node, 200 bulk-synchronous iterations) and looks for it at the
// recommended level: it must be the first row by outlier score and
// reported above the noise floor, whatever the noise of the computation
// (with none, every other rank changes more than it does: it makes them
// wait).
func TestSlowdownFound(t *testing.T) {
	if testing.Short() {
		t.Skip("sweeps the levels of 2 x 1,000 x 20 cells three times")
	}
	for _, sigma := range []float64{0, 0.005, 0.02} {
		set := slowdownSet(t, 1000, 100, 20, sigma, false)
		tab, p := levelTable(t, set)
		top := tab.Rows[0]
		if got := set.Resources.Path(top.Node, "/"); got != "node-4/rank-437" {
			t.Errorf("sigma %v, p %.4f: first row by outlier is %s (outlier score %.4f), want node-4/rank-437", sigma, p, got, top.OutlierScore)
			continue
		}
		// Reported above the noise floor, corrected for the level's 1,000
		// rows (two tests each); both tests far below 1e-4 on their own.
		if !top.Test.Reported || top.Test.OutlierP > 1e-4 || top.Test.PValue > 1e-4 || top.Test.OutlierStatistic <= top.Test.OutlierFloor {
			t.Errorf("sigma %v: rank 437: reported %v, p %.3g (adjusted %.3g), outlier p %.3g (adjusted %.3g), outlier %.4f floor %.4f",
				sigma, top.Test.Reported, top.Test.PValue, top.Test.PAdjusted, top.Test.OutlierP, top.Test.OutlierPAdjusted,
				top.Test.OutlierStatistic, top.Test.OutlierFloor)
		}
		if top.Props[1][0] <= top.Props[0][0] {
			t.Errorf("sigma %v: rank 437 computes %.4f of its time in B, %.4f in A: want more", sigma, top.Props[1][0], top.Props[0][0])
		}
		// It stands out: the next row's outlier score is far below.
		if next := tab.Rows[1].OutlierScore; !(top.OutlierScore > 10*next) {
			t.Errorf("sigma %v: outlier score %.4f, next %.4f: want a clear margin", sigma, top.OutlierScore, next)
		}
	}
}

// TestRepetitionsNoDifference compares two runs that differ by noise
// only: no row is reported at the recommended level, nor among the
// nodes of the hierarchy over the whole window.
func TestRepetitionsNoDifference(t *testing.T) {
	if testing.Short() {
		t.Skip("sweeps the levels of 2 x 1,000 x 20 cells")
	}
	set := slowdownSet(t, 1000, 100, 20, 0.02, true)
	tab, p := levelTable(t, set)
	if tab.Test.Reported != 0 || tab.Test.Method != "blocks" {
		t.Errorf("p %.4f: %d rows reported (%s test), want none", p, tab.Test.Reported, tab.Test.Method)
	}
	rows, err := set.NodeRows(nil)
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := set.Differences(rows, TableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if nodes.Test.Reported != 0 {
		d := nodes.Rows[0]
		t.Errorf("%d nodes reported; first %s score %.4g p %.3g/%.3g", nodes.Test.Reported, set.Resources.Path(d.Node, "/"), d.Score, d.Test.PValue, d.Test.OutlierP)
	}
	// Below the floor: the observed scores are within the permutations'.
	above := 0
	for _, d := range nodes.Rows {
		if d.Test.Excess > 0 {
			above++
		}
	}
	if above > len(nodes.Rows)/10 {
		t.Errorf("%d of %d nodes above their floor, want about 5%%", above, len(nodes.Rows))
	}
}
