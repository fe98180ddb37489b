package pybind

import (
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/arrowio"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/stragglers"
	"github.com/macroscope-hpc/macroscope/plots"
)

func init() {
	analysisKinds["stragglers"] = newStragglersAnalyzer
}

func newStragglersAnalyzer(options string) (*analyzer, error) {
	var o struct {
		Iteration string `json:"iteration"`
	}
	if err := decodeOptions(options, &o); err != nil {
		return nil, err
	}
	acc, err := stragglers.New(stragglers.Options{Iteration: o.Iteration})
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
		"mode": r.Mode, "instances": len(r.Instances), "resources": len(r.Resources),
		"start": r.Start.Seconds(), "end": r.End.Seconds(),
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
		switch o.Type {
		case "", "bars":
			shown := by[:min(o.top(20), len(by))]
			labels, caused := make([]string, len(shown)), make([]float64, len(shown))
			short := shortNames(r.Resources)
			index := map[string]int{}
			for i, res := range r.Resources {
				index[res] = i
			}
			for i, b := range shown {
				labels[i] = short[index[b.Resource]] + " (" + strconv.Itoa(b.TimesLast) + "x)"
				caused[i] = b.WaitCaused.Seconds()
			}
			return plots.HorizontalBars(labels, []plots.BarSeries{{Name: "wait caused", Values: caused, Color: plots.CategoryColor(0)}},
				"waiting caused when arriving last (s); (n x): times last", fig)
		case "heatmap":
			rows := make([]string, len(r.Instances))
			m := make([][]float64, len(r.Instances))
			for i, in := range r.Instances {
				rows[i] = strconv.Itoa(i) + " " + in.Name
				m[i] = make([]float64, len(r.Resources))
				first := in.Arrivals[0]
				for _, t := range in.Arrivals {
					first = min(first, t)
				}
				for k, res := range in.Members {
					m[i][res] = (in.Arrivals[k] - first).Seconds()
				}
			}
			cols := shortNames(r.Resources)
			logScale := o.Log != nil && *o.Log
			return plots.Heatmap(rows, cols, m, logScale, "delay after the first arrival (s)", "resource", "instance", fig)
		}
		return nil, errs.Argument("type", "%q is not bars or heatmap", o.Type)
	}
	return a
}
