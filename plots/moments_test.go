package plots

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/png"
	"math"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/moments"
)

// pixelMap maps data coordinates of a laid-out moment display to pixels.
type pixelMap struct {
	f   *momentsFigure
	img image.Image
}

func render(t *testing.T, rows []MomentRow, opt MomentsOptions) pixelMap {
	t.Helper()
	f, err := newMomentsFigure(rows, opt)
	if err != nil {
		t.Fatal(err)
	}
	data, err := MomentsFigure(rows, opt)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	w, h := int(math.Round(float64(f.width/pointsPerPixel))), int(math.Round(float64(f.height/pointsPerPixel)))
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Fatalf("image is %dx%d, the layout says %dx%d", b.Dx(), b.Dy(), w, h)
	}
	return pixelMap{f, img}
}

// px returns the pixel column of time t.
func (m pixelMap) px(t float64) float64 {
	c := m.f.dataCanvas(m.f.height)
	return float64(c.X(m.f.plot.X.Norm(t)) / pointsPerPixel)
}

// py returns the pixel row at fraction frac (0 bottom, 1 top) of row i.
func (m pixelMap) py(i int, frac float64) int {
	c := m.f.dataCanvas(m.f.height)
	n := float64(len(m.f.rows))
	y := c.Y(m.f.plot.Y.Norm(n - float64(i) - 1 + frac))
	return m.img.Bounds().Dy() - int(math.Ceil(float64(y/pointsPerPixel)))
}

func same(c color.Color, want color.RGBA) bool {
	r, g, b, _ := c.RGBA()
	d := func(x uint32, y uint8) bool { return math.Abs(float64(x>>8)-float64(y)) <= 8 }
	return d(r, want.R) && d(g, want.G) && d(b, want.B)
}

var (
	black = color.RGBA{0, 0, 0, 255}
	white = color.RGBA{255, 255, 255, 255}
)

// run returns the first and last columns of the run of colour want that
// contains column x on pixel row y.
func (m pixelMap) run(x, y int, want color.RGBA) (lo, hi int, ok bool) {
	if !same(m.img.At(x, y), want) {
		return 0, 0, false
	}
	lo, hi = x, x
	for same(m.img.At(lo-1, y), want) {
		lo--
	}
	for same(m.img.At(hi+1, y), want) {
		hi++
	}
	return lo, hi, true
}

// checkRun checks that the run of want around time at spans [from, to]
// seconds to within a pixel and a half.
func (m pixelMap) checkRun(t *testing.T, what string, at float64, y int, want color.RGBA, from, to float64) {
	t.Helper()
	lo, hi, ok := m.run(int(m.px(at)), y, want)
	if !ok {
		t.Errorf("%s: pixel (%d, %d) is %v, want %v", what, int(m.px(at)), y, m.img.At(int(m.px(at)), y), want)
		return
	}
	if math.Abs(float64(lo)-m.px(from)) > 1.5 || math.Abs(float64(hi+1)-m.px(to)) > 1.5 {
		t.Errorf("%s: columns [%d, %d], want [%.1f, %.1f]", what, lo, hi+1, m.px(from), m.px(to))
	}
}

// column returns the first and last pixel rows of the longest run of
// colour want in pixel column x.
func (m pixelMap) column(x int, want color.RGBA) (top, bottom int) {
	best, start := -1, -1
	for y := 0; y <= m.img.Bounds().Dy(); y++ {
		if y < m.img.Bounds().Dy() && same(m.img.At(x, y), want) {
			if start < 0 {
				start = y
			}
			continue
		}
		if start >= 0 && y-start > best {
			best, top, bottom = y-start, start, y-1
		}
		start = -1
	}
	return top, bottom
}

func TestMomentsFigureOneRow(t *testing.T) {
	rows := []MomentRow{{Label: "rank-0", Moments: moments.Moments{M0: 2, M1: 5, M2: 3, M3: 1.5}}}
	m := render(t, rows, MomentsOptions{Width: 480, TimeMin: 0, TimeMax: 10, Title: "one rank"})
	if got := m.img.Bounds().Dx(); got != 640 {
		t.Errorf("width %d px, want 640", got)
	}
	rowPx := float64(m.py(0, 0) - m.py(0, 1))
	// The norm bar fills 80% of the row's height, the deviation bars 48%,
	// around the same centre.
	gTop, gBottom := m.column(int(m.px(4.5)), normGrey)
	dTop, dBottom := m.column(int(m.px(3)), black)
	if h := float64(gBottom - gTop + 1); math.Abs(h-0.8*rowPx) > 2 {
		t.Errorf("norm bar %v px high, want %v", h, 0.8*rowPx)
	}
	if h := float64(dBottom - dTop + 1); math.Abs(h-0.48*rowPx) > 2 {
		t.Errorf("deviation bar %v px high, want %v", h, 0.48*rowPx)
	}
	if math.Abs(float64(gTop+gBottom-dTop-dBottom)/2) > 1 {
		t.Errorf("norm bar rows [%d, %d] and deviation rows [%d, %d] are not centred alike", gTop, gBottom, dTop, dBottom)
	}
	// Near the top of the row only the norm bar is drawn: grey over
	// [m1 - m0/2, m1 + m0/2] = [4, 6], cut by the mean tick at 5.
	top := gTop
	m.checkRun(t, "norm bar, left half", 4.5, top, normGrey, 4, 5)
	m.checkRun(t, "norm bar, right half", 5.5, top, normGrey, 5, 6)
	for _, x := range []float64{3.5, 6.5, 1} {
		if c := m.img.At(int(m.px(x)), top); !same(c, white) {
			t.Errorf("outside the norm bar at %v s: %v", x, c)
		}
	}
	// Across the deviation band: black out to m1 ± m2 = [2, 8].
	band := dTop
	m.checkRun(t, "left deviation bar", 3, band, black, 2, 4)
	m.checkRun(t, "right deviation bar", 7, band, black, 6, 8)
	for _, x := range []float64{1.5, 8.5} {
		if c := m.img.At(int(m.px(x)), band); !same(c, white) {
			t.Errorf("outside the deviation at %v s: %v", x, c)
		}
	}
	// On the centre line, the skew from m1 = 5 to m1 + m3 = 6.5.
	sTop, sBottom := m.column(int(m.px(5.8)), skewColor)
	mid := (sTop + sBottom) / 2
	if math.Abs(float64(sTop+sBottom-gTop-gBottom)/2) > 1 {
		t.Errorf("skew line rows [%d, %d] off the centre of the norm bar [%d, %d]", sTop, sBottom, gTop, gBottom)
	}
	lo, hi, ok := m.run(int(m.px(5.8)), mid, skewColor)
	if !ok || math.Abs(float64(hi+1)-m.px(6.5)) > 1.5 || math.Abs(float64(lo)-m.px(5)) > 1.5 {
		t.Errorf("skew line: columns [%d, %d] (%v), want [%.1f, %.1f]", lo, hi+1, ok, m.px(5), m.px(6.5))
	}
	if c := m.img.At(int(m.px(4.5)), mid); !same(c, normGrey) {
		t.Errorf("left of m1 on the centre line: %v, want the norm bar (a positive skew points right)", c)
	}
}

func TestMomentsFigureNegativeSkew(t *testing.T) {
	rows := []MomentRow{{Moments: moments.Moments{M0: 2, M1: 5, M2: 3, M3: -2.5}}}
	m := render(t, rows, MomentsOptions{TimeMin: 0, TimeMax: 10})
	top, bottom := m.column(int(m.px(3.5)), skewColor)
	m.checkRun(t, "skew line", 3.5, (top+bottom)/2, skewColor, 2.5, 5)
}

// Thousands of resources, one pixel row each: every row is drawn where it
// belongs, empty rows stay blank, and group boundaries are marked.
func TestMomentsFigureDense(t *testing.T) {
	const n = 3000
	rows := make([]MomentRow, n)
	for i := range rows {
		if i%500 == 7 {
			continue // no busy time
		}
		m1 := 10 + 80*float64(i)/n
		rows[i] = MomentRow{Moments: moments.Moments{M0: 6, M1: m1, M2: 5, M3: 0}}
	}
	groups := []RowGroup{{"node-a", 0, 1000}, {"node-b", 1000, 3000}}
	m := render(t, rows, MomentsOptions{TimeMin: 0, TimeMax: 100, Groups: groups})
	c := m.f.dataCanvas(m.f.height)
	if got := c.Rectangle.Size().Y / pointsPerPixel; math.Abs(float64(got)-n) > 1e-6 {
		t.Fatalf("data area %v px high, want one pixel per row (%d)", got, n)
	}
	for _, i := range []int{0, 1, 2, 999, 1000, 1001, 1500, 2998, 2999} {
		if i%500 == 7 {
			continue
		}
		m1 := rows[i].Moments.M1
		y := m.py(i, 0.5)
		m.checkRun(t, "dense norm bar", m1+1.5, y, normGrey, m1, m1+3)
		m.checkRun(t, "dense deviation", m1+4, y, black, m1+3, m1+5)
		if c := m.img.At(int(m.px(m1+6)), y); !same(c, white) && i != 1000 { // 1000 holds the separator
			t.Errorf("row %d: beyond the deviation: %v", i, c)
		}
	}
	for _, i := range []int{7, 507, 2507} {
		y := m.py(i, 0.5)
		for _, x := range []float64{rows[i+1].Moments.M1, rows[i-1].Moments.M1 + 2} {
			if c := m.img.At(int(m.px(x)), y); !same(c, white) {
				t.Errorf("empty row %d at %v s: %v", i, x, c)
			}
		}
	}
	// The boundary between the groups is a line across the data area,
	// on the first row of the second group, where that row is blank.
	y := m.py(1000, 0.5)
	for _, x := range []float64{2, 95} {
		if c := m.img.At(int(m.px(x)), y); !same(c, sepColor) {
			t.Errorf("no group separator at %v s on pixel row %d: %v", x, y, c)
		}
	}
	if c := m.img.At(int(m.px(95)), m.py(1001, 0.5)); !same(c, white) {
		t.Errorf("separator thicker than a pixel: %v", c)
	}
}

// More rows than pixels: the figure still renders, at the maximum height.
func TestMomentsFigureManyRows(t *testing.T) {
	rows := make([]MomentRow, 6000)
	for i := range rows {
		rows[i].Moments = moments.Moments{M0: 1, M1: float64(i % 100), M2: 1, M3: 0.3}
	}
	m := render(t, rows, MomentsOptions{})
	if h := m.f.dataCanvas(m.f.height).Rectangle.Size().Y / pointsPerPixel; math.Abs(float64(h)-maxPixelRows) > 1e-6 {
		t.Errorf("data area %v px high, want %d", h, maxPixelRows)
	}
}

func TestMomentsFigureSVG(t *testing.T) {
	rows := []MomentRow{{Label: "a", Moments: moments.Moments{M0: 1, M1: 1, M2: 1, M3: 0}}}
	data, err := MomentsFigure(rows, MomentsOptions{Format: SVG})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte("<svg")) || !bytes.Contains(data, []byte("m1 ± m2 deviation")) {
		t.Errorf("not an SVG moment display: %.200s", data)
	}
}

func TestMomentsFigureBadInput(t *testing.T) {
	ok := []MomentRow{{Moments: moments.Moments{M0: 1, M1: 1, M2: 1}}}
	for name, tc := range map[string]struct {
		rows []MomentRow
		opt  MomentsOptions
	}{
		"no rows":        {nil, MomentsOptions{}},
		"NaN mean":       {[]MomentRow{{Moments: moments.Moments{M0: 1, M1: math.NaN()}}}, MomentsOptions{}},
		"negative norm":  {[]MomentRow{{Moments: moments.Moments{M0: -1}}}, MomentsOptions{}},
		"group overflow": {ok, MomentsOptions{Groups: []RowGroup{{"g", 0, 2}}}},
		"empty range":    {ok, MomentsOptions{TimeMin: 3, TimeMax: 3}},
		"negative size":  {ok, MomentsOptions{Width: -5}},
		"too short":      {ok, MomentsOptions{Height: 10}},
		"bad format":     {ok, MomentsOptions{Format: "gif"}},
	} {
		_, err := MomentsFigure(tc.rows, tc.opt)
		var ae *errs.ArgumentError
		if !errors.As(err, &ae) {
			t.Errorf("%s: %v, want an ArgumentError", name, err)
		}
	}
}

func TestHierarchyRows(t *testing.T) {
	tr := trace.New("t")
	tr.DefineType(trace.Type{Name: "Node", Kind: trace.KindContainer, Parent: trace.None})
	tr.DefineType(trace.Type{Name: "Proc", Kind: trace.KindContainer, Parent: 0})
	tr.DefineType(trace.Type{Name: "S", Kind: trace.KindState, Parent: 1})
	tr.DefineValue(trace.Value{Type: 2, Name: "run"})
	tr.CreateContainer(trace.Container{Name: "n1", Type: 0, Parent: 0})
	tr.CreateContainer(trace.Container{Name: "n2", Type: 0, Parent: 0})
	for i, parent := range []int32{1, 1, 2} {
		tr.CreateContainer(trace.Container{Name: []string{"p1", "p2", "p3"}[i], Type: 1, Parent: parent})
	}
	tr.State(trace.State{Container: 3, Type: 2, Value: 0, Start: 0, End: 4 * trace.Second})
	tr.State(trace.State{Container: 5, Type: 2, Value: 0, Start: 2 * trace.Second, End: 3 * trace.Second})
	tr.Finish(0, 10*trace.Second)
	r, err := moments.Compute(tr, moments.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rows, groups := HierarchyRows(r)
	var labels []string
	for _, row := range rows {
		labels = append(labels, row.Label)
	}
	if got := strings.Join(labels, " "); got != "p1 p2 p3" {
		t.Errorf("rows %q", got)
	}
	if len(groups) != 2 || groups[0] != (RowGroup{"n1", 0, 2}) || groups[1] != (RowGroup{"n2", 2, 3}) {
		t.Errorf("groups %+v", groups)
	}
	if m := rows[0].Moments; m.M0 != 4 || m.M1 != 2 || rows[1].Moments.M0 != 0 || rows[2].Moments.M1 != 2.5 {
		t.Errorf("row moments %+v", rows)
	}
	if _, err := MomentsFigure(rows, MomentsOptions{Groups: groups}); err != nil {
		t.Error(err)
	}
}

// A thousand resources, one pixel row each, as in a large moment display.
func BenchmarkMomentsFigure(b *testing.B) {
	rows := make([]MomentRow, 1000)
	for i := range rows {
		rows[i].Moments = moments.Moments{M0: 3, M1: 10 + float64(i%97)/10, M2: 2 + float64(i%13)/5, M3: float64(i%7) - 3}
	}
	for b.Loop() {
		if _, err := MomentsFigure(rows, MomentsOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// A state in the palette's first colour, the skew line's, gets a white
// skew line, which would otherwise vanish on its bar.
func TestMomentsFigureSkewOnItsOwnColour(t *testing.T) {
	rows := []MomentRow{{Color: skewColor, Moments: moments.Moments{M0: 4, M1: 5, M2: 3, M3: 1.5}}}
	m := render(t, rows, MomentsOptions{TimeMin: 0, TimeMax: 10})
	top, bottom := m.column(int(m.px(4.5)), skewColor) // the bar, left of m1
	m.checkRun(t, "skew line", 5.8, (top+bottom)/2, white, 5, 6.5)
}
