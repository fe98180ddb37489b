package plots

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/kaleido"
)

// The kaleidoscope views of Tick and Park 1991: what the colours show.
const (
	KaleidoscopeByPE        = "pe"        // the processing element of each node
	KaleidoscopeByProcedure = "procedure" // the procedure each node runs
	KaleidoscopeByTime      = "time"      // the start time, blue to magenta
)

// KaleidoscopeOptions choose the view and the output.
type KaleidoscopeOptions struct {
	View   string // KaleidoscopeByPE (default), KaleidoscopeByProcedure or KaleidoscopeByTime
	Format Format // PNG (default) or SVG
	Title  string // replaces the default first line of the title
	// Notes come first on the line under the title (a trace read
	// incomplete, for instance); empty ones are left out.
	Notes []string
	// Colors overrides, by name, the colours of the PEs (PE view) or of
	// the procedures (procedure view), written as ParseColor reads them.
	// The time view's colours are the spectrum: it takes none.
	Colors map[string]string
	// Cancel, once closed, stops Kaleidoscope, which returns
	// trace.ErrComputationCanceled and no figure. Nil: never.
	Cancel <-chan struct{}
}

// Layout of the figure, in pixels: the window of the layout's width, a
// title band above it, a legend column to its right.
const (
	kalTitlePx  = 44
	kalLegendPx = 230
	kalMarginPx = 6
	ptPerPx     = 72.0 / dpi
)

// KaleidoNone is the colour of nodes without the attribute a view shows
// (the synthetic root has no PE).
var KaleidoNone = color.RGBA{170, 170, 170, 255}

var (
	kalFont      = font.From(plot.DefaultFont, 8)
	kalTitleFont = font.From(plot.DefaultFont, 11)
)

// Kaleidoscope draws a laid-out tree as in Tick and Park 1991: each family (a drawn
// node and its children) a polygon from the parent through its children,
// shared among the children, each part in its child's colour. Children
// less than a pixel apart share one part, in their most common colour;
// neighbouring parts of one colour are filled as one polygon; a part
// under a pixel wide is also stroked as a line from the parent, as a
// family of one child is. The root is a disc in its own colour at the
// centre. The figure is the layout's window (Width pixels square; a
// subtree view drawn with a fixed spacing that overflows it is scaled
// down), a title and a legend: categories for the PE and procedure views
// (procedures ranked by their number of nodes in the whole tree, so colours
// do not change between views), a colour bar for the time view, whose
// spectrum spans the start times of the view's nodes.
func Kaleidoscope(l *kaleido.Layout, opt KaleidoscopeOptions) ([]byte, error) {
	if opt.Format == "" {
		opt.Format = PNG
	}
	if opt.View == "" {
		opt.View = KaleidoscopeByPE
	}
	if err := CheckSize(vg.Length((l.Width+kalLegendPx)*ptPerPx), vg.Length((l.Width+kalTitlePx)*ptPerPx)); err != nil {
		return nil, err
	}
	if err := trace.Stopped(opt.Cancel); err != nil {
		return nil, err
	}
	paint, err := newKaleidoPaint(l, opt.View, opt.Colors)
	if err != nil {
		return nil, err
	}
	k := &kaleidoFigure{l: l, paint: paint, opt: opt, look: trace.Looker{Cancel: opt.Cancel}}
	w := vg.Length((l.Width + kalLegendPx) * ptPerPx)
	h := vg.Length((l.Width + kalTitlePx) * ptPerPx)
	img, err := Render(w, h, opt.Format, k.draw)
	if k.canceled || trace.Stopped(opt.Cancel) != nil {
		// The drawing stopped short (Render has no error to return), or
		// the image was encoded after the cancel.
		return nil, trace.ErrComputationCanceled
	}
	return img, err
}

type kaleidoFigure struct {
	l     *kaleido.Layout
	paint *kaleidoPaint
	opt   KaleidoscopeOptions
	// look counts the children painted, between looks at opt.Cancel;
	// canceled: the drawing stopped at it.
	look     trace.Looker
	canceled bool
}

// stop tells whether the drawing must stop once n more children are
// painted: opt.Cancel is closed, looked at first, then every
// trace.StopEvery children.
func (k *kaleidoFigure) stop(n int) bool {
	if k.look.Stopped(n) != nil {
		k.canceled = true
	}
	return k.canceled
}

func (k *kaleidoFigure) draw(c draw.Canvas) {
	l := k.l
	win := l.Width * ptPerPx
	centre := vg.Point{X: c.Min.X + vg.Length(win/2), Y: c.Min.Y + vg.Length(win/2)}
	scale := ptPerPx // points per layout pixel: drawn pixel for pixel
	if r := l.MaxRadius(); r > l.Width/2 {
		scale *= (l.Width/2 - kalMarginPx) / r // an overflowing subtree view
	}
	at := func(pt kaleido.Point) vg.Point {
		return vg.Point{X: centre.X + vg.Length(pt.X*scale), Y: centre.Y + vg.Length(pt.Y*scale)}
	}
	k.drawFamilies(c, at, scale)
	if k.canceled {
		return
	}
	// The root, the centre of every view, is a disc in its own colour.
	var disc vg.Path
	disc.Arc(centre, vg.Length(math.Max(3, math.Min(l.Spacing*scale/ptPerPx/3, 8))*ptPerPx), 0, 2*math.Pi)
	disc.Close()
	c.SetColor(k.paint.colour(0))
	c.Fill(disc)
	k.drawTitle(c, scale)
	k.paint.legend(c, vg.Point{X: c.Min.X + vg.Length(win) + vg.Length(kalMarginPx*ptPerPx), Y: c.Max.Y - vg.Length(kalTitlePx*ptPerPx)})
}

// drawFamilies paints every family, inner ones first.
func (k *kaleidoFigure) drawFamilies(c draw.Canvas, at func(kaleido.Point) vg.Point, scale float64) {
	l := k.l
	thin := draw.LineStyle{Width: vg.Length(ptPerPx)}
	var path vg.Path
	var runs []run
	l.Families(func(parent int32, kids []int32) bool {
		if k.stop(len(kids)) {
			return false
		}
		runs = k.runs(runs[:0], kids, scale)
		for _, r := range runs {
			pts := l.RunPolygon(parent, kids, r.first, r.last)
			if len(pts) > 2 {
				path = path[:0]
				path.Move(at(pts[0]))
				for _, pt := range pts[1:] {
					path.Line(at(pt))
				}
				path.Close()
				c.SetColor(r.colour)
				c.Fill(path)
			}
			// A lone child, or a run under a pixel wide, shows as a line.
			if len(pts) == 2 || narrow(pts, scale) {
				thin.Color = r.colour
				a, b := at(l.Point(parent)), at(l.Point(kids[(r.first+r.last)/2]))
				c.StrokeLine2(thin, a.X, a.Y, b.X, b.Y)
			}
		}
		return true
	})
}

// run is a range of children painted as one part of their family's
// polygon.
type run struct {
	first, last int
	colour      color.RGBA
}

// runs cuts a family's children into parts to paint. Children closer
// together than a pixel are one part, in the colour most of them have (a
// pixel cannot show more); then neighbouring parts of one colour merge.
// Families of many children thus cost what their perimeter does.
func (k *kaleidoFigure) runs(out []run, kids []int32, scale float64) []run {
	l := k.l
	pxPerUnit := scale / ptPerPx
	var votes []vote
	for first := 0; first < len(kids); {
		last := first
		p := l.Point(kids[first])
		for last+1 < len(kids) {
			q := l.Point(kids[last+1])
			if math.Hypot(q.X-p.X, q.Y-p.Y)*pxPerUnit >= 1 {
				break
			}
			last++
		}
		col := k.paint.colour(kids[first])
		if last > first {
			votes = votes[:0]
			for _, c := range kids[first : last+1] {
				votes = tally(votes, k.paint.colour(c))
			}
			col = majority(votes)
		}
		if n := len(out); n > 0 && out[n-1].colour == col {
			out[n-1].last = last
		} else {
			out = append(out, run{first, last, col})
		}
		first = last + 1
	}
	return out
}

type vote struct {
	colour color.RGBA
	n      int
}

func tally(votes []vote, c color.RGBA) []vote {
	for i := range votes {
		if votes[i].colour == c {
			votes[i].n++
			return votes
		}
	}
	return append(votes, vote{c, 1})
}

// majority returns the colour with the most votes, the first on ties.
func majority(votes []vote) color.RGBA {
	best := votes[0]
	for _, v := range votes[1:] {
		if v.n > best.n {
			best = v
		}
	}
	return best.colour
}

// narrow reports whether a part of a family polygon is under a pixel wide
// where it meets the children's circle.
func narrow(pts []kaleido.Point, scale float64) bool {
	a, b := pts[1], pts[len(pts)-1]
	return math.Hypot(a.X-b.X, a.Y-b.Y)*scale/ptPerPx < 1
}

func (k *kaleidoFigure) drawTitle(c draw.Canvas, scale float64) {
	l := k.l
	title := k.opt.Title
	if title == "" {
		view := map[string]string{KaleidoscopeByPE: "PE", KaleidoscopeByProcedure: "procedure", KaleidoscopeByTime: "time"}[k.opt.View]
		title = fmt.Sprintf("Kaleidoscope, %s view: %d nodes, height %d", view, l.Len(), l.Condensing.Height)
		if l.Root != 0 {
			title = fmt.Sprintf("Kaleidoscope, %s view of the subtree of node %s: %d nodes, height %d", view,
				k.paint.name(0), l.Len(), l.Condensing.Height)
		}
	}
	var notes []string
	for _, n := range k.opt.Notes {
		if n != "" {
			notes = append(notes, n)
		}
	}
	cond := l.Condensing
	switch {
	case cond.Active && cond.C0 == 1:
		notes = append(notes, fmt.Sprintf("levels condensed 2:1 beyond level %d (%d shown)", cond.Threshold, l.Levels))
	case cond.Active:
		notes = append(notes, fmt.Sprintf("levels condensed %d:1 up to level %d, %d:1 beyond (%d shown)", cond.C0, cond.Threshold, cond.C0+1, l.Levels))
	default:
		notes = append(notes, fmt.Sprintf("%d levels", l.Levels))
	}
	notes = append(notes, fmt.Sprintf("%g px between levels", roundTo(l.Spacing*scale/ptPerPx, 3)))
	if l.NumCollapsed > 0 {
		notes = append(notes, fmt.Sprintf("%d nodes drawn without descendants (%d hidden)", l.NumCollapsed, l.NumKept-l.NumDrawn))
	}
	top := c.Max.Y - vg.Length(4*ptPerPx)
	sty := draw.TextStyle{Color: color.Black, Font: kalTitleFont, Handler: plot.DefaultTextHandler, YAlign: draw.YTop}
	c.FillText(sty, vg.Point{X: c.Min.X + vg.Length(kalMarginPx*ptPerPx), Y: top}, title)
	sty.Font, sty.Color = kalFont, color.Gray{80}
	c.FillText(sty, vg.Point{X: c.Min.X + vg.Length(kalMarginPx*ptPerPx), Y: top - kalTitleFont.Size*1.4}, strings.Join(notes, "; "))
}

func roundTo(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}

// kaleidoPaint gives each view position its colour.
type kaleidoPaint struct {
	l      *kaleido.Layout
	view   string
	colour func(i int32) color.RGBA
	name   func(i int32) string
	// Categories: the colour index of each PE or procedure, and the
	// colours by index.
	index  []int
	labels []string
	colors ColorMap
	other  []bool // by colour index: drawn as "other"
	// Time: the range the spectrum spans.
	t0, t1 float64
}

func newKaleidoPaint(l *kaleido.Layout, view string, override map[string]string) (*kaleidoPaint, error) {
	t := l.Tree
	k := &kaleidoPaint{l: l, view: view}
	k.name = func(i int32) string {
		v := l.Root + i
		if p := t.Procedure[v]; p != kaleido.None {
			return fmt.Sprintf("%s (%s)", t.Key(v), t.Procedures[p])
		}
		return t.Key(v)
	}
	switch view {
	case KaleidoscopeByPE, KaleidoscopeByProcedure:
		cats, err := kaleidoCategories(t, view, override)
		if err != nil {
			return nil, err
		}
		of := t.PE
		if view == KaleidoscopeByProcedure {
			of = t.Procedure
		}
		k.labels, k.index, k.colors, k.other = cats.names, cats.rank, cats.colors, cats.other
		k.colour = func(i int32) color.RGBA {
			if x := of[l.Root+i]; x != kaleido.None {
				return k.colors.Of(k.index[x])
			}
			return KaleidoNone
		}
	case KaleidoscopeByTime:
		if t.Start == nil {
			return nil, errs.Argument("view", "the tree has no start times to colour by")
		}
		if len(override) > 0 {
			return nil, errs.Argument("colors", "the time view colours nodes by their start time; colors= applies to the pe and procedure views")
		}
		// The spectrum spans the view: a subtree view recycles it.
		k.t0, k.t1 = math.Inf(1), math.Inf(-1)
		for v := l.Root; v < t.End[l.Root]; v++ {
			s := t.Start[v].Seconds()
			k.t0, k.t1 = math.Min(k.t0, s), math.Max(k.t1, s)
		}
		k.colour = func(i int32) color.RGBA {
			f := 0.0
			if k.t1 > k.t0 {
				f = (t.Start[l.Root+i].Seconds() - k.t0) / (k.t1 - k.t0)
			}
			return Spectrum(f)
		}
	default:
		return nil, errs.Argument("view", "must be %q, %q or %q, got %q", KaleidoscopeByPE, KaleidoscopeByProcedure, KaleidoscopeByTime, view)
	}
	return k, nil
}

// categoryColors are the PEs or procedures a view colours, with their
// colour indices and colours.
type categoryColors struct {
	names  []string // by category id (the tree's PE or procedure index)
	rank   []int    // colour index of each category
	colors ColorMap // by colour index
	// other marks, by colour index, the categories drawn as "other"
	// (nil when none is).
	other []bool
}

func kaleidoCategories(t *kaleido.Tree, view string, override map[string]string) (categoryColors, error) {
	var c categoryColors
	var traceColors []string
	switch view {
	case KaleidoscopeByPE:
		if t.PE == nil {
			return c, errs.Argument("view", "the tree has no PEs to colour by")
		}
		c.names = t.PEs
		c.rank = make([]int, len(t.PEs))
		for i := range c.rank {
			c.rank[i] = i
		}
	case KaleidoscopeByProcedure:
		if t.Procedure == nil {
			return c, errs.Argument("view", "the tree has no procedures to colour by")
		}
		c.names, traceColors = t.Procedures, t.ProcedureColors
		c.rank = rankByCount(t.Procedure, len(t.Procedures), t.Procedures)
	default:
		return c, errs.Argument("view", "must be %q or %q to have categories, got %q", KaleidoscopeByPE, KaleidoscopeByProcedure, view)
	}
	known := make(map[string]bool, len(c.names))
	for _, n := range c.names {
		known[n] = true
	}
	for name := range override {
		if !known[name] {
			return c, errs.Argument("colors", "no %s named %q in the tree", map[string]string{KaleidoscopeByPE: "PE", KaleidoscopeByProcedure: "procedure"}[view], name)
		}
	}
	// ResolveColors numbers its names by colour index; the trace's
	// repeated colours go to the state it defines first, as elsewhere.
	traceColors = DistinctTraceColors(traceColors)
	ordered := make([]string, len(c.names))
	orderedTrace := make([]string, len(c.names))
	for x, r := range c.rank {
		ordered[r] = c.names[x]
		if x < len(traceColors) {
			orderedTrace[r] = traceColors[x]
		}
	}
	var err error
	c.colors, err = ResolveColors(ordered, orderedTrace, override)
	if err != nil || view != KaleidoscopeByProcedure {
		return c, err
	}
	// More procedures than a figure colours apart: the least frequent
	// are drawn as "other" (the colour order is by frequency).
	shares := make([]float64, len(ordered))
	for _, x := range t.Procedure {
		if x != kaleido.None {
			shares[c.rank[x]]++
		}
	}
	keep := map[string]bool{}
	for name := range override {
		keep[name] = true
	}
	g := GroupSmallest(ordered, shares, c.colors, keep)
	if g.Other >= 0 {
		c.other = make([]bool, len(ordered))
		for r := range ordered {
			if g.Of[r] == g.Other {
				c.colors[r], c.other[r] = OtherColor, true
			}
		}
	}
	return c, nil
}

// KaleidoscopeLegend returns the categories of a PE or procedure view in
// colour order (PEs in the tree's order, procedures by decreasing number
// of nodes in the whole tree, ties by name) with their colours as the
// figure paints them: the override by name, then the trace's, then the
// palette's. Interactive views use it to agree with the figure.
func KaleidoscopeLegend(t *kaleido.Tree, view string, override map[string]string) (names []string, colors []color.RGBA, err error) {
	c, err := kaleidoCategories(t, view, override)
	if err != nil {
		return nil, nil, err
	}
	names = make([]string, len(c.names))
	for x, r := range c.rank {
		names[r] = c.names[x]
	}
	return names, c.colors, nil
}

// Spectrum maps f in [0, 1] onto the colour spectrum of Tick and Park 1991's time
// view: blue, cyan, green, yellow, red, magenta (hues 240 down to -60).
func Spectrum(f float64) color.RGBA {
	f = math.Max(0, math.Min(1, f))
	return hsv(math.Mod(240-300*f+360, 360), 0.9, 0.95)
}

// rankByCount numbers categories by decreasing number of nodes (ties by
// name), so the most frequent get the most distinct colours.
func rankByCount(of []int32, n int, labels []string) []int {
	count := make([]int, n)
	for _, x := range of {
		if x != kaleido.None {
			count[x]++
		}
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(count[b], count[a]), strings.Compare(labels[a], labels[b]))
	})
	rank := make([]int, n)
	for r, x := range order {
		rank[x] = r
	}
	return rank
}

// legend draws the key of the colours below top-left corner at.
func (k *kaleidoPaint) legend(c draw.Canvas, at vg.Point) {
	sty := draw.TextStyle{Color: color.Black, Font: kalFont, Handler: plot.DefaultTextHandler, YAlign: draw.YCenter}
	row := kalFont.Size * 1.6
	box := kalFont.Size
	y := at.Y - row/2
	head := map[string]string{KaleidoscopeByPE: "PE", KaleidoscopeByProcedure: "procedure"}[k.view]
	if k.view == KaleidoscopeByTime {
		head, _ = colourBarTicks(k.l.Tree.Origin, k.t0, k.t1)
	}
	c.FillText(sty, vg.Point{X: at.X, Y: y}, head)
	y -= row
	if k.view == KaleidoscopeByTime {
		k.colourBar(c, vg.Point{X: at.X, Y: y}, box, c.Min.Y+row)
		return
	}
	// Categories present in the view, in colour order.
	l := k.l
	present := map[int32]int{}
	none := false
	of := l.Tree.PE
	if k.view == KaleidoscopeByProcedure {
		of = l.Tree.Procedure
	}
	for i, ok := range l.Drawn {
		if !ok {
			continue
		}
		if x := of[l.Root+int32(i)]; x != kaleido.None {
			present[x]++
		} else {
			none = true
		}
	}
	cats := make([]int32, 0, len(present))
	other := false
	for x := range present {
		if k.other != nil && k.other[k.index[x]] {
			other = true // one entry for them all, last
			continue
		}
		cats = append(cats, x)
	}
	slices.SortFunc(cats, func(a, b int32) int { return cmp.Compare(k.index[a], k.index[b]) })
	labels := make([]string, 0, len(cats)+1)
	colors := make([]color.RGBA, 0, len(cats)+1)
	for _, x := range cats {
		labels, colors = append(labels, KaleidoscopeLabel(k.labels[x])), append(colors, k.colors.Of(k.index[x]))
	}
	if other {
		labels, colors = append(labels, OtherName), append(colors, OtherColor)
	}
	room := int((y - c.Min.Y) / row)
	for j, label := range labels {
		if j == room-1 && len(labels) > room {
			c.FillText(sty, vg.Point{X: at.X, Y: y}, fmt.Sprintf("+%d more", len(labels)-j))
			return
		}
		c.SetColor(colors[j])
		c.Fill(vg.Rectangle{Min: vg.Point{X: at.X, Y: y - box/2}, Max: vg.Point{X: at.X + box, Y: y + box/2}}.Path())
		c.FillText(sty, vg.Point{X: at.X + box + 4, Y: y}, label)
		y -= row
	}
	if none && y-row > c.Min.Y {
		c.SetColor(KaleidoNone)
		c.Fill(vg.Rectangle{Min: vg.Point{X: at.X, Y: y - box/2}, Max: vg.Point{X: at.X + box, Y: y + box/2}}.Path())
		c.FillText(sty, vg.Point{X: at.X + box + 4, Y: y}, "(none)")
	}
}

// colourBar draws the time spectrum from the view's first start (top) to
// its last (bottom), with five labels.
func (k *kaleidoPaint) colourBar(c draw.Canvas, top vg.Point, width, bottom vg.Length) {
	height := top.Y - bottom
	if height <= 0 {
		return
	}
	const steps = 200
	for s := range steps {
		y0 := top.Y - height*vg.Length(s)/steps
		y1 := top.Y - height*vg.Length(s+1)/steps
		c.SetColor(Spectrum((float64(s) + 0.5) / steps))
		c.Fill(vg.Rectangle{Min: vg.Point{X: top.X, Y: max(y1-1, bottom)}, Max: vg.Point{X: top.X + 2*width, Y: y0}}.Path())
	}
	sty := draw.TextStyle{Color: color.Black, Font: kalFont, Handler: plot.DefaultTextHandler, YAlign: draw.YCenter}
	_, ticks := colourBarTicks(k.l.Tree.Origin, k.t0, k.t1)
	for _, t := range ticks {
		y := top.Y - height*vg.Length(t.Value)
		c.StrokeLine2(draw.LineStyle{Color: color.Black, Width: 0.5}, top.X+2*width, y, top.X+2*width+2, y)
		c.FillText(sty, vg.Point{X: top.X + 2*width + 4, Y: y}, t.Label)
	}
}

// colourBarTicks returns the heading of the time view's colour bar and
// its labelled ticks (Value: the fraction of the bar from its top, the
// first start t0 to the last t1, in seconds on the trace's clock): round
// values in the unit TimeAxis reads the span in, counted from origin, the
// trace's first instant, so that the bar reads "0, 200, 400 µs" rather
// than "7.7696e-05, 0.00025392".
func colourBarTicks(origin trace.Time, t0, t1 float64) (string, []plot.Tick) {
	start, end := trace.Time(math.Round(t0*1e9)), trace.Time(math.Round(t1*1e9))
	unit, label := TimeAxis(origin, start, end)
	head := "start " + label
	lo, hi := (start-origin).Seconds()/unit, (end-origin).Seconds()/unit
	if !(hi > lo) {
		return head, []plot.Tick{{Value: 0, Label: strconv.FormatFloat(lo, 'g', 6, 64)}}
	}
	var out []plot.Tick
	for _, t := range (zeroTicks{}).Ticks(lo, hi) {
		if t.Label != "" && t.Value >= lo && t.Value <= hi {
			out = append(out, plot.Tick{Value: (t.Value - lo) / (hi - lo), Label: t.Label})
		}
	}
	return head, out
}

// KaleidoscopeLabelRunes is the longest name the kaleidoscope's legend
// shows whole.
const KaleidoscopeLabelRunes = 34

// KaleidoscopeLabel is a PE's or procedure's name as the kaleidoscope
// writes it (legend, explorer): whole up to KaleidoscopeLabelRunes runes,
// else its start and end around "...", which keep the parts that tell
// similar names apart (a namespace, a template argument's last word).
func KaleidoscopeLabel(name string) string { return shorten(name, KaleidoscopeLabelRunes) }

func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n/2-1]) + "..." + string(r[len(r)-(n/2-2):])
}

// hsv converts a hue in degrees and saturation, value in [0,1] to RGBA.
func hsv(h, s, v float64) color.RGBA {
	h = math.Mod(h, 360)
	c := v * s
	hp := h / 60
	x := c * (1 - math.Abs(math.Mod(hp, 2)-1))
	var r, g, b float64
	switch int(hp) {
	case 0:
		r, g = c, x
	case 1:
		r, g = x, c
	case 2:
		g, b = c, x
	case 3:
		g, b = x, c
	case 4:
		r, b = x, c
	default:
		r, b = c, x
	}
	m := v - c
	return color.RGBA{uint8(255 * (r + m)), uint8(255 * (g + m)), uint8(255 * (b + m)), 255}
}
