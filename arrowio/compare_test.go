package arrowio

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/core/gen/bsp"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/compare"
)

// TestCompareTables checks that the tables hold the comparison's values,
// row by row.
func TestCompareTables(t *testing.T) {
	a := bsp.Scenario{Ranks: 6, PerNode: 3, Iterations: 20, Noise: 0.01, Seed: 1}
	b := a
	b.Seed, b.Slow, b.Slowdown, b.Missing = 2, []int{4}, 0.3, []int{5}
	set, err := compare.Build([]compare.Input{{Name: "a", Source: a.Source(), Meta: map[string]string{"nodes": "2"}}, {Name: "b", Source: b.Source()}},
		compare.Options{Slices: 5}, trace.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := set.NodeRows(nil)
	tab, err := set.Differences(rows, compare.TableOptions{Rank: compare.ByOutlier})
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewGoAllocator()
	rec := DifferencesTable(set, tab, mem)
	defer rec.Release()
	if int(rec.NumRows()) != len(tab.Rows) {
		t.Fatalf("%d rows, want %d", rec.NumRows(), len(tab.Rows))
	}
	node := stringColumn(t, rec, "node")
	score := momentColumn[float64](t, rec, "score")
	prop := momentColumn[float64](t, rec, "prop:b:Compute")
	for i, d := range tab.Rows {
		if node[i] != set.Resources.Path(d.Node, "/") || score[i] != d.Score || prop[i] != d.Props[1][0] {
			t.Errorf("row %d: %s %v %v, want %s %v %v", i, node[i], score[i], prop[i], set.Resources.Path(d.Node, "/"), d.Score, d.Props[1][0])
		}
	}
	if got := rec.Schema().Metadata().Values(); len(got) == 0 {
		t.Error("no metadata")
	}
	long := ProportionsTable(set, tab, mem)
	defer long.Release()
	if want := len(tab.Rows) * 2 * len(set.States); int(long.NumRows()) != want {
		t.Errorf("proportions: %d rows, want %d", long.NumRows(), want)
	}
	delta := momentColumn[float64](t, long, "delta")
	total := 0.0
	for _, v := range delta {
		total += math.Abs(v)
	}
	if total == 0 {
		t.Error("no delta")
	}
	runs := RunsTable(set, mem)
	defer runs.Release()
	if m := stringColumn(t, runs, "meta:nodes"); m[0] != "2" || runs.NumRows() != 2 {
		t.Errorf("runs table: %v", m)
	}
	if miss := momentColumn[int32](t, runs, "missing_resources"); miss[1] != 1 {
		t.Errorf("missing %v", miss)
	}
}

func stringColumn(t *testing.T, rec arrow.RecordBatch, name string) []string {
	t.Helper()
	idx := rec.Schema().FieldIndices(name)
	if len(idx) != 1 {
		t.Fatalf("no column %q", name)
	}
	col := rec.Column(idx[0]).(*array.String)
	out := make([]string, col.Len())
	for i := range out {
		out[i] = col.Value(i)
	}
	return out
}
