package plots

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// The figures of the performance analyses (flat profile, load imbalance,
// communication matrix, POP efficiencies, critical path, stragglers):
// plain charts a paper can print, drawn from the analyses' tables.

// FigureOptions set a figure's size, format and title.
type FigureOptions struct {
	Width, Height vg.Length // points; 0 for the figure's default
	Format        Format    // PNG by default
	Title         string
	// Cancel, once closed, stops the figures whose size follows the
	// analysis (the communication matrix's cells, the critical path's
	// segments): they return trace.ErrComputationCanceled and no image.
	// The others draw the top rows of a table, in milliseconds. Nil:
	// never.
	Cancel <-chan struct{}
}

func (o *FigureOptions) defaults(w, h vg.Length) {
	if o.Width == 0 {
		o.Width = w
	}
	if o.Height == 0 {
		o.Height = h
	}
	if o.Format == "" {
		o.Format = PNG
	}
}

// BarSeries is one series of a bar chart: a value per label.
type BarSeries struct {
	Name   string
	Values []float64
	Color  color.RGBA
}

// HorizontalBars draws one group of horizontal bars per label, the first
// label at the top, a bar per series in each group.
func HorizontalBars(labels []string, series []BarSeries, xLabel string, opt FigureOptions) ([]byte, error) {
	if len(labels) == 0 || len(series) == 0 {
		return nil, errs.Argument("rows", "nothing to draw")
	}
	opt.defaults(7*vg.Inch, vg.Length(max(2.5*72, 36+16*float64(len(labels))*(0.6+0.4*float64(len(series))))))
	p := plot.New()
	p.Title.Text = opt.Title
	p.X.Label.Text = xLabel
	p.X.Min = 0
	n := len(labels)
	// Reversed: NominalY puts the first name at the bottom.
	names := make([]string, n)
	for i, l := range labels {
		names[n-1-i] = shortenLeft(l, 48)
	}
	p.NominalY(names...)
	height := vg.Points(math.Min(14, 200/float64(n))) / vg.Length(len(series))
	height = max(height, vg.Points(2))
	for k, s := range series {
		vals := make(plotter.Values, n)
		for i, v := range s.Values {
			if math.IsNaN(v) {
				v = 0
			}
			vals[n-1-i] = v
		}
		b, err := plotter.NewBarChart(vals, height)
		if err != nil {
			return nil, fmt.Errorf("bars: %w", err)
		}
		b.Horizontal = true
		b.Color = s.Color
		b.LineStyle.Width = 0
		b.Offset = (vg.Length(len(series)-1)/2 - vg.Length(k)) * height
		p.Add(b)
		if s.Name != "" && len(series) > 1 {
			p.Legend.Add(s.Name, b)
		}
	}
	p.Legend.Top = false
	p.Add(plotter.NewGrid())
	return RenderPlot(p, opt.Width, opt.Height, opt.Format)
}

// Ranges draws, per label, a line from the smallest value to the largest
// with a dot at the mean, and the note at the right (load imbalance: the
// time of a state name in its processes).
func Ranges(labels []string, low, mean, high []float64, notes []string, xLabel string, opt FigureOptions) ([]byte, error) {
	n := len(labels)
	if n == 0 {
		return nil, errs.Argument("rows", "nothing to draw")
	}
	opt.defaults(7*vg.Inch, vg.Length(max(2.5*72, 40+16*float64(n))))
	p := plot.New()
	p.Title.Text = opt.Title
	p.X.Label.Text = xLabel
	names := make([]string, n)
	for i, l := range labels {
		names[n-1-i] = shortenLeft(l, 48)
	}
	p.NominalY(names...)
	xmax := 0.0
	for i := range labels {
		y := float64(n - 1 - i)
		ln, err := plotter.NewLine(plotter.XYs{{X: low[i], Y: y}, {X: high[i], Y: y}})
		if err != nil {
			return nil, err
		}
		ln.Color, ln.Width = color.RGBA{110, 110, 110, 255}, vg.Points(2)
		p.Add(ln)
		pts, err := plotter.NewScatter(plotter.XYs{{X: mean[i], Y: y}})
		if err != nil {
			return nil, err
		}
		pts.GlyphStyle.Shape, pts.GlyphStyle.Radius, pts.GlyphStyle.Color = draw.CircleGlyph{}, vg.Points(3.5), color.RGBA{31, 119, 180, 255}
		p.Add(pts)
		hi, err := plotter.NewScatter(plotter.XYs{{X: high[i], Y: y}})
		if err != nil {
			return nil, err
		}
		hi.GlyphStyle.Shape, hi.GlyphStyle.Radius, hi.GlyphStyle.Color = draw.BoxGlyph{}, vg.Points(3), color.RGBA{200, 40, 40, 255}
		p.Add(hi)
		xmax = math.Max(xmax, high[i])
	}
	if len(notes) == n {
		xy := make(plotter.XYs, n)
		text := make([]string, n)
		for i := range labels {
			xy[i] = plotter.XY{X: high[i], Y: float64(n - 1 - i)}
			text[i] = "  " + notes[i]
		}
		l, err := plotter.NewLabels(plotter.XYLabels{XYs: xy, Labels: text})
		if err != nil {
			return nil, err
		}
		for i := range l.TextStyle {
			l.TextStyle[i].YAlign = draw.YCenter
		}
		p.Add(l)
	}
	p.X.Min, p.X.Max = 0, xmax*1.2
	if xmax == 0 {
		p.X.Max = 1
	}
	p.Add(plotter.NewGrid())
	p.Legend.Add("mean", scatterThumb(draw.CircleGlyph{}, color.RGBA{31, 119, 180, 255}))
	p.Legend.Add("largest", scatterThumb(draw.BoxGlyph{}, color.RGBA{200, 40, 40, 255}))
	p.Legend.Top = false
	return RenderPlot(p, opt.Width, opt.Height, opt.Format)
}

func scatterThumb(shape draw.GlyphDrawer, c color.RGBA) plot.Thumbnailer {
	s, _ := plotter.NewScatter(plotter.XYs{{}})
	s.GlyphStyle.Shape, s.GlyphStyle.Radius, s.GlyphStyle.Color = shape, vg.Points(3), c
	return s
}

// Heatmap draws a matrix of values, rows from the top, each cell coloured
// from white (the smallest value above 0) to dark blue (the largest),
// linearly or on a log scale; NaN and 0 cells stay empty. Labels are drawn
// when there are at most 64 rows or columns.
func Heatmap(rows, cols []string, values [][]float64, logScale bool, valueLabel, xLabel, yLabel string, opt FigureOptions) ([]byte, error) {
	if len(rows) == 0 || len(cols) == 0 {
		return nil, errs.Argument("matrix", "nothing to draw")
	}
	opt.defaults(7*vg.Inch, 6*vg.Inch)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range values {
		for _, v := range r {
			if v > 0 {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	scale := func(v float64) float64 {
		if hi <= lo {
			return 1
		}
		if logScale {
			return (math.Log(v) - math.Log(lo)) / (math.Log(hi) - math.Log(lo))
		}
		return (v - lo) / (hi - lo)
	}
	labelled := func(n int) bool { return n <= 64 }
	// The cells, a row at a time, look at Cancel: a matrix of 10,000
	// ranks has 100 million.
	look := trace.Looker{Cancel: opt.Cancel}
	if err := look.Stopped(1); err != nil {
		return nil, err
	}
	img, err := Render(opt.Width, opt.Height, opt.Format, func(c draw.Canvas) {
		title := textStyle(11)
		small := textStyle(max(5, math.Min(9, 420/float64(max(len(rows), len(cols))))))
		axis := textStyle(9)
		top := c.Max.Y
		if opt.Title != "" {
			title.XAlign, title.YAlign = draw.XCenter, draw.YTop
			c.FillText(title, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: top - 4}, opt.Title)
			top -= title.Height(opt.Title) + 12
		}
		top -= 4
		left := c.Min.X + 12 + axis.Height("M")
		if labelled(len(rows)) {
			w := vg.Length(0)
			for _, r := range rows {
				w = max(w, small.Width(shortenLeft(r, 28)))
			}
			left += w + 4
		}
		bottom := c.Min.Y + 12 + axis.Height("M")
		if labelled(len(cols)) {
			h := vg.Length(0)
			for _, col := range cols {
				h = max(h, small.Width(shortenLeft(col, 28)))
			}
			bottom += h + 4
		}
		right := c.Max.X - 84
		cw := (right - left) / vg.Length(len(cols))
		ch := (top - bottom) / vg.Length(len(rows))
		for i, r := range values {
			if look.Stopped(len(r)) != nil {
				return // the drawing stops short, refused below
			}
			for j, v := range r {
				if !(v > 0) {
					continue
				}
				x0, y1 := left+vg.Length(j)*cw, top-vg.Length(i)*ch
				c.SetColor(ramp(scale(v)))
				c.Fill(rectPath(x0, y1-ch, x0+cw, y1))
			}
		}
		c.SetLineStyle(draw.LineStyle{Color: color.Gray{160}, Width: vg.Points(0.5)})
		c.Stroke(rectPath(left, bottom, right, top))
		if labelled(len(rows)) {
			st := small
			st.XAlign, st.YAlign = draw.XRight, draw.YCenter
			for i, r := range rows {
				c.FillText(st, vg.Point{X: left - 3, Y: top - (vg.Length(i)+0.5)*ch}, shortenLeft(r, 28))
			}
		}
		if labelled(len(cols)) {
			st := small
			st.Rotation, st.XAlign, st.YAlign = math.Pi/2, draw.XRight, draw.YCenter
			for j, col := range cols {
				c.FillText(st, vg.Point{X: left + (vg.Length(j)+0.5)*cw, Y: bottom - 3}, shortenLeft(col, 28))
			}
		}
		ax := axis
		ax.XAlign, ax.YAlign = draw.XCenter, draw.YBottom
		c.FillText(ax, vg.Point{X: (left + right) / 2, Y: c.Min.Y + 4}, xLabel)
		ax.Rotation = math.Pi / 2
		ax.YAlign = draw.YTop
		c.FillText(ax, vg.Point{X: c.Min.X + 4, Y: (bottom + top) / 2}, yLabel)
		// The colour bar, with the extreme values.
		bx := right + 14
		steps := 64
		for k := range steps {
			y0 := bottom + (top-bottom)*vg.Length(k)/vg.Length(steps)
			c.SetColor(ramp(float64(k) / float64(steps-1)))
			c.Fill(rectPath(bx, y0, bx+12, y0+(top-bottom)/vg.Length(steps)+0.5))
		}
		vs := textStyle(8)
		vs.XAlign, vs.YAlign = draw.XLeft, draw.YCenter
		if hi >= lo {
			c.FillText(vs, vg.Point{X: bx + 14, Y: top}, formatValue(hi))
			c.FillText(vs, vg.Point{X: bx + 14, Y: bottom}, formatValue(lo))
		}
		vs.Rotation, vs.XAlign, vs.YAlign = math.Pi/2, draw.XCenter, draw.YTop
		scaleName := valueLabel
		if logScale {
			scaleName += " (log scale)"
		}
		c.FillText(vs, vg.Point{X: bx + 44, Y: (bottom + top) / 2}, scaleName)
	})
	if err := look.Stopped(0); err != nil {
		return nil, err
	}
	return img, err
}

// ramp goes from a pale blue (0) to a dark blue (1).
func ramp(x float64) color.RGBA {
	x = math.Max(0, math.Min(1, x))
	a, b := [3]float64{222, 235, 247}, [3]float64{8, 48, 107}
	var out [3]uint8
	for i := range 3 {
		out[i] = uint8(math.Round(a[i] + (b[i]-a[i])*x))
	}
	return color.RGBA{out[0], out[1], out[2], 255}
}

// EfficiencyRow is a line of an efficiency table: a metric, its depth in
// the hierarchy of factors (0 the global one), and whether it is a
// fraction shown as a percentage (else a plain number: IPC, frequency,
// speed-up).
type EfficiencyRow struct {
	Label    string
	Depth    int
	Fraction bool
	Values   []float64 // one per column; NaN: not available
}

// EfficiencyTable draws POP's table of efficiencies: a row per metric,
// indented by depth, a column per run, the fractions as percentages in
// cells coloured from red (50 % and below) through yellow to green
// (100 %), the plain numbers in grey.
func EfficiencyTable(cols []string, rows []EfficiencyRow, opt FigureOptions) ([]byte, error) {
	if len(cols) == 0 || len(rows) == 0 {
		return nil, errs.Argument("table", "nothing to draw")
	}
	rowH := vg.Points(18)
	opt.defaults(vg.Length(260+70*float64(len(cols))), rowH*vg.Length(len(rows)+1)+vg.Points(44))
	return Render(opt.Width, opt.Height, opt.Format, func(c draw.Canvas) {
		text := textStyle(9)
		bold := textStyle(9)
		top := c.Max.Y - 6
		if opt.Title != "" {
			ts := textStyle(11)
			ts.XAlign, ts.YAlign = draw.XCenter, draw.YTop
			c.FillText(ts, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: top}, opt.Title)
			top -= ts.Height(opt.Title) + 8
		}
		labelW := vg.Length(0)
		for _, r := range rows {
			labelW = max(labelW, text.Width(r.Label)+vg.Points(12*float64(r.Depth)))
		}
		left := c.Min.X + 8 + labelW + 10
		cw := (c.Max.X - 8 - left) / vg.Length(len(cols))
		hs := bold
		hs.XAlign, hs.YAlign = draw.XCenter, draw.YCenter
		for j, col := range cols {
			c.FillText(hs, vg.Point{X: left + (vg.Length(j)+0.5)*cw, Y: top - rowH/2}, col)
		}
		top -= rowH
		for i, r := range rows {
			y1 := top - vg.Length(i)*rowH
			ls := text
			ls.XAlign, ls.YAlign = draw.XLeft, draw.YCenter
			c.FillText(ls, vg.Point{X: c.Min.X + 8 + vg.Points(12*float64(r.Depth)), Y: y1 - rowH/2}, r.Label)
			for j, v := range r.Values {
				x0 := left + vg.Length(j)*cw
				cell := rectPath(x0+1, y1-rowH+1, x0+cw-1, y1-1)
				label := "n/a"
				switch {
				case math.IsNaN(v):
					c.SetColor(color.Gray{235})
				case r.Fraction:
					c.SetColor(efficiencyColor(v))
					label = fmt.Sprintf("%.2f", 100*v)
				default:
					c.SetColor(color.Gray{225})
					label = fmt.Sprintf("%.3g", v)
				}
				c.Fill(cell)
				vs := text
				vs.XAlign, vs.YAlign = draw.XCenter, draw.YCenter
				c.FillText(vs, vg.Point{X: x0 + cw/2, Y: y1 - rowH/2}, label)
			}
		}
	})
}

// efficiencyColor maps an efficiency to POP's colours: red at 50 % and
// below, yellow at 75 %, green at 100 %.
func efficiencyColor(v float64) color.RGBA {
	red, yellow, green := [3]float64{230, 124, 115}, [3]float64{255, 214, 102}, [3]float64{87, 187, 138}
	x := math.Max(0, math.Min(1, (v-0.5)/0.5))
	a, b, t := red, yellow, x*2
	if x > 0.5 {
		a, b, t = yellow, green, (x-0.5)*2
	}
	var out [3]uint8
	for i := range 3 {
		out[i] = uint8(math.Round(a[i] + (b[i]-a[i])*t))
	}
	return color.RGBA{out[0], out[1], out[2], 255}
}

// PathSegment is a stretch of a path on one row: [Start, End] in seconds,
// in a state drawn in Color.
type PathSegment struct {
	Row        int
	Start, End float64
	Color      color.RGBA
}

// PathChart draws a critical path over the resources: a thin grey line
// per row (the resource's life), the path's segments as thick bars in
// their states' colours, and a vertical line where the path moves from
// one resource to another, over the time window [x0, x1]. Legend names
// the colours, above the rows.
func PathChart(rows []string, spans [][2]float64, segments []PathSegment, jumps [][3]float64, legend []LegendEntry, x0, x1 float64, xLabel string, opt FigureOptions) ([]byte, error) {
	n := len(rows)
	if n == 0 {
		return nil, errs.Argument("rows", "nothing to draw")
	}
	opt.defaults(8*vg.Inch, vg.Length(max(3*72, 80+14*float64(min(n, 64))+12*float64(len(legend)))))
	p := plot.New()
	p.Title.Text = opt.Title
	p.X.Label.Text = xLabel
	if n <= 64 {
		names := make([]string, n)
		for i, r := range rows {
			names[n-1-i] = shortenLeft(r, 32)
		}
		p.NominalY(names...)
	} else {
		p.Y.Label.Text = "resources"
		p.Y.Tick.Marker = plot.ConstantTicks(nil)
	}
	y := func(row int) float64 { return float64(n - 1 - row) }
	// A line a segment: a path of millions of segments takes seconds to
	// lay out and as long to draw, so both look at Cancel.
	look := trace.Looker{Cancel: opt.Cancel}
	for i, s := range spans {
		if err := look.Stopped(1); err != nil {
			return nil, err
		}
		s[0], s[1] = max(s[0], x0), min(s[1], x1)
		if s[1] < s[0] {
			continue
		}
		ln, err := plotter.NewLine(plotter.XYs{{X: s[0], Y: y(i)}, {X: s[1], Y: y(i)}})
		if err != nil {
			return nil, err
		}
		ln.Color, ln.Width = color.Gray{200}, vg.Points(1)
		p.Add(ln)
	}
	width := vg.Points(math.Max(2, math.Min(8, 300/float64(n))))
	for _, j := range jumps {
		ln, err := plotter.NewLine(plotter.XYs{{X: j[0], Y: y(int(j[1]))}, {X: j[0], Y: y(int(j[2]))}})
		if err != nil {
			return nil, err
		}
		ln.Color, ln.Width = color.RGBA{60, 60, 60, 255}, vg.Points(0.8)
		ln.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
		p.Add(ln)
	}
	for _, s := range segments {
		if err := look.Stopped(1); err != nil {
			return nil, err
		}
		ln, err := plotter.NewLine(plotter.XYs{{X: s.Start, Y: y(s.Row)}, {X: s.End, Y: y(s.Row)}})
		if err != nil {
			return nil, err
		}
		ln.Color, ln.Width = s.Color, width
		p.Add(ln)
	}
	for _, e := range legend {
		ln, _ := plotter.NewLine(plotter.XYs{{}, {X: 1}})
		ln.Color, ln.Width = e.Color, vg.Points(6)
		p.Legend.Add(e.Label, ln)
	}
	p.Legend.Top = true
	// Room above the rows for the legend: its lines, in rows.
	rowPts := math.Max(1, float64(opt.Height-vg.Points(70))/(float64(n)+0.5))
	extra := (float64(len(legend))*13 + 6) / rowPts
	rowPts = math.Max(1, float64(opt.Height-vg.Points(70))/(float64(n)+0.5+extra))
	extra = (float64(len(legend))*13 + 6) / rowPts
	p.Y.Min, p.Y.Max = -0.7, float64(n)-0.3+extra
	margin := (x1 - x0) * 0.01
	p.X.Min, p.X.Max = x0-margin, x1+margin
	img, err := RenderPlot(p, opt.Width, opt.Height, opt.Format)
	if err := trace.Stopped(opt.Cancel); err != nil {
		return nil, err // closed while the lines were drawn
	}
	return img, err
}

func textStyle(size float64) draw.TextStyle {
	return draw.TextStyle{Color: color.Black, Font: font.From(plot.DefaultFont, vg.Points(size)), Handler: plot.DefaultTextHandler}
}

func rectPath(x0, y0, x1, y1 vg.Length) vg.Path {
	var p vg.Path
	p.Move(vg.Point{X: x0, Y: y0})
	p.Line(vg.Point{X: x1, Y: y0})
	p.Line(vg.Point{X: x1, Y: y1})
	p.Line(vg.Point{X: x0, Y: y1})
	p.Close()
	return p
}

// shortenLeft cuts a label to n characters, keeping its end (paths end with
// the resource's own name).
func shortenLeft(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return "…" + strings.TrimSpace(string(r[len(r)-n+1:]))
}

// formatValue writes a value for a scale's ends.
func formatValue(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e9:
		return fmt.Sprintf("%.3gG", v/1e9)
	case a >= 1e6:
		return fmt.Sprintf("%.3gM", v/1e6)
	case a >= 1e3:
		return fmt.Sprintf("%.3gk", v/1e3)
	}
	return fmt.Sprintf("%.3g", v)
}
