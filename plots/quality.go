package plots

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
)

// QualityOptions set the size and look of the quality curves.
type QualityOptions struct {
	Width, Height vg.Length // figure size in points; 0 for defaults
	Format        Format    // PNG (default) or SVG
	Title         string
	// Recommended marks a p with a dashed line; NaN or negative for none.
	Recommended float64
	// LogP draws p on a logarithmic axis, from the smallest breakpoint: on
	// large models with raw measures, the interesting levels crowd near 0.
	LogP bool
}

// Colours of Ocelotl's quality curves.
var (
	gainColor = color.RGBA{46, 139, 87, 255}
	lossColor = color.RGBA{200, 40, 40, 255}
	markColor = color.RGBA{90, 90, 90, 255}
)

// QualityCurves draws the quality of the optimal partitions against p, as
// Ocelotl does: on top, the gain (green) and the loss (red) of the optimal
// partition as a fraction of those of the coarsest partition (gain0,
// loss0: 1 and 1 when the measures are normalised); below, the number of
// aggregates. Both are step functions of p, constant over each level.
func QualityCurves(levels []aggregate.Level, gain0, loss0 float64, opt QualityOptions) ([]byte, error) {
	if err := CheckSize(opt.Width, opt.Height); err != nil {
		return nil, err
	}
	if len(levels) == 0 {
		return nil, errs.Argument("levels", "no level to draw")
	}
	if opt.Width == 0 {
		opt.Width = 8 * vg.Inch
	}
	if opt.Height == 0 {
		opt.Height = 6 * vg.Inch
	}
	if opt.Format == "" {
		opt.Format = PNG
	}
	if !(gain0 > 0) {
		gain0 = 1
	}
	if !(loss0 > 0) {
		loss0 = 1
	}
	xmin := 0.0
	if opt.LogP {
		xmin = math.Inf(1)
		for _, l := range levels {
			if l.PHigh > 0 && l.PHigh < xmin {
				xmin = l.PHigh
			}
		}
		if math.IsInf(xmin, 1) {
			opt.LogP = false
			xmin = 0
		} else {
			xmin /= 2
		}
	}
	step := func(value func(l aggregate.Level) float64) plotter.XYs {
		pts := make(plotter.XYs, 0, len(levels)+1)
		for _, l := range levels {
			pts = append(pts, plotter.XY{X: math.Max(l.PLow, xmin), Y: value(l)})
		}
		last := levels[len(levels)-1]
		return append(pts, plotter.XY{X: 1, Y: value(last)})
	}
	top := plot.New()
	top.Title.Text = opt.Title
	top.Y.Label.Text = "gain, loss / full aggregation's"
	top.Y.Min, top.Y.Max = 0, 1.02
	bottom := plot.New()
	bottom.X.Label.Text = "p (gain/loss trade-off)"
	bottom.Y.Label.Text = "aggregates"
	bottom.Y.Scale = plot.LogScale{}
	bottom.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	for _, plt := range []*plot.Plot{top, bottom} {
		plt.X.Min, plt.X.Max = xmin, 1
		if opt.LogP {
			plt.X.Scale = plot.LogScale{}
			plt.X.Tick.Marker = plot.LogTicks{Prec: -1}
		}
		plt.Add(plotter.NewGrid())
	}
	for _, c := range []struct {
		name  string
		col   color.RGBA
		value func(aggregate.Level) float64
	}{
		{"gain", gainColor, func(l aggregate.Level) float64 { return l.Partition.Gain / gain0 }},
		{"loss", lossColor, func(l aggregate.Level) float64 { return l.Partition.Loss / loss0 }},
	} {
		ln, err := plotter.NewLine(step(c.value))
		if err != nil {
			return nil, fmt.Errorf("quality curve: %w", err)
		}
		ln.StepStyle = plotter.PostStep
		ln.Color, ln.Width = c.col, vg.Points(1.5)
		top.Add(ln)
		top.Legend.Add(c.name, ln)
	}
	// Both curves end at 1 on the right: the bottom right corner is free.
	top.Legend.Top, top.Legend.Left = false, false
	top.Legend.XOffs, top.Legend.YOffs = -vg.Points(8), vg.Points(8)
	parts, err := plotter.NewLine(step(func(l aggregate.Level) float64 { return float64(max(l.Partition.NumParts, len(l.Partition.Parts))) }))
	if err != nil {
		return nil, fmt.Errorf("quality curve: %w", err)
	}
	parts.StepStyle = plotter.PostStep
	parts.Color, parts.Width = markColor, vg.Points(1.2)
	bottom.Add(parts)
	if r := opt.Recommended; r >= 0 && r <= 1 && r > xmin {
		for _, plt := range []*plot.Plot{top, bottom} {
			y0, y1 := plt.Y.Min, plt.Y.Max
			if plt == bottom {
				y0, y1 = 0.8, 2*float64(max(levels[0].Partition.NumParts, len(levels[0].Partition.Parts)))
			}
			mark, err := plotter.NewLine(plotter.XYs{{X: r, Y: y0}, {X: r, Y: y1}})
			if err != nil {
				return nil, fmt.Errorf("quality curve: %w", err)
			}
			mark.Color, mark.Dashes = markColor, []vg.Length{vg.Points(4), vg.Points(3)}
			plt.Add(mark)
			if plt == top {
				plt.Legend.Add(fmt.Sprintf("recommended p = %.3g", r), mark)
			}
		}
	}
	return Render(opt.Width, opt.Height, opt.Format, func(c draw.Canvas) {
		// Align lines up the data areas, so that p reads the same in both.
		tiles := draw.Tiles{Rows: 2, Cols: 1, PadTop: vg.Points(4), PadBottom: vg.Points(4),
			PadLeft: vg.Points(4), PadRight: vg.Points(12), PadY: vg.Points(10)}
		cells := plot.Align([][]*plot.Plot{{top}, {bottom}}, tiles, c)
		top.Draw(cells[0][0])
		bottom.Draw(cells[1][0])
	})
}
