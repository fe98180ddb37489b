package plots

import (
	"errors"
	"image/color"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/moments"
)

// bar returns the sums of the busy interval [a, b) seconds.
func bar(a, b float64) moments.Sums {
	var s moments.Sums
	s.Add(trace.Time(a*1e9), trace.Time(b*1e9))
	return s
}

func labelsOf(rows []MomentRow) string {
	var s []string
	for _, r := range rows {
		s = append(s, r.Label)
	}
	return strings.Join(s, ",")
}

func TestResultRowsByResource(t *testing.T) {
	// Two zones of one-process hosts: the hosts would make groups of one,
	// so the zones group the rows.
	var rows []moments.Row
	for _, p := range []string{"z1/h1/p1", "z1/h2/p2", "z2/h3/p3", "z2/h4/p4"} {
		i := strings.LastIndex(p, "/")
		rows = append(rows, moments.Row{Path: p, Name: p[i+1:], Parent: p[:i], Resources: 1, Sums: bar(2, 4)})
	}
	fig, groups, legend := ResultRows(rows, moments.ByResource, trace.Second)
	if got := labelsOf(fig); got != "p1,p2,p3,p4" {
		t.Errorf("labels %s", got)
	}
	if len(groups) != 2 || groups[0] != (RowGroup{"z1", 0, 2}) || groups[1] != (RowGroup{"z2", 2, 4}) {
		t.Errorf("groups %+v", groups)
	}
	if legend != nil {
		t.Errorf("legend %v without states", legend)
	}
	// Means measured from the origin, 1 s.
	if m := fig[0].Moments; m.M0 != 2 || m.M1 != 2 || math.Abs(m.M2-1) > 1e-12 {
		t.Errorf("moments %+v", m)
	}
	// Under a single parent: no groups.
	_, groups, _ = ResultRows(rows[:2], moments.ByResource, 0)
	if groups != nil {
		t.Errorf("groups %+v under one zone", groups)
	}
	// Processes of two-process hosts group by host.
	rows[1].Path, rows[1].Parent = "z1/h1/p2", "z1/h1"
	rows[3].Path, rows[3].Parent = "z2/h3/p4", "z2/h3"
	_, groups, _ = ResultRows(rows, moments.ByResource, 0)
	if len(groups) != 2 || groups[0].Label != "z1/h1" || groups[1].Label != "z2/h3" {
		t.Errorf("groups %+v", groups)
	}
}

func TestResultRowsByStateAndNode(t *testing.T) {
	rows := []moments.Row{
		{Path: "n/p", Name: "p", Parent: "n", State: "run", Resources: 1, Sums: bar(0, 2)},
		{Path: "n/p", Name: "p", Parent: "n", State: "wait", Resources: 1, Sums: bar(2, 3)},
		{Path: "n/q", Name: "q", Parent: "n", State: "wait", Resources: 1, Sums: bar(1, 3)},
	}
	fig, groups, _ := ResultRows(rows, moments.ByState, 0)
	if got := labelsOf(fig); got != "p run,p wait,q wait" {
		t.Errorf("labels %s", got)
	}
	if len(groups) != 2 || groups[0] != (RowGroup{"run", 0, 1}) || groups[1] != (RowGroup{"wait", 1, 3}) {
		t.Errorf("groups %+v", groups)
	}
	// State by state, resources in order within each.
	fig, groups, _ = ResultRows([]moments.Row{rows[1], rows[0], rows[2]}, moments.ByState, 0)
	if got := labelsOf(fig); got != "p wait,q wait,p run" || len(groups) != 2 || groups[0] != (RowGroup{"wait", 0, 2}) {
		t.Errorf("labels %s, groups %+v", got, groups)
	}
	fig, _, legend := ResultRows(rows, moments.ByState, 0)
	// One colour per state, never the skew line's, named by the legend.
	if len(legend) != 2 || legend[0].Label != "run" || legend[1].Label != "wait" ||
		fig[0].Color != legend[0].Color || fig[1].Color != legend[1].Color || fig[2].Color != legend[1].Color ||
		legend[0].Color == skewColor || legend[1].Color == skewColor || legend[0].Color == legend[1].Color {
		t.Errorf("legend %+v, colours %v %v %v", legend, fig[0].Color, fig[1].Color, fig[2].Color)
	}

	var both moments.Sums
	both.Merge(bar(0, 2))
	both.Merge(bar(1, 3))
	nodes := []moments.Row{
		{Path: "", Name: "0", Resources: 2, Sums: both},
		{Path: "n", Name: "n", Resources: 2, Sums: both},
		{Path: "n/p", Name: "p", Parent: "n", Resources: 1, Sums: bar(0, 2)},
	}
	fig, groups, _ = ResultRows(nodes, moments.ByNode, 0)
	if got := labelsOf(fig); got != RootLabel+",n,n/p" {
		t.Errorf("labels %s", got)
	}
	// A node's bar is the mean busy time of its resources.
	if m := fig[0].Moments; m.M0 != 2 || m.M1 != 1.5 {
		t.Errorf("root moments %+v", m)
	}
	if len(groups) != 2 || groups[0] != (RowGroup{RootLabel, 0, 1}) || groups[1] != (RowGroup{"n", 1, 3}) {
		t.Errorf("groups %+v", groups)
	}
}

func TestTimeLabel(t *testing.T) {
	epoch := trace.Time(1_700_000_000) * trace.Second
	if label := TimeLabel(epoch, "s"); label != "time (s) since the trace's start at 1700000000 s" {
		t.Errorf("%q", label)
	}
	if label := TimeLabel(0, "s"); label != "time (s)" {
		t.Errorf("%q", label)
	}
}

func TestResultFigure(t *testing.T) {
	epoch := trace.Time(1_700_000_000) * trace.Second
	var s moments.Sums
	s.Add(epoch+2*trace.Second, epoch+4*trace.Second)
	rows := []moments.Row{{Path: "p", Name: "p", Resources: 1, Sums: s}}
	data, err := ResultFigure(rows, moments.ByResource, epoch, epoch+10*trace.Second, MomentsOptions{Format: SVG, Origin: epoch})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "since the trace&#39;s start at 1700000000 s") && !strings.Contains(string(data), "since the trace's start at 1700000000 s") {
		t.Error("the axis is not measured from the trace's start")
	}
	_, err = ResultFigure(nil, moments.ByResource, 0, 1, MomentsOptions{})
	var ae *errs.ArgumentError
	if !errors.As(err, &ae) {
		t.Errorf("no rows: %v", err)
	}
	// The axis is the window, from its start, even where marks reach past it.
	if lo, hi := WindowAxis(epoch+2*trace.Second, epoch+12*trace.Second, epoch+2*trace.Second); lo != 0 || hi != 10 {
		t.Errorf("axis [%v, %v], want the window [0, 10]", lo, hi)
	}
}

// Rows over disjoint times share a line; a line takes its first row's
// label.
func TestMomentsFigureSharedLines(t *testing.T) {
	rows := []MomentRow{
		{Label: "node a", Moments: moments.Moments{M0: 2, M1: 2, M2: 1, M3: 0}},
		{Label: "node a later", Moments: moments.Moments{M0: 2, M1: 7, M2: 1, M3: 0}},
		{Label: "node b", Moments: moments.Moments{M0: 4, M1: 5, M2: 2, M3: 0}},
	}
	opt := MomentsOptions{Width: 480, TimeMin: 0, TimeMax: 10, Lines: []int{0, 0, 1}}
	f, err := newMomentsFigure(rows, opt)
	if err != nil {
		t.Fatal(err)
	}
	m := render(t, rows, opt)
	if f.lines != 2 || f.plot.Y.Max != 2 {
		t.Fatalf("%d lines", f.lines)
	}
	ticks := f.plot.Y.Tick.Marker.Ticks(0, 2)
	if len(ticks) != 2 || ticks[0].Label != "node a" || ticks[1].Label != "node b" {
		t.Errorf("ticks %+v", ticks)
	}
	// The two bars of line 0 cover the same pixel rows, above line 1's.
	top0, bottom0 := m.column(int(m.px(1.5)), normGrey)
	top0b, bottom0b := m.column(int(m.px(7.5)), normGrey)
	top1, _ := m.column(int(m.px(4)), normGrey)
	if top0 != top0b || bottom0 != bottom0b || top1 <= bottom0 || bottom0-top0 < 8 {
		t.Errorf("line 0 bars on rows [%d, %d] and [%d, %d], line 1 from row %d", top0, bottom0, top0b, bottom0b, top1)
	}
	m.checkRun(t, "first bar of line 0", 1.5, top0, normGrey, 1, 2)
	m.checkRun(t, "second bar of line 0", 7.5, top0, normGrey, 7, 8)
	m.checkRun(t, "bar of line 1", 4, top1, normGrey, 3, 5)
	if !same(m.img.At(int(m.px(4.5)), top0), white) {
		t.Error("line 0 is not blank between its rows")
	}
	for name, lines := range map[string][]int{"short": {0, 1}, "negative": {0, -1, 1}} {
		if _, err := MomentsFigure(rows, MomentsOptions{Lines: lines}); err == nil {
			t.Errorf("%s lines: no error", name)
		}
	}
	if _, err := MomentsFigure(rows, MomentsOptions{Lines: []int{0, 0, 1}, Groups: []RowGroup{{"g", 0, 3}}}); err == nil {
		t.Error("a group beyond the lines: no error")
	}
}

// The legend takes lines under the key, wrapping to the width, and draws
// each colour there.
func TestMomentsFigureLegend(t *testing.T) {
	rows := []MomentRow{{Label: "a", Moments: moments.Moments{M0: 1, M1: 1, M2: 1, M3: 0}, Color: CategoryColor(3)}}
	var legend []LegendEntry
	for i := range 12 {
		legend = append(legend, LegendEntry{Label: "MPI_Allreduce_" + string(rune('a'+i)), Color: CategoryColor(i + 1)})
	}
	plain, err := newMomentsFigure(rows, MomentsOptions{Width: 480})
	if err != nil {
		t.Fatal(err)
	}
	opt := MomentsOptions{Width: 480, Legend: legend}
	f, err := newMomentsFigure(rows, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.legend) < 3 {
		t.Errorf("12 entries on %d legend lines at 480 points", len(f.legend))
	}
	n := 0
	for _, line := range f.legend {
		n += len(line)
	}
	if n != 12 {
		t.Errorf("%d entries laid out", n)
	}
	if grown := f.height - plain.height; math.Abs(float64(grown)-legendLine*float64(len(f.legend))) > 1 {
		t.Errorf("the figure grew by %v points for %d legend lines", grown, len(f.legend))
	}
	m := render(t, rows, opt)
	dataTop := m.img.Bounds().Dy() - int(float64(m.f.dataCanvas(m.f.height).Max.Y/pointsPerPixel))
	for _, e := range legend {
		if !hasColor(m, e.Color, 0, dataTop) {
			t.Errorf("legend colour %v not drawn above the plot", e.Color)
		}
	}
}

func hasColor(m pixelMap, want color.RGBA, y0, y1 int) bool {
	for y := y0; y < y1; y++ {
		for x := 0; x < m.img.Bounds().Dx(); x++ {
			if same(m.img.At(x, y), want) {
				return true
			}
		}
	}
	return false
}

// Rows are labelled by the height they get: a figure of a given height
// too short for 64 labels names no row.
func TestMomentsFigureLabelsFollowTheHeight(t *testing.T) {
	rows := make([]MomentRow, 64)
	for i := range rows {
		rows[i] = MomentRow{Label: "rank", Moments: moments.Moments{M0: 1, M1: 1, M2: 1}}
	}
	for _, tc := range []struct {
		height vg.Length
		ticks  int
	}{{0, 64}, {300, 0}, {2000, 64}} {
		f, err := newMomentsFigure(rows, MomentsOptions{Height: tc.height})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(f.plot.Y.Tick.Marker.Ticks(0, 64)); got != tc.ticks {
			t.Errorf("height %v: %d row labels, want %d", tc.height, got, tc.ticks)
		}
		if (tc.ticks == 0) != (f.plot.Y.Label.Text == "resources") {
			t.Errorf("height %v: axis label %q", tc.height, f.plot.Y.Label.Text)
		}
	}
}

// A short window reads in the unit the model's figures read it in: a 40 ms
// trace's moment display counts milliseconds, and is the figure of the same
// rows given in milliseconds.
func TestResultFigureUnit(t *testing.T) {
	epoch := trace.Time(1_700_000_000) * trace.Second
	var s moments.Sums
	s.Add(epoch+trace.Second/100, epoch+3*trace.Second/100)
	rows := []moments.Row{{Path: "p", Name: "p", Resources: 1, Sums: s}}
	end := epoch + 4*trace.Second/100
	got, err := ResultFigure(rows, moments.ByResource, epoch, end, MomentsOptions{Format: SVG, Origin: epoch})
	if err != nil {
		t.Fatal(err)
	}
	unit, label := TimeAxis(epoch, epoch, end)
	if unit != 1e-3 || !strings.HasPrefix(label, "time (ms)") {
		t.Fatalf("axis %v %q, want milliseconds", unit, label)
	}
	fig, groups, legend := ResultRows(rows, moments.ByResource, epoch)
	m := fig[0].Moments
	// The busy interval [10, 30) ms: norm 20 ms, mean 20 ms, deviation
	// sqrt(3 var) = 10 ms, no skew.
	if math.Abs(m.M0-0.020) > 1e-12 || math.Abs(m.M1-0.020) > 1e-12 || math.Abs(m.M2-0.010) > 1e-12 || math.Abs(m.M3) > 1e-9 {
		t.Fatalf("moments %+v", m)
	}
	fig[0].Moments = moments.Moments{M0: m.M0 / 1e-3, M1: m.M1 / 1e-3, M2: m.M2 / 1e-3, M3: m.M3 / 1e-3}
	want, err := MomentsFigure(fig, MomentsOptions{Format: SVG, Origin: epoch, TimeMin: 0, TimeMax: 40,
		TimeLabel: label, Groups: groups, Legend: legend})
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Error("the moment display of a 40 ms window is not the figure of its rows in milliseconds")
	}
	if !strings.Contains(string(got), "time (ms)") {
		t.Error("the axis does not say milliseconds")
	}
}
