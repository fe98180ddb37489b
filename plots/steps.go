package plots

import (
	"image/color"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// StepMark is where a figure marks a step of the program (micro.Step) on
// its time axis: a thin line at At, labelled Label when there is room.
type StepMark struct {
	At    trace.Time
	Label string
}

// StepMarks returns the marks of m's steps in its window: the start of
// each step, and the end of the last one (where the steps stop), in order
// of time. The explorer draws the same marks.
func StepMarks(m *micro.Model) []StepMark {
	var out []StepMark
	last := trace.Time(0)
	for i, s := range m.Steps {
		if s.Start >= m.Start && s.Start <= m.End {
			out = append(out, StepMark{At: s.Start, Label: s.Label()})
		}
		if i == 0 || s.End > last {
			last = s.End
		}
	}
	if len(m.Steps) > 0 && last >= m.Start && last <= m.End && (len(out) == 0 || last > out[len(out)-1].At) {
		out = append(out, StepMark{At: last})
	}
	return out
}

// stepLine and stepText are the look of the step marks: a dashed dark
// grey line, thin enough to leave the aggregates' colours readable.
var (
	stepLine = draw.LineStyle{Color: color.NRGBA{40, 40, 40, 200}, Width: vg.Length(0.6), Dashes: []vg.Length{vg.Length(3), vg.Length(2)}}
	stepGap  = vg.Length(3) // points between two lines drawn
)

// drawSteps marks m's steps over the data area: a line at each mark at
// least stepGap after the last line drawn (thousands of steps in a window
// do not paint it grey), and its label at the top when it does not run
// into the previous label.
func drawSteps(c draw.Canvas, data vg.Rectangle, m *micro.Model) {
	marks := StepMarks(m)
	if len(marks) == 0 || m.End <= m.Start {
		return
	}
	w := float64(m.End - m.Start)
	sty := textStyle(7)
	sty.Color = color.NRGBA{20, 20, 20, 255}
	sty.YAlign = draw.YTop
	box := color.NRGBA{255, 255, 255, 200}
	lastLine, labelEnd := vg.Length(-1e9), vg.Length(-1e9)
	for _, mk := range marks {
		x := data.Min.X + vg.Length(float64(mk.At-m.Start)/w)*(data.Max.X-data.Min.X)
		if x-lastLine < stepGap {
			continue
		}
		lastLine = x
		c.StrokeLine2(stepLine, x, data.Min.Y, x, data.Max.Y)
		if mk.Label == "" || x < labelEnd {
			continue
		}
		tw, th := sty.Width(mk.Label), sty.Height(mk.Label)
		if x+2+tw > data.Max.X {
			continue // cut by the edge
		}
		at := vg.Point{X: x + 2, Y: data.Max.Y - 1}
		c.SetColor(box)
		c.Fill(vg.Rectangle{Min: vg.Point{X: at.X - 1, Y: at.Y - th}, Max: vg.Point{X: at.X + tw + 1, Y: at.Y}}.Path())
		c.FillText(sty, at, mk.Label)
		labelEnd = at.X + tw + 4
	}
}
