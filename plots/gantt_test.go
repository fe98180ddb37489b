package plots

import (
	"image/color"
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
	"gonum.org/v1/plot/vg"
)

// ganttTrace: two hosts of two threads each; thread states "run" and
// "wait", "run" coloured red by the trace, and on h1/t0 a "call" nested
// in "run" at depth 1. The window is [0, 1000) ns.
func ganttTrace() *trace.Trace {
	t := trace.New()
	t.DefineType(trace.Type{Name: "Host", Kind: trace.KindContainer, Parent: trace.None})
	t.DefineType(trace.Type{Name: "Thread", Kind: trace.KindContainer, Parent: 0})
	t.DefineType(trace.Type{Name: "S", Kind: trace.KindState, Parent: 1})
	t.DefineValue(trace.Value{Type: 2, Name: "run", Color: "1 0 0"})
	t.DefineValue(trace.Value{Type: 2, Name: "wait"})
	t.DefineValue(trace.Value{Type: 2, Name: "call"})
	for h := 0; h < 2; h++ {
		t.CreateContainer(trace.Container{Name: "h" + string(rune('0'+h)), Type: 0, Parent: 0})
		host := int32(len(t.Containers) - 1)
		for k := 0; k < 2; k++ {
			t.CreateContainer(trace.Container{Name: "t" + string(rune('0'+k)), Type: 1, Parent: host})
		}
	}
	// Containers: 1 h0, 2 h0/t0, 3 h0/t1, 4 h1, 5 h1/t0, 6 h1/t1.
	for _, c := range []int32{2, 3, 5, 6} {
		t.State(trace.State{Container: c, Type: 2, Value: 0, Start: 0, End: 500})
		t.State(trace.State{Container: c, Type: 2, Value: 1, Start: 500, End: 1000})
	}
	t.State(trace.State{Container: 5, Type: 2, Value: 2, Start: 100, End: 400, Depth: 1})
	t.Finish(0, 1000)
	return t
}

// drawGantt renders the Gantt view and returns the image and the view
// (whose data area tells where rows and instants are).
func drawGantt(t *testing.T, tr *trace.Trace, opt GanttOptions) (*gantt, func(x float64, row int, dy float64) color.RGBA) {
	t.Helper()
	gv, err := newGantt(tr, opt)
	if err != nil {
		t.Fatal(err)
	}
	img, err := Render(gv.opt.Width, gv.opt.Height, PNG, gv.draw)
	if err != nil {
		t.Fatal(err)
	}
	im := decodePNG(t, img)
	rows := float64(len(gv.g.Leaves))
	d := gv.data
	// at(x, row, dy): the pixel at x of the window's width, in row (0 at
	// the top), dy rows off the row's centre.
	return gv, func(x float64, row int, dy float64) color.RGBA {
		px := float64(d.Min.X) + x*float64(d.Max.X-d.Min.X)
		py := float64(d.Max.Y) - (float64(row)+0.5+dy)*float64(d.Max.Y-d.Min.Y)/rows
		return pixelAt(im, px, py)
	}
}

func TestGanttRowsAndColours(t *testing.T) {
	tr := ganttTrace()
	gv, at := drawGantt(t, tr, GanttOptions{Colors: map[string]string{"wait": "#00ff00"}})
	if got := strings.Join(gv.g.Labels, ","); got != "h0/t0,h0/t1,h1/t0,h1/t1" {
		t.Fatalf("rows %s", got)
	}
	red, green := color.RGBA{255, 0, 0, 255}, color.RGBA{0, 255, 0, 255}
	call := CategoryColor(2) // "call" is the third state, no colour of its own
	for row := 0; row < 4; row++ {
		if got := at(0.45, row, 0); got != red {
			t.Errorf("row %d at 0.45: %v, want the trace's red", row, got)
		}
		if got := at(0.75, row, 0); got != green {
			t.Errorf("row %d at 0.75: %v, want the override's green", row, got)
		}
		// The outermost bar fills 0.86 of the row: 0.4 row off the
		// centre is still in it, 0.47 is the white between rows.
		if got := at(0.75, row, 0.4); got != green {
			t.Errorf("row %d near the edge: %v", row, got)
		}
		if got := at(0.75, row, 0.47); closeColor(got, green, 40) {
			t.Errorf("row %d: bars touch between rows", row)
		}
	}
	// The nested call, on h1/t0 (row 2): a thinner bar inside "run", whose
	// edge shows above and below it.
	if got := at(0.25, 2, 0); got != call {
		t.Errorf("nested call: %v, want %v", got, call)
	}
	inner := ganttBarHeight(1) / 2
	if got := at(0.25, 2, inner+0.03); got != red {
		t.Errorf("around the nested call: %v, want the outer run's red", got)
	}
	if got := at(0.25, 1, 0); got != red {
		t.Errorf("h0/t1 has no call: %v", got)
	}
	// The legend lists the three states, run and wait first (most area).
	if len(gv.shown) != 3 {
		t.Errorf("legend states %v", gv.shown)
	}
}

func TestGanttWindowAndResources(t *testing.T) {
	tr := ganttTrace()
	from, to := trace.Time(500), trace.Time(1000)
	gv, at := drawGantt(t, tr, GanttOptions{Start: &from, End: &to, Resources: []string{"h1"}})
	if got := strings.Join(gv.g.Labels, ","); got != "t0,t1" {
		t.Fatalf("rows %s", got)
	}
	wait := CategoryColor(1)
	for row := 0; row < 2; row++ {
		for _, x := range []float64{0.02, 0.5, 0.98} {
			if got := at(x, row, 0); got != wait {
				t.Errorf("row %d at %g: %v, want wait %v", row, x, got, wait)
			}
		}
	}
	// Globs and paths select alike; a pattern matching nothing is an error.
	for _, sel := range [][]string{{"h*/t1"}, {"h0/t1", "h1/t1"}} {
		g, err := LayoutGantt(tr, GanttOptions{Resources: sel})
		if err != nil || strings.Join(g.Labels, ",") != "h0/t1,h1/t1" {
			t.Errorf("%v: %v %v", sel, g, err)
		}
	}
	// The root, as the aggregate table names it, keeps every row.
	if g, err := LayoutGantt(tr, GanttOptions{Resources: []string{"root"}}); err != nil || len(g.Leaves) != 4 {
		t.Errorf("root: %v %v", g, err)
	}
	if _, err := LayoutGantt(tr, GanttOptions{Resources: []string{"nope"}}); err == nil {
		t.Error("a pattern matching nothing was accepted")
	}
	if _, err := newGantt(tr, GanttOptions{Colors: map[string]string{"nope": "red"}}); err == nil {
		t.Error("a colour for no state was accepted")
	}
}

// Rows are the overview's: the model of the same trace has its leaves in
// the Gantt's order.
func TestGanttRowsAreTheModelsLeaves(t *testing.T) {
	tr := ganttTrace()
	g, err := LayoutGantt(tr, GanttOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range g.Leaves {
		if int(l) != i {
			t.Errorf("row %d is leaf %d", i, l)
		}
	}
}

// TestGanttDeepStack: a call stack of 1,000 states on one thread, each
// nested in the one before (depth d over [d, 4000-d) ns), "outer" but the
// deepest, "core" over [999, 3001). From ganttFloorDepth down the bars
// share one band, drawn as the deepest state at each column shows it:
// "core" in the middle, "outer" on either side, three runs filled where a
// bar per state drew a thousand over one another.
func TestGanttDeepStack(t *testing.T) {
	tr := trace.New()
	tr.DefineType(trace.Type{Name: "Thread", Kind: trace.KindContainer, Parent: trace.None})
	tr.DefineType(trace.Type{Name: "S", Kind: trace.KindState, Parent: 0})
	tr.DefineValue(trace.Value{Type: 1, Name: "outer", Color: "1 0 0"})
	tr.DefineValue(trace.Value{Type: 1, Name: "core", Color: "0 0 1"})
	tr.CreateContainer(trace.Container{Name: "t0", Type: 0, Parent: 0})
	const n = 1000
	for d := range n {
		v := int32(0)
		if d == n-1 {
			v = 1
		}
		tr.State(trace.State{Container: 1, Type: 1, Value: v, Start: trace.Time(d), End: trace.Time(4000 - d), Depth: int32(d)})
	}
	tr.Finish(0, 4000)
	gv, at := drawGantt(t, tr, GanttOptions{})
	red, blue := color.RGBA{255, 0, 0, 255}, color.RGBA{0, 0, 255, 255}
	for _, c := range []struct {
		x    float64
		want color.RGBA
	}{{0.1, red}, {0.3, blue}, {0.5, blue}, {0.7, blue}, {0.9, red}} {
		if got := at(c.x, 0, 0); got != c.want {
			t.Errorf("the band at %.1f of the window: %v, want %v", c.x, got, c.want)
		}
	}
	// The band alone: three runs of one colour each.
	var bars []ganttBar
	for i := range tr.States.Len() {
		if d := tr.States.At(i).Depth; d >= ganttFloorDepth {
			bars = append(bars, ganttBar{0, d, int32(i)})
		}
	}
	var runs []int
	tx := func(x float64) vg.Length { return vg.Length(x / gv.x(gv.end) * 600) }
	gv.drawBand(bars, tx, 0, 1, func(row int, depth int32, x0, x1 vg.Length, cat int) { runs = append(runs, cat) })
	if want := []int{gv.group.Of[0], gv.group.Of[1], gv.group.Of[0]}; !slices.Equal(runs, want) {
		t.Errorf("the band filled runs of states %v, want %v", runs, want)
	}
}

// TestGanttBandEndsWithTheWindow: states that the window cuts end at its
// edge, in the band from ganttFloorDepth down as above it. A stack of
// seven states over the whole trace, drawn over [1, 9] us of [0, 10]: the
// pixel after the data area's right edge is the background's, as it is for
// one state (the band's last column, cut by the window, spilled past it).
func TestGanttBandEndsWithTheWindow(t *testing.T) {
	white := color.RGBA{255, 255, 255, 255}
	for _, depth := range []int32{1, ganttFloorDepth + 1} {
		tr := trace.New()
		tr.DefineType(trace.Type{Name: "Thread", Kind: trace.KindContainer, Parent: trace.None})
		tr.DefineType(trace.Type{Name: "S", Kind: trace.KindState, Parent: 0})
		tr.DefineValue(trace.Value{Type: 1, Name: "outer", Color: "1 0 0"})
		tr.CreateContainer(trace.Container{Name: "t0", Type: 0, Parent: 0})
		for d := range depth {
			tr.State(trace.State{Container: 1, Type: 1, Value: 0, Start: 0, End: 10000, Depth: d})
		}
		tr.Finish(0, 10000)
		start, end := trace.Time(1000), trace.Time(9000)
		gv, at := drawGantt(t, tr, GanttOptions{Start: &start, End: &end})
		pixel := 1 / float64(gv.data.Max.X-gv.data.Min.X) * 72 / dpi // one pixel, in windows
		if got := at(1+pixel, 0, 0); got != white {
			t.Errorf("stack of %d states: a pixel past the window's end %v, want the background", depth, got)
		}
		if got := at(0.5, 0, 0); got != (color.RGBA{255, 0, 0, 255}) {
			t.Errorf("stack of %d states: at 0.5 of the window %v, want the state's red", depth, got)
		}
	}
}
