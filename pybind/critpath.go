package pybind

import (
	"image/color"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/arrowio"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/critpath"
	"github.com/macroscope-hpc/macroscope/plots"
)

func init() {
	analysisKinds["critical_path"] = newCritPathAnalyzer
}

func newCritPathAnalyzer(options string) (*analyzer, error) {
	var o struct {
		WholeRun bool `json:"whole_run"`
	}
	if err := decodeOptions(options, &o); err != nil {
		return nil, err
	}
	// The path's attribution needs every state of the resources on it:
	// the trace is held.
	return &analyzer{finish: func(held *trace.Trace, _ string) (*Analysis, error) {
		r, err := critpath.Compute(held, critpath.Options{WholeRun: o.WholeRun})
		if err != nil {
			return nil, err
		}
		return critPathAnalysis(r, r.Attribute(held)), nil
	}}, nil
}

func critPathAnalysis(r *critpath.Result, at *critpath.Attribution) *Analysis {
	var waited trace.Time
	for _, w := range r.Waits {
		waited += w.Wait
	}
	a := &Analysis{kind: "critical path", info: map[string]any{
		"start": r.Start.Seconds(), "end": r.End.Seconds(), "length": r.Length().Seconds(),
		"segments": len(r.Segments), "resources": len(r.Resources), "wait_states": len(r.Waits),
		"waiting": waited.Seconds(),
	}}
	a.tables = map[string]func(memory.Allocator) arrow.RecordBatch{
		"segments": func(mem memory.Allocator) arrow.RecordBatch { return arrowio.CritPathSegmentsTable(r, a.meta(), mem) },
		"pieces": func(mem memory.Allocator) arrow.RecordBatch {
			return arrowio.CritPathPiecesTable(r, at, a.meta(), mem)
		},
		"by_state": func(mem memory.Allocator) arrow.RecordBatch { return arrowio.CritPathByStateTable(at, a.meta(), mem) },
		"by_resource": func(mem memory.Allocator) arrow.RecordBatch {
			return arrowio.CritPathByResourceTable(at, a.meta(), mem)
		},
		"wait_states": func(mem memory.Allocator) arrow.RecordBatch { return arrowio.WaitStatesTable(r, a.meta(), mem) },
	}
	a.figure = func(fig plots.FigureOptions, options string) ([]byte, error) {
		var o figureOptions
		if err := decodeOptions(options, &o); err != nil {
			return nil, err
		}
		return critPathFigure(r, at, o, fig)
	}
	return a
}

// critPathFigure draws the path over the resources, coloured by what
// they did, or (o.Type "states") its time by state as bars.
func critPathFigure(r *critpath.Result, at *critpath.Attribution, o figureOptions, fig plots.FigureOptions) ([]byte, error) {
	// The states with the most time on the path get colours; the rest,
	// and time in no state, grey.
	const colored = 9
	colors := map[string]color.RGBA{}
	var legend []plots.LegendEntry
	for i, s := range at.ByState {
		c := color.RGBA{150, 150, 150, 255}
		if s.State == critpath.NoState {
			c = color.RGBA{210, 210, 210, 255}
		} else if i < colored {
			c = plots.CategoryColor(i)
		}
		colors[s.State] = c
		if i < colored || s.State == critpath.NoState {
			legend = append(legend, plots.LegendEntry{Label: s.State, Color: c})
		}
	}
	switch o.Type {
	case "states":
		shown := at.ByState[:min(o.top(20), len(at.ByState))]
		labels, on, total := make([]string, len(shown)), make([]float64, len(shown)), make([]float64, len(shown))
		n := float64(len(r.Resources))
		for i, s := range shown {
			labels[i], on[i], total[i] = s.State, s.OnPath.Seconds(), s.Total.Seconds()/n
		}
		return plots.HorizontalBars(labels, []plots.BarSeries{
			{Name: "on the critical path", Values: on, Color: plots.CategoryColor(0)},
			{Name: "mean per resource", Values: total, Color: plots.CategoryColor(1)},
		}, "time (s)", fig)
	case "", "path":
	default:
		return nil, errs.Argument("type", "%q is not path or states", o.Type)
	}
	// A short path late in a long trace: times from its start, so that
	// the ticks tell its instants apart.
	origin, xLabel := 0.0, "time (s)"
	if x0, x1 := r.Start.Seconds(), r.End.Seconds(); x0 > 0 && x1-x0 < 0.05*x1 {
		origin, xLabel = x0, "time since "+strconv.FormatFloat(x0, 'g', 9, 64)+" s (s)"
	}
	sec := func(t trace.Time) float64 { return t.Seconds() - origin }
	// The rows: every resource, or with many, those the path crosses.
	spans := r.Spans()
	short := shortNames(r.Resources)
	rowOf := make([]int, len(r.Resources))
	var labels []string
	var rows [][2]float64
	onPath := make([]bool, len(r.Resources))
	for _, s := range r.Segments {
		onPath[s.Resource] = true
	}
	for i := range r.Resources {
		rowOf[i] = -1
		if len(r.Resources) <= 16 || onPath[i] {
			rowOf[i] = len(labels)
			labels = append(labels, short[i])
			rows = append(rows, [2]float64{sec(spans[i][0]), sec(spans[i][1])})
		}
	}
	segs := make([]plots.PathSegment, len(at.Pieces))
	for i, p := range at.Pieces {
		segs[i] = plots.PathSegment{Row: rowOf[p.Resource], Start: sec(p.Start), End: sec(p.End), Color: colors[p.State]}
	}
	var jumps [][3]float64
	for _, s := range r.Segments {
		if s.From >= 0 {
			jumps = append(jumps, [3]float64{sec(s.Start), float64(rowOf[s.From]), float64(rowOf[s.Resource])})
		}
	}
	x0, x1 := sec(r.Start), sec(r.End)
	if x1 <= x0 {
		x1 = x0 + 1e-9
	}
	return plots.PathChart(labels, rows, segs, jumps, legend, x0, x1, xLabel, fig)
}
