package pybind

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/arrowio"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/stragglers"
	"github.com/macroscope-hpc/macroscope/plots"
)

func init() {
	analysisKinds["stragglers"] = newStragglersAnalyzer
}

func newStragglersAnalyzer(options string, cancel <-chan struct{}) (*analyzer, error) {
	var o struct {
		Iteration string `json:"iteration"`
	}
	if err := decodeOptions(options, &o); err != nil {
		return nil, err
	}
	acc, err := stragglers.New(stragglers.Options{Iteration: o.Iteration, Cancel: cancel})
	if err != nil {
		return nil, err
	}
	return &analyzer{sink: acc, finish: func(*trace.Trace, string) (*Analysis, error) {
		r, err := acc.Result()
		if err != nil {
			return nil, err
		}
		return stragglersAnalysis(r), nil
	}}, nil
}

func stragglersAnalysis(r *stragglers.Result) *Analysis {
	by := r.ByResource()
	a := &Analysis{kind: "stragglers", info: map[string]any{
		"mode": r.Mode, "iteration": r.Iteration, "instances": len(r.Instances), "resources": len(r.Resources),
		// One clock, as the critical path's: seconds from the trace's start.
		"start": 0.0, "end": (r.End - r.Start).Seconds(), "origin": r.Start.Seconds(),
	}}
	a.tables = map[string]func(memory.Allocator) arrow.RecordBatch{
		"resources": func(mem memory.Allocator) arrow.RecordBatch { return arrowio.StragglersTable(by, a.meta(), mem) },
		"instances": func(mem memory.Allocator) arrow.RecordBatch {
			return arrowio.StragglerInstancesTable(r, a.meta(), mem)
		},
		"arrivals": func(mem memory.Allocator) arrow.RecordBatch {
			return arrowio.StragglerArrivalsTable(r, a.meta(), mem)
		},
	}
	a.figure = func(fig plots.FigureOptions, options string) ([]byte, error) {
		var o figureOptions
		if err := decodeOptions(options, &o); err != nil {
			return nil, err
		}
		return plots.StragglersFigure(r, o.Type, o.top(20), o.Log != nil && *o.Log, fig)
	}
	return a
}
