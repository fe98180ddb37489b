package arrowio

import (
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/core/hier"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
	"github.com/macroscope-hpc/macroscope/core/views/treemap"
)

func TestTreemapTable(t *testing.T) {
	b := hier.NewBuilder("root")
	a := b.Add(0, "a")
	b.Add(a, "a1")
	b.Add(a, "a2")
	b.Add(0, "c")
	tree, _ := b.Build()
	// Leaves a1, a2, c; one slice; states x, y.
	m := &micro.Model{Tree: tree, Container: []int32{trace.None, trace.None, trace.None, trace.None, trace.None},
		States: []string{"x", "y"}, Slices: 1, Start: 0, End: 2 * trace.Second,
		Values: []float64{0.75, 0.25, 0, 1, 0.5, 0.5}}
	part := &aggregate.Partition{Parts: []aggregate.Part{{Node: 2}, {Node: 3}, {Node: 4}}}
	tm, err := treemap.OfPartition(m, part, treemap.Options{Width: 3, Height: 1})
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	rec := TreemapTable(tm, mem)
	defer rec.Release()
	if rec.NumRows() != 5 {
		t.Fatalf("%d rows, want 5", rec.NumRows())
	}
	wantCols := []string{"node", "name", "depth", "parent", "aggregated", "group", "leaves", "value",
		"x", "y", "w", "h", "mode", "mode_proportion", "prop:x", "prop:y"}
	var cols []string
	for _, f := range rec.Schema().Fields() {
		cols = append(cols, f.Name)
	}
	if !slices.Equal(cols, wantCols) {
		t.Fatalf("columns %v, want %v", cols, wantCols)
	}
	col := func(name string) any { return rec.Column(rec.Schema().FieldIndices(name)[0]) }
	nodes := col("node").(*array.String)
	agg := col("aggregated").(*array.Boolean)
	parents := col("parent").(*array.Int32)
	want := []struct {
		node       string
		parent     int32
		aggregated bool
		value      float64
	}{{"root", -1, false, 3}, {"a", 0, false, 2}, {"a/a1", 1, true, 1}, {"a/a2", 1, true, 1}, {"c", 0, true, 1}}
	for i, w := range want {
		if nodes.Value(i) != w.node || parents.Value(i) != w.parent || agg.Value(i) != w.aggregated ||
			col("value").(*array.Float64).Value(i) != w.value {
			t.Errorf("row %d: %s parent %d aggregated %v, want %+v", i, nodes.Value(i), parents.Value(i), agg.Value(i), w)
		}
		c := tm.Cells[i]
		for name, v := range map[string]float64{"x": c.X, "y": c.Y, "w": c.W, "h": c.H} {
			if got := col(name).(*array.Float64).Value(i); got != v {
				t.Errorf("row %d: %s = %v, want %v", i, name, got, v)
			}
		}
	}
	// a: x 0.375, y 0.625 -> mode y; a1 mode x (0.75).
	modes := col("mode").(*array.Dictionary)
	dict := modes.Dictionary().(*array.String)
	if dict.Value(modes.GetValueIndex(1)) != "y" || dict.Value(modes.GetValueIndex(2)) != "x" ||
		col("mode_proportion").(*array.Float64).Value(1) != 0.625 || col("prop:x").(*array.Float64).Value(2) != 0.75 {
		t.Errorf("modes: %v %v", modes, col("mode_proportion"))
	}
	if got := rec.Schema().Metadata().Values()[rec.Schema().Metadata().FindKey("macroscope.treemap.value")]; got != "leaves" {
		t.Errorf("metadata value %q", got)
	}
}
