package plots

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
	"github.com/macroscope-hpc/macroscope/core/views/compare"
)

// CompareOptions set the size and look of the comparison figure.
type CompareOptions struct {
	Width, Height vg.Length // points; 0 for defaults (10 in wide, 2.6 in per run)
	Format        Format
	Title         string
	Colors        ColorMap // the states' colours; nil for the set's own
	// Runs lists the runs drawn, top down; nil means every run up to
	// MaxComparePanels (beyond: the reference and the runs of the largest
	// scores).
	Runs []int
	// Cancel, once closed, stops CompareOverview, which returns
	// trace.ErrComputationCanceled and no figure: each run's overview
	// looks at it as the one-run overview does. Nil: never.
	Cancel <-chan struct{}
}

// MaxComparePanels is the most runs the comparison figure draws.
const MaxComparePanels = 8

// CompareOverview draws the runs' aligned overviews one above the other:
// the same rows (the union of their hierarchies), the same time axis, the
// same partition (rows: the table's footprints, drawn in every run in the
// mode of that run's cells) and the same colours. The rows marked (those
// reported, or the first of the table) are outlined in every panel in a
// colour of their divergence (bits, logarithmic scale, the colour bar at
// the bottom); a strip under the panels shows the divergence of the runs'
// cells slice by slice.
func CompareOverview(s *compare.Set, rows []compare.Row, marked []compare.Difference, opt CompareOptions) ([]byte, error) {
	runs := opt.Runs
	if runs == nil {
		runs = defaultPanels(s, marked)
	}
	for _, r := range runs {
		if r < 0 || r >= s.NumRuns() {
			return nil, fmt.Errorf("plots: run %d is not among the %d runs", r, s.NumRuns())
		}
	}
	if opt.Width == 0 {
		opt.Width = 10 * vg.Inch
	}
	if opt.Height == 0 {
		opt.Height = vg.Length(len(runs))*2.6*vg.Inch + vg.Inch
	}
	if opt.Format == "" {
		opt.Format = PNG
	}
	if opt.Colors == nil {
		opt.Colors, _ = ResolveColors(s.States, s.Colors, nil)
	}
	part := &aggregate.Partition{}
	for _, r := range rows {
		part.Parts = append(part.Parts, aggregate.Part{Node: r.Node, First: r.First, Last: r.Last})
	}
	if err := trace.Stopped(opt.Cancel); err != nil {
		return nil, err
	}
	canceled := false
	img, err := Render(opt.Width, opt.Height, opt.Format, compareDraw(s, runs, part, marked, opt, &canceled))
	if canceled || trace.Stopped(opt.Cancel) != nil {
		// The drawing stopped short, or the image was encoded after the
		// cancel.
		return nil, trace.ErrComputationCanceled
	}
	return img, err
}

// compareDraw returns the drawing of CompareOverview's figure; it sets
// *canceled when it stops short at opt.Cancel.
func compareDraw(s *compare.Set, runs []int, part *aggregate.Partition, marked []compare.Difference, opt CompareOptions, canceled *bool) func(draw.Canvas) {
	lo, hi := divergenceRange(marked)
	return func(c draw.Canvas) {
		const strip = 0.95 * vg.Inch
		top := c.Max.Y - 4
		if opt.Title != "" {
			sty := draw.TextStyle{Color: color.Black, Font: font.From(plot.DefaultFont, 12), Handler: plot.DefaultTextHandler, XAlign: draw.XCenter, YAlign: draw.YTop}
			c.FillText(sty, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: top - 2}, opt.Title)
			top -= 18
		}
		panelH := (top - c.Min.Y - strip) / vg.Length(len(runs))
		var data vg.Rectangle
		for i, r := range runs {
			m := s.RunModel(r)
			if idle := s.IdleState(); idle >= 0 {
				// Drawn as the one-run overview draws a trace: time in no
				// state is the background, the mode taken among states.
				X := len(m.States)
				for i := idle; i < len(m.Values); i += X {
					m.Values[i] = 0
				}
			}
			ov := &overview{m: m, in: aggregate.Input{Tree: m.Tree, Slices: m.Slices, States: len(m.States), Values: m.Values}, p: part,
				opt: OverviewOptions{Colors: opt.Colors, PixelThreshold: 1, Title: panelTitle(s, r), Cancel: opt.Cancel}}
			panel := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{Min: vg.Point{X: c.Min.X, Y: top - vg.Length(i+1)*panelH}, Max: vg.Point{X: c.Max.X, Y: top - vg.Length(i)*panelH}}}
			ov.draw(panel)
			if *canceled = ov.canceled || trace.Stopped(opt.Cancel) != nil; *canceled {
				return
			}
			data = ov.data
			outlineMarked(panel, ov.data, s, marked, lo, hi)
		}
		drawDivergenceStrip(c, data, s, lo, hi, c.Min.Y, strip)
	}
}

// defaultPanels returns the runs drawn by default: all up to
// MaxComparePanels, else the reference and the runs most often the
// outlier of the marked rows, then the first others.
func defaultPanels(s *compare.Set, marked []compare.Difference) []int {
	R := s.NumRuns()
	if R <= MaxComparePanels {
		out := make([]int, R)
		for i := range out {
			out[i] = i
		}
		return out
	}
	out := []int{s.Reference}
	seen := map[int]bool{s.Reference: true}
	for _, d := range marked {
		if d.OutlierRun >= 0 && d.OutlierRun < R && !seen[d.OutlierRun] && len(out) < MaxComparePanels {
			seen[d.OutlierRun] = true
			out = append(out, d.OutlierRun)
		}
	}
	for r := 0; r < R && len(out) < MaxComparePanels; r++ {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}

func panelTitle(s *compare.Set, r int) string {
	run := s.Runs[r]
	t := fmt.Sprintf("%s: %.4g s", run.Name, run.Duration())
	if run.Label != run.Name {
		t += " [" + run.Label + "]"
	}
	if r == s.Reference {
		t += " (reference)"
	}
	return t
}

// divergenceRange returns the range of the marked rows' divergences for
// the colour scale (logarithmic; zeros left out).
func divergenceRange(marked []compare.Difference) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, d := range marked {
		if d.Divergence > 0 {
			lo, hi = math.Min(lo, d.Divergence), math.Max(hi, d.Divergence)
		}
	}
	if math.IsInf(lo, 1) {
		return 1e-3, 1
	}
	if hi <= lo*1.0001 {
		lo, hi = lo/10, hi*1.0001
	}
	return lo, hi
}

// divergenceColor maps a divergence onto a sequential scale from light
// orange to dark red (logarithmic between lo and hi).
func divergenceColor(d, lo, hi float64) color.RGBA {
	f := 0.0
	if d > 0 {
		f = (math.Log(d) - math.Log(lo)) / (math.Log(hi) - math.Log(lo))
	}
	f = math.Max(0, math.Min(1, f))
	a := [3]float64{253, 190, 60}
	b := [3]float64{120, 0, 40}
	mix := func(i int) uint8 { return uint8(a[i] + (b[i]-a[i])*f) }
	return color.RGBA{mix(0), mix(1), mix(2), 255}
}

// outlineMarked strokes the marked rows on a panel whose data area is data.
func outlineMarked(c draw.Canvas, data vg.Rectangle, s *compare.Set, marked []compare.Difference, lo, hi float64) {
	rows := float64(len(s.Resources.Leaves))
	w, h := data.Max.X-data.Min.X, data.Max.Y-data.Min.Y
	x := func(k int32) vg.Length { return data.Min.X + w*vg.Length(float64(k)/float64(s.Slices)) }
	y := func(leaf int32) vg.Length { return data.Max.Y - h*vg.Length(float64(leaf)/rows) }
	for i := len(marked) - 1; i >= 0; i-- { // the first rows drawn last, on top
		d := marked[i]
		r := vg.Rectangle{Min: vg.Point{X: x(d.First), Y: y(s.Resources.LeafHi[d.Node])}, Max: vg.Point{X: x(d.Last + 1), Y: y(s.Resources.LeafLo[d.Node])}}
		c.SetLineStyle(draw.LineStyle{Color: divergenceColor(d.Divergence, lo, hi), Width: 1.8})
		c.Stroke(r.Path())
	}
}

// drawDivergenceStrip draws, under the panels, the divergence of the
// runs' cells slice by slice aligned with the data area, and the colour
// bar of the outlines.
func drawDivergenceStrip(c draw.Canvas, data vg.Rectangle, s *compare.Set, lo, hi float64, bottom, height vg.Length) {
	sty := draw.TextStyle{Color: color.Black, Font: labelFont, Handler: plot.DefaultTextHandler, YAlign: draw.YCenter}
	div := s.SliceDivergence()
	most := 0.0
	for _, v := range div {
		most = math.Max(most, v)
	}
	stripTop := bottom + height - 8
	stripBottom := bottom + height/2
	w := data.Max.X - data.Min.X
	c.SetColor(color.RGBA{235, 235, 235, 255})
	c.Fill(vg.Rectangle{Min: vg.Point{X: data.Min.X, Y: stripBottom}, Max: vg.Point{X: data.Max.X, Y: stripTop}}.Path())
	for k, v := range div {
		if most <= 0 || v <= 0 {
			continue
		}
		x0 := data.Min.X + w*vg.Length(float64(k)/float64(len(div)))
		x1 := data.Min.X + w*vg.Length(float64(k+1)/float64(len(div)))
		top := stripBottom + (stripTop-stripBottom)*vg.Length(v/most)
		c.SetColor(color.RGBA{90, 90, 90, 255})
		c.Fill(vg.Rectangle{Min: vg.Point{X: x0, Y: stripBottom}, Max: vg.Point{X: x1, Y: top}}.Path())
	}
	label := draw.TextStyle{Color: color.Black, Font: labelFont, Handler: plot.DefaultTextHandler, XAlign: draw.XLeft, YAlign: draw.YBottom}
	c.FillText(label, vg.Point{X: data.Max.X + 6, Y: stripBottom + 20}, "divergence of the")
	c.FillText(label, vg.Point{X: data.Max.X + 6, Y: stripBottom + 10}, "cells by slice")
	c.FillText(label, vg.Point{X: data.Max.X + 6, Y: stripBottom}, fmt.Sprintf("max %.3g bit", most))
	// The colour bar of the outlines.
	barY := bottom + 6
	barW := w / 3
	for i := 0; i < 60; i++ {
		f := float64(i) / 59
		d := math.Exp(math.Log(lo) + f*(math.Log(hi)-math.Log(lo)))
		c.SetColor(divergenceColor(d, lo, hi))
		x0 := data.Min.X + barW*vg.Length(float64(i)/60)
		c.Fill(vg.Rectangle{Min: vg.Point{X: x0, Y: barY}, Max: vg.Point{X: x0 + barW/60 + 0.5, Y: barY + 8}}.Path())
	}
	c.FillText(sty, vg.Point{X: data.Min.X + barW + 6, Y: barY + 4}, fmt.Sprintf("outlined rows: divergence %.3g to %.3g bit (log scale)", lo, hi))
}
