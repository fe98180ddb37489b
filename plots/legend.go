package plots

import (
	"fmt"
	"image/color"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// drawStateLegend lists, from top down to bottom at x, the states a
// figure shows (shown: the area drawn in each state's colour), the most
// visible first, each with its colour swatch; those that do not fit are
// counted on a last "+N more" line. Names longer than width are cut so that
// names differing past their start stay apart (fitDistinct).
func drawStateLegend(c draw.Canvas, x, top, bottom, width vg.Length, shown map[int]float64, names []string, colors ColorMap) {
	sty := draw.TextStyle{Color: color.Black, Font: labelFont, Handler: plot.DefaultTextHandler, YAlign: draw.YCenter}
	box := labelFont.Size
	y := top - box
	states := make([]int, 0, len(shown))
	for i := range shown {
		states = append(states, i)
	}
	sort.Slice(states, func(a, b int) bool {
		sa, sb := shown[states[a]], shown[states[b]]
		return sa > sb || (sa == sb && states[a] < states[b])
	})
	fit := int((top-bottom)/(box*1.5)) + 1
	if len(states) > fit {
		fit-- // room for the "+N more" line
	}
	listed := states[:min(fit, len(states))]
	texts := make([]string, len(listed))
	for k, i := range listed {
		texts[k] = names[i]
	}
	texts = fitDistinct(sty, texts, width-box-3)
	for k, i := range states {
		if k == fit {
			c.FillText(sty, vg.Point{X: x, Y: y}, fmt.Sprintf("+%d more", len(states)-fit))
			break
		}
		c.SetColor(colors.Of(i))
		c.Fill(vg.Rectangle{Min: vg.Point{X: x, Y: y - box/2}, Max: vg.Point{X: x + box, Y: y + box/2}}.Path())
		c.FillText(sty, vg.Point{X: x + box + 3, Y: y}, texts[k])
		y -= box * 1.5
	}
}

// TimeAxis chooses a figure's time axis for the window [start, end] of a
// trace whose first instant is origin: times count from the origin (one
// clock in every figure and view: seconds from the trace's start), in the
// unit (seconds, ms, µs or ns) that reads the window's length between 1
// and 10000 units, so a 40 ms GPU trace does not read 0.000 to 0.040; the
// label names the unit and, once, the origin when it is not the clock's
// zero.
func TimeAxis(origin, start, end trace.Time) (unit float64, label string) {
	w := (end - start).Seconds()
	name := "s"
	unit = 1
	for _, u := range []struct {
		name string
		unit float64
	}{{"ms", 1e-3}, {"µs", 1e-6}, {"ns", 1e-9}} {
		if w >= 10*unit || math.Abs(float64(end-origin))*1e-9 >= 1e4*u.unit {
			break
		}
		name, unit = u.name, u.unit
	}
	return unit, TimeLabel(origin, name)
}

// TimeLabel is the label of a time axis in unit counting from origin, the
// trace's first instant: "time (ms)", and "since the trace's start at
// 1695835542.481129 s" when the origin is not the clock's zero.
func TimeLabel(origin trace.Time, unit string) string {
	if origin == 0 {
		return fmt.Sprintf("time (%s)", unit)
	}
	return fmt.Sprintf("time (%s) since the trace's start at %s s", unit, trace.FormatSeconds(origin))
}

// trimZeros drops the zeros gonum's default ticker pads its labels with
// when the step is not a power of ten ("250.00", "4425.00"): the labels
// of one axis then share the precision their values need.
func trimZeros(label string) string {
	if !strings.Contains(label, ".") || strings.ContainsAny(label, "eE") {
		return label
	}
	return strings.TrimSuffix(strings.TrimRight(label, "0"), ".")
}

// zeroTicks are gonum's default ticks with the origin always labelled
// when the axis holds it: a relative time axis must say where 0 is, and
// the default ticker may leave the axis' ends unlabelled.
type zeroTicks struct{}

func (zeroTicks) Ticks(min, max float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(min, max)
	for i := range ticks {
		ticks[i].Label = trimZeros(ticks[i].Label)
	}
	if min > 0 || max < 0 {
		return ticks
	}
	for i, t := range ticks {
		if t.Value == 0 {
			if t.Label == "" {
				ticks[i].Label = "0"
			}
			return ticks
		}
	}
	return append(ticks, plot.Tick{Value: 0, Label: "0"})
}
