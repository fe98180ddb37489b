package plots

import (
	"image/color"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/arrowio"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
)

// rowsTrace: h0/t0 and h0/t1 "a" throughout, h1/t0 "b", h1/t1 "c"; "b"
// coloured blue by the trace.
func rowsTrace() *trace.Trace {
	t := trace.New()
	t.DefineType(trace.Type{Name: "Host", Kind: trace.KindContainer, Parent: trace.None})
	t.DefineType(trace.Type{Name: "Thread", Kind: trace.KindContainer, Parent: 0})
	t.DefineType(trace.Type{Name: "S", Kind: trace.KindState, Parent: 1})
	t.DefineValue(trace.Value{Type: 2, Name: "a"})
	t.DefineValue(trace.Value{Type: 2, Name: "b", Color: "0 0 1"})
	t.DefineValue(trace.Value{Type: 2, Name: "c"})
	for h := 0; h < 2; h++ {
		t.CreateContainer(trace.Container{Name: "h" + string(rune('0'+h)), Type: 0, Parent: 0})
		host := int32(len(t.Containers) - 1)
		for k := 0; k < 2; k++ {
			t.CreateContainer(trace.Container{Name: "t" + string(rune('0'+k)), Type: 1, Parent: host})
		}
	}
	for c, v := range map[int32]int32{2: 0, 3: 0, 5: 1, 6: 2} {
		t.State(trace.State{Container: c, Type: 2, Value: v, Start: 0, End: 1000})
	}
	t.Finish(0, 1000)
	return t
}

// The aggregate table's row_first and row_last are the rows where the
// overview draws each aggregate: the pixel at the middle of every row
// has the colour of the aggregate the table puts there, and the trace's
// colour for "b", the override's for "c".
func TestOverviewRowsMatchTheTable(t *testing.T) {
	tr := rowsTrace()
	m, err := micro.Build(tr, micro.Options{Slices: 4})
	if err != nil {
		t.Fatal(err)
	}
	in := aggregate.Input{Tree: m.Tree, Slices: m.Slices, States: len(m.States), Values: m.Values, Cells: m.Cells}
	// h1's threads apart, h0 as one aggregate.
	node := map[string]int32{}
	for n := int32(0); n < int32(m.Tree.Len()); n++ {
		node[m.Tree.Path(n, "/")] = n
	}
	part := &aggregate.Partition{Parts: []aggregate.Part{
		{Node: node["h1/t1"], First: 0, Last: 3}, {Node: node["h0"], First: 0, Last: 3}, {Node: node["h1/t0"], First: 0, Last: 3},
	}}
	colors, err := ResolveColors(m.States, m.Colors, map[string]string{"c": "tab:green"})
	if err != nil {
		t.Fatal(err)
	}
	ov := &overview{m: m, in: in, p: part, opt: OverviewOptions{Width: 500, Height: 300, Colors: colors, PixelThreshold: 1}}
	img, err := Render(500, 300, PNG, ov.draw)
	if err != nil {
		t.Fatal(err)
	}
	im := decodePNG(t, img)
	rec := arrowio.PartitionTable(m, in, part, memory.DefaultAllocator)
	defer rec.Release()
	col := func(name string) arrow.Array {
		for i, f := range rec.Schema().Fields() {
			if f.Name == name {
				return rec.Column(i)
			}
		}
		t.Fatalf("no column %s", name)
		return nil
	}
	first, last := col("row_first").(*array.Int32), col("row_last").(*array.Int32)
	nodes := col("node").(*array.String)
	want := map[string][2]int32{"h1/t1": {3, 3}, "h0": {0, 1}, "h1/t0": {2, 2}}
	colorOf := map[string]color.RGBA{"h0": CategoryColor(0), "h1/t0": {0, 0, 255, 255}, "h1/t1": {44, 160, 44, 255}}
	rowColor := make([]color.RGBA, 4)
	for i := 0; i < int(rec.NumRows()); i++ {
		n := nodes.Value(i)
		if got := [2]int32{first.Value(i), last.Value(i)}; got != want[n] {
			t.Errorf("%s: rows %v, want %v", n, got, want[n])
		}
		for r := first.Value(i); r <= last.Value(i); r++ {
			rowColor[r] = colorOf[n]
		}
	}
	d := ov.data
	for r := 0; r < 4; r++ {
		y := float64(d.Max.Y) - (float64(r)+0.5)*float64(d.Max.Y-d.Min.Y)/4
		x := float64(d.Min.X+d.Max.X) / 2
		if got := pixelAt(im, x, y); got != rowColor[r] {
			t.Errorf("row %d: pixel %v, want %v", r, got, rowColor[r])
		}
	}
}
