package plots

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/moments"
)

// MomentRow is one row of a moment display: a resource, a group of
// resources or a state of a resource.
type MomentRow struct {
	Label   string
	Moments moments.Moments
	// Color fills the norm bar; the zero value means grey.
	Color color.RGBA
}

// RowGroup labels the consecutive rows [Start, End), such as the
// resources of one machine; groups are separated by a line.
type RowGroup struct {
	Label      string
	Start, End int
}

// MomentsOptions lay out a moment display. Zero values choose defaults.
type MomentsOptions struct {
	// Width and Height of the figure in points (1/72 in; PNGs have 4/3
	// pixels per point). The default height gives each row 12 points
	// when there are few, and one pixel each when there are many, up to
	// 4,000 pixels; beyond that, neighbouring rows blend.
	Width, Height vg.Length
	Format        Format // PNG by default
	Title         string
	// TimeMin and TimeMax bound the time axis in seconds; when both are
	// zero it fits the drawn moments.
	TimeMin, TimeMax float64
	// TimeLabel names the time axis; "time (s)" by default. Set it when
	// the rows' means are measured from an origin (Sums.MomentsFrom).
	TimeLabel string
	Groups    []RowGroup
	// Legend names the colours of the norm bars (MomentRow.Color), in
	// lines under the key.
	Legend []LegendEntry
	// StateColors, if set, colour the states of displays by state (see
	// Recolor): the trace's colours and the user's overrides, by name.
	StateColors map[string]color.RGBA
	// Origin is the trace's first instant, from which ResultFigure and
	// AggregateFigure count time (moments.Result.Origin).
	Origin trace.Time
	// Lines, when set, draws row i on line Lines[i] (0 at the top), so
	// that rows over disjoint time ranges share a line, such as the
	// aggregates of one hierarchy node. Groups then count lines, and a
	// line is labelled by its first row.
	Lines []int
	// Cancel, once closed, stops the drawing (looked at before the
	// first row, then every trace.StopEvery rows), which returns
	// trace.ErrComputationCanceled and no figure. Nil: never.
	Cancel <-chan struct{}
}

// LegendEntry names a colour of a moment display.
type LegendEntry struct {
	Label string
	Color color.RGBA
}

// Colours of the moment display (after Godin, Quinn and Pancake, Fig. 3):
// a grey norm bar, black deviation bars and mean tick, a thin skew line
// coloured so that it stays visible over the black bars when rows are a
// pixel high.
var (
	normGrey  = color.RGBA{160, 160, 160, 255}
	skewColor = CategoryColor(0)
	sepColor  = color.RGBA{90, 90, 90, 255}
)

// skewColorOn returns the colour of the skew line drawn over a bar of
// colour bar: skewColor, or white over a bar of about that colour (a state
// whose colour is the palette's first, as the model's figures give it),
// where it would vanish.
func skewColorOn(bar color.Color) color.RGBA {
	if nearAny(OKLab(color.RGBAModel.Convert(bar).(color.RGBA)), [][3]float64{OKLab(skewColor)}) {
		return color.RGBA{255, 255, 255, 255}
	}
	return skewColor
}

const (
	defaultWidth   = 720
	pointsPerPixel = vg.Length(72.0 / dpi)
	labelledRow    = 9  // points: rows at least this tall get a label
	keyHeight      = 16 // points: the strip holding the key above the plot
	legendLine     = 13 // points: a line of the legend
	legendSwatch   = 10 // points: width of a legend colour swatch
	maxPixelRows   = 4000
)

// MomentsFigure draws the moments of utilization of rows, top to bottom:
// per row a bar of length m0 centred at m1, black bars out to m1 ± m2, a
// tick at m1 and a thin line from m1 to m1 + m3 (rightwards for a positive
// skew). Rows without busy time stay blank.
func MomentsFigure(rows []MomentRow, opt MomentsOptions) ([]byte, error) {
	if err := trace.Stopped(opt.Cancel); err != nil {
		return nil, err
	}
	fig, err := newMomentsFigure(rows, opt)
	if err != nil {
		return nil, err
	}
	img, err := Render(fig.width, fig.height, fig.format, fig.draw)
	if fig.canceled || trace.Stopped(opt.Cancel) != nil {
		// The drawing stopped short (Render has no error to return), or
		// the image was encoded after the cancel.
		return nil, trace.ErrComputationCanceled
	}
	return img, err
}

// momentsFigure is a laid-out moment display.
type momentsFigure struct {
	plot          *plot.Plot
	rows          []MomentRow
	groups        []RowGroup
	width, height vg.Length
	keyHeight     vg.Length // strip above the plot for the key
	format        Format

	legend [][]LegendEntry // lines of the legend, under the key
	line   []int           // line of each row; nil: row i on line i
	lines  int             // number of lines

	// look counts the rows drawn, between looks at the options' Cancel;
	// canceled: the drawing stopped at it.
	look     trace.Looker
	canceled bool
}

// stop tells whether the drawing must stop before one more row.
func (f *momentsFigure) stop() bool {
	if f.look.Stopped(1) != nil {
		f.canceled = true
	}
	return f.canceled
}

// lineOf returns the line row i is drawn on.
func (f *momentsFigure) lineOf(i int) int {
	if f.line == nil {
		return i
	}
	return f.line[i]
}

func newMomentsFigure(rows []MomentRow, opt MomentsOptions) (*momentsFigure, error) {
	if err := CheckSize(opt.Width, opt.Height); err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, errs.Argument("rows", "no rows to draw")
	}
	for i, r := range rows {
		m := r.Moments
		if m.M0 < 0 || math.IsNaN(m.M0) || math.IsInf(m.M0, 0) {
			return nil, errs.Argument("rows", "row %d (%s): norm m0 = %v is not a busy time", i, r.Label, m.M0)
		}
		if m.M0 > 0 && !(finite(m.M1) && finite(m.M2) && finite(m.M3)) {
			return nil, errs.Argument("rows", "row %d (%s): moments %+v are not finite", i, r.Label, m)
		}
	}
	lines := len(rows)
	if opt.Lines != nil {
		if len(opt.Lines) != len(rows) {
			return nil, errs.Argument("lines", "%d lines for %d rows", len(opt.Lines), len(rows))
		}
		lines = 0
		for _, l := range opt.Lines {
			if l < 0 {
				return nil, errs.Argument("lines", "negative line %d", l)
			}
			lines = max(lines, l+1)
		}
	}
	for _, g := range opt.Groups {
		if g.Start < 0 || g.End > lines || g.Start >= g.End {
			return nil, errs.Argument("groups", "group %q covers rows [%d, %d), outside the %d rows", g.Label, g.Start, g.End, lines)
		}
	}
	if opt.Width < 0 || opt.Height < 0 {
		return nil, errs.Argument("size", "width and height must not be negative, got %v x %v", opt.Width, opt.Height)
	}
	if !finite(opt.TimeMin) || !finite(opt.TimeMax) || (opt.TimeMin != 0 || opt.TimeMax != 0) && opt.TimeMax <= opt.TimeMin {
		return nil, errs.Argument("time_range", "empty time range [%v, %v]", opt.TimeMin, opt.TimeMax)
	}
	f := &momentsFigure{rows: rows, groups: opt.Groups, format: opt.Format, width: snapUp(opt.Width), keyHeight: keyHeight,
		line: opt.Lines, lines: lines, look: trace.Looker{Cancel: opt.Cancel}}
	if f.format == "" {
		f.format = PNG
	}
	if f.width == 0 {
		f.width = defaultWidth
	}
	p := plot.New()
	p.Title.Text = opt.Title
	p.X.Label.Text = opt.TimeLabel
	if p.X.Label.Text == "" {
		p.X.Label.Text = "time (s)"
	}
	// Keep the axis lines off the outermost rows.
	p.X.Padding, p.Y.Padding = 2*pointsPerPixel, 2*pointsPerPixel
	p.X.Min, p.X.Max = opt.TimeMin, opt.TimeMax
	p.X.Tick.Marker = zeroTicks{}
	if opt.TimeMin == 0 && opt.TimeMax == 0 {
		p.X.Min, p.X.Max = timeRange(rows)
	}
	n := float64(lines)
	p.Y.Min, p.Y.Max = 0, n
	p.Add(momentBars{f})
	f.plot = p
	f.legend = f.legendLines(opt.Legend)
	f.keyHeight += legendLine * vg.Length(len(f.legend))

	// Row height: 12 points for a few rows, one pixel each for many.
	rowPt := vg.Length(12)
	if lines > 50 {
		rowPt = max(pointsPerPixel, min(12, 600/vg.Length(lines)))
	}
	dataHeight := rowPt * vg.Length(lines)
	if dataHeight > maxPixelRows*pointsPerPixel {
		dataHeight = maxPixelRows * pointsPerPixel
	}
	f.yTicks(dataHeight / vg.Length(lines))
	f.height = snapUp(opt.Height)
	if f.height == 0 {
		// The axes take the same room whatever the height: measure it
		// once and give the data area exactly the height wanted. The
		// key strip takes what rounding to whole pixels adds.
		const trial = 1000
		used := trial - f.dataCanvas(trial).Rectangle.Size().Y
		f.height = snapUp(dataHeight + used)
		f.keyHeight += f.height - (dataHeight + used)
	}
	if f.dataCanvas(f.height).Rectangle.Size().Y <= 0 {
		return nil, errs.Argument("size", "a height of %v points leaves no room for the rows", f.height)
	}
	if opt.Height != 0 {
		// Label the rows by the height they got, not the default one.
		f.yTicks(f.dataCanvas(f.height).Rectangle.Size().Y / vg.Length(lines))
	}
	return f, nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func snapUp(l vg.Length) vg.Length {
	return vg.Length(math.Ceil(float64(l/pointsPerPixel))) * pointsPerPixel
}

// timeRange fits the drawn extent of every row, with a 2% margin.
func timeRange(rows []MomentRow) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, r := range rows {
		m := r.Moments
		if m.M0 == 0 {
			continue
		}
		reach := max(m.M2, m.M0/2)
		lo = min(lo, m.M1-reach, m.M1+m.M3)
		hi = max(hi, m.M1+reach, m.M1+m.M3)
	}
	switch {
	case lo > hi: // nothing busy
		return 0, 1
	case lo == hi:
		return lo - 0.5, hi + 0.5
	}
	pad := (hi - lo) * 0.02
	return lo - pad, hi + pad
}

// yTicks labels the rows when they are tall enough, else the groups.
func (f *momentsFigure) yTicks(rowHeight vg.Length) {
	n := float64(f.lines)
	var ticks plot.ConstantTicks
	if rowHeight >= labelledRow {
		labelled := make([]bool, f.lines)
		for i, r := range f.rows {
			if l := f.lineOf(i); !labelled[l] {
				labelled[l] = true
				ticks = append(ticks, plot.Tick{Value: n - float64(l) - 0.5, Label: r.Label})
			}
		}
	} else {
		for _, g := range f.groups {
			if vg.Length(g.End-g.Start)*rowHeight >= labelledRow {
				ticks = append(ticks, plot.Tick{Value: n - float64(g.Start+g.End)/2, Label: g.Label})
			}
		}
	}
	f.plot.Y.Tick.Marker = ticks
	f.plot.Y.Label.Text = ""
	if len(ticks) == 0 {
		f.plot.Y.Label.Text = "resources"
	}
}

// figureCanvas is the part of the figure the plot draws in: all but the
// key strip at the top.
func (f *momentsFigure) figureCanvas(c draw.Canvas) draw.Canvas {
	return draw.Crop(c, 0, 0, 0, -f.keyHeight)
}

// dataCanvas returns the data area of the figure for a given height.
func (f *momentsFigure) dataCanvas(height vg.Length) draw.Canvas {
	c := draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: f.width, Y: height}}}
	return f.plot.DataCanvas(f.figureCanvas(c))
}

func (f *momentsFigure) draw(c draw.Canvas) {
	f.plot.Draw(f.figureCanvas(c))
	f.drawKey(c)
}

// drawKey explains the marks in the strip above the plot.
func (f *momentsFigure) drawKey(c draw.Canvas) {
	sty := f.plot.X.Tick.Label
	x := c.Min.X + 6
	legend := legendLine * vg.Length(len(f.legend))
	y := c.Max.Y - (f.keyHeight-legend)/2
	defer f.drawLegend(c, y-keyHeight/2)
	const sw = 14 // swatch width
	item := func(label string, swatch func(x vg.Length)) {
		swatch(x)
		x += sw + 3
		sty.XAlign, sty.YAlign = draw.XLeft, draw.YCenter
		c.FillText(sty, vg.Point{X: x, Y: y}, label)
		x += sty.Width(label) + 12
	}
	rect := func(clr color.Color, x0, x1, half vg.Length) {
		fillRect(&c, clr, x0, y-half, x1, y+half)
	}
	item("m0 busy time, centred at the mean m1", func(x vg.Length) {
		rect(normGrey, x, x+sw, 4)
		rect(color.Black, x+sw/2-0.5, x+sw/2+0.5, 4)
	})
	item("m1 ± m2 deviation", func(x vg.Length) {
		rect(color.Black, x, x+3, 2)
		rect(normGrey, x+3, x+sw-3, 4)
		rect(color.Black, x+sw-3, x+sw, 2)
	})
	item("m3 skew from m1", func(x vg.Length) { rect(skewColor, x, x+sw, 0.75) })
}

func fillRect(c *draw.Canvas, clr color.Color, x0, y0, x1, y1 vg.Length) {
	if x1 <= x0 || y1 <= y0 {
		return
	}
	var p vg.Path
	p.Move(vg.Point{X: x0, Y: y0})
	p.Line(vg.Point{X: x1, Y: y0})
	p.Line(vg.Point{X: x1, Y: y1})
	p.Line(vg.Point{X: x0, Y: y1})
	p.Close()
	c.SetColor(clr)
	c.Fill(p)
}

// momentBars draws every row straight on the data canvas.
type momentBars struct{ f *momentsFigure }

// snapY rounds to the pixel grid when rows are at least a pixel high, so
// that dense displays stay crisp; thinner rows blend.
func snapY(y vg.Length, snap bool) vg.Length {
	if !snap {
		return y
	}
	return vg.Length(math.Round(float64(y/pointsPerPixel))) * pointsPerPixel
}

func (b momentBars) Plot(c draw.Canvas, p *plot.Plot) {
	rows := b.f.rows
	n := float64(b.f.lines)
	trX, trY := p.Transforms(&c)
	rowHeight := (trY(n) - trY(0)) / vg.Length(n)
	snap := rowHeight >= pointsPerPixel*0.999
	dense := rowHeight < 3*pointsPerPixel
	// x maps seconds to the canvas, clamped just outside the data area so
	// that bars crossing its edges are cut there.
	x := func(t float64) vg.Length {
		v := trX(t)
		return min(max(v, c.Min.X-1), c.Max.X+1)
	}
	b.separators(c, trY, snap)
	// geometry returns the vertical extent of row i's marks.
	geometry := func(i int) (y0, y1, mid, thin, devHalf vg.Length) {
		l := float64(b.f.lineOf(i))
		y0 = snapY(trY(n-l-1), snap)
		y1 = snapY(trY(n-l), snap)
		if !dense { // leave a gap between rows
			gap := (y1 - y0) * 0.1
			y0, y1 = y0+gap, y1-gap
		}
		mid, half := (y0+y1)/2, (y1-y0)/2
		thin, devHalf = half, half
		if !dense {
			thin = max(half/5, pointsPerPixel/2)
			devHalf = half * 0.6
		}
		return
	}
	// Deviation bars first, under every norm bar, which covers their
	// middle (and, on a shared line, a neighbour's deviation).
	for i, r := range rows {
		if b.f.stop() {
			return
		}
		if m := r.Moments; m.M0 > 0 {
			_, _, mid, _, devHalf := geometry(i)
			fillRect(&c, color.Black, x(m.M1-m.M2), mid-devHalf, x(m.M1+m.M2), mid+devHalf)
		}
	}
	for i, r := range rows {
		if b.f.stop() {
			return
		}
		m := r.Moments
		if m.M0 == 0 {
			continue
		}
		y0, y1, mid, thin, _ := geometry(i)
		clr := color.Color(normGrey)
		if r.Color.A != 0 {
			clr = r.Color
		}
		fillRect(&c, clr, x(m.M1-m.M0/2), y0, x(m.M1+m.M0/2), y1)
		// The mean tick, one pixel wide.
		xm := x(m.M1)
		fillRect(&c, color.Black, xm-pointsPerPixel/2, y0, xm+pointsPerPixel/2, y1)
		// The skew line, drawn last to stay visible.
		xs := x(m.M1 + m.M3)
		fillRect(&c, skewColorOn(clr), min(xm, xs), mid-thin, max(xm, xs), mid+thin)
	}
}

// separators draws a pixel-high line across the data area at the top of
// each group but the first, under the rows so that it never hides them:
// it shows through the blank parts.
func (b momentBars) separators(c draw.Canvas, trY func(float64) vg.Length, snap bool) {
	n := float64(b.f.lines)
	for _, g := range b.f.groups {
		if g.Start == 0 {
			continue
		}
		y := snapY(trY(n-float64(g.Start)), snap)
		fillRect(&c, sepColor, c.Min.X, y-pointsPerPixel, c.Max.X, y)
	}
}

// HierarchyRows returns one row per resource of r in hierarchy order,
// labelled by name, and one group per run of resources sharing a parent,
// labelled by the parent's path. Each row has the moments of the
// resource's own busy function.
func HierarchyRows(r *moments.Result) ([]MomentRow, []RowGroup) {
	rows := make([]MomentRow, 0, len(r.Resources))
	var groups []RowGroup
	for i, id := range r.Resources {
		c := r.Containers[id]
		rows = append(rows, MomentRow{Label: c.Name, Moments: r.Busy[id].Moments()})
		if i > 0 && r.Containers[r.Resources[i-1]].Parent == c.Parent {
			groups[len(groups)-1].End = i + 1
			continue
		}
		label := r.Path(c.Parent, "/")
		if label == "" {
			label = r.Containers[0].Name
		}
		groups = append(groups, RowGroup{Label: label, Start: i, End: i + 1})
	}
	return rows, groups
}

// legendLines lays the legend entries out in lines that fit the width.
func (f *momentsFigure) legendLines(entries []LegendEntry) [][]LegendEntry {
	sty := f.plot.X.Tick.Label
	var lines [][]LegendEntry
	x := vg.Length(0)
	for i, e := range entries {
		w := legendSwatch + 3 + sty.Width(e.Label) + 12
		if i == 0 || x+w > f.width-12 {
			lines = append(lines, nil)
			x = 0
		}
		lines[len(lines)-1] = append(lines[len(lines)-1], e)
		x += w
	}
	return lines
}

// drawLegend draws the legend lines from top downwards.
func (f *momentsFigure) drawLegend(c draw.Canvas, top vg.Length) {
	sty := f.plot.X.Tick.Label
	sty.XAlign, sty.YAlign = draw.XLeft, draw.YCenter
	for i, line := range f.legend {
		y := top - legendLine*(vg.Length(i)+0.5)
		x := c.Min.X + 6
		for _, e := range line {
			fillRect(&c, e.Color, x, y-4, x+legendSwatch, y+4)
			x += legendSwatch + 3
			c.FillText(sty, vg.Point{X: x, Y: y}, e.Label)
			x += sty.Width(e.Label) + 12
		}
	}
}
