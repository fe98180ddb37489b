package pybind

import (
	"gonum.org/v1/plot/vg"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
	"github.com/macroscope-hpc/macroscope/plots"
)

// ganttOptions mirror Trace.plot_gantt's keyword arguments.
type ganttOptions struct {
	plotOptions
	Start      *float64 `json:"start"`
	End        *float64 `json:"end"`
	Resources  []string `json:"resources"`
	StateTypes []string `json:"state_types"`
}

// StartPlotGantt starts drawing the Gantt view of the trace's states
// (plots.Gantt): a Work whose Image is the image file's bytes, so that
// Ctrl-C stops the drawing.
func (t *Trace) StartPlotGantt(options string) (w *Work, err error) {
	defer guard(&err)
	o := ganttOptions{plotOptions: plotOptions{Format: "png"}}
	f, err := decodePlotOptions(options, &o, &o.Format)
	if err != nil {
		return nil, err
	}
	start, err := seconds("start", o.Start)
	if err != nil {
		return nil, err
	}
	end, err := seconds("end", o.End)
	if err != nil {
		return nil, err
	}
	if start, end, err = window(start, end, t.t); err != nil {
		return nil, err
	}
	var img []byte
	w = startWork(func(ctl *aggregate.Control) error {
		drawn, err := plots.Gantt(t.t, plots.GanttOptions{
			Width: vg.Length(o.Width), Height: vg.Length(o.Height), Format: f, Title: o.Title,
			Start: start, End: end, Resources: o.Resources, StateTypes: o.StateTypes, Colors: o.Colors,
			Cancel: ctl.Cancel,
		})
		img = drawn
		return errs.NameFile(err, t.t.Files...)
	})
	w.result = func() any { return img }
	return w, nil
}

// window resolves a window given in seconds from the start of trace t
// (trace.Window) into instants of its clock; nil bounds stay nil (the
// trace's own).
func window(start, end *trace.Time, t *trace.Trace) (*trace.Time, *trace.Time, error) {
	if start == nil && end == nil {
		return nil, nil, nil
	}
	from, to, err := trace.Window(start, end, t.Start, t.End)
	if err != nil {
		return nil, nil, err
	}
	if start != nil {
		start = &from
	}
	if end != nil {
		end = &to
	}
	return start, end, nil
}
