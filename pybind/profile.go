package pybind

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/arrowio"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/commmatrix"
	"github.com/macroscope-hpc/macroscope/core/views/profile"
	"github.com/macroscope-hpc/macroscope/plots"
)

func init() {
	analysisKinds["flat_profile"] = newProfileAnalyzer(false)
	analysisKinds["load_imbalance"] = newProfileAnalyzer(true)
	analysisKinds["comm_matrix"] = newCommMatrixAnalyzer
}

// profileOptions mirror the keyword arguments of Trace.flat_profile and
// Trace.load_imbalance.
type profileOptions struct {
	StateTypes []string `json:"state_types"`
	By         string   `json:"by"`
	Metric     string   `json:"metric"`
	Top        *int     `json:"top"`
}

func newProfileAnalyzer(imbalance bool) func(string) (*analyzer, error) {
	return func(options string) (*analyzer, error) {
		var o profileOptions
		if err := decodeOptions(options, &o); err != nil {
			return nil, err
		}
		by, err := profile.ParseBy(o.By)
		if err != nil {
			return nil, err
		}
		metric, err := profile.ParseMetric(o.Metric)
		if err != nil {
			return nil, err
		}
		top := 3
		if o.Top != nil {
			if top = *o.Top; top < 0 {
				return nil, errs.Argument("top", "must be a number of processes, got %d", top)
			}
		}
		acc := profile.New(profile.Options{StateTypes: o.StateTypes, By: by})
		return &analyzer{sink: acc, finish: func(*trace.Trace, string) (*Analysis, error) {
			r, err := acc.Result()
			if err != nil {
				return nil, err
			}
			if imbalance {
				return imbalanceAnalysis(r, metric, top), nil
			}
			return profileAnalysis(r), nil
		}}, nil
	}
}

// figureOptions are the analysis' own plot options: how many rows, which
// value.
type figureOptions struct {
	Top    *int   `json:"top"`
	Metric string `json:"metric"`
	Value  string `json:"value"`
	Type   string `json:"type"`
	Log    *bool  `json:"log"`
}

func (o figureOptions) top(def int) int {
	if o.Top != nil && *o.Top > 0 {
		return *o.Top
	}
	return def
}

func profileAnalysis(r *profile.Result) *Analysis {
	flat := r.Flat()
	a := &Analysis{kind: "flat profile", info: map[string]any{
		"names": len(flat), "processes": len(r.Processes), "by": r.By.String(),
		"start": r.Start.Seconds(), "end": r.End.Seconds(),
	}}
	a.tables = map[string]func(memory.Allocator) arrow.RecordBatch{
		"flat": func(mem memory.Allocator) arrow.RecordBatch { return arrowio.FlatProfileTable(flat, a.meta(), mem) },
		"per_process": func(mem memory.Allocator) arrow.RecordBatch {
			return arrowio.ProfileByProcessTable(r.PerProcess(), a.meta(), mem)
		},
	}
	a.figure = func(fig plots.FigureOptions, options string) ([]byte, error) {
		var o figureOptions
		if err := decodeOptions(options, &o); err != nil {
			return nil, err
		}
		return plots.FlatProfileFigure(flat, o.top(20), r.By, fig)
	}
	return a
}

func imbalanceAnalysis(r *profile.Result, metric profile.Metric, top int) *Analysis {
	rows := r.Imbalance(metric, top)
	a := &Analysis{kind: "load imbalance", info: map[string]any{
		"names": len(rows), "processes": len(r.Processes), "by": r.By.String(), "metric": metric.String(),
		"start": r.Start.Seconds(), "end": r.End.Seconds(),
	}}
	a.tables = map[string]func(memory.Allocator) arrow.RecordBatch{
		"imbalance": func(mem memory.Allocator) arrow.RecordBatch { return arrowio.ImbalanceTable(rows, a.meta(), mem) },
	}
	a.figure = func(fig plots.FigureOptions, options string) ([]byte, error) {
		var o figureOptions
		if err := decodeOptions(options, &o); err != nil {
			return nil, err
		}
		return plots.ImbalanceFigure(rows, o.top(20), metric, r.By, fig)
	}
	return a
}

func newCommMatrixAnalyzer(options string) (*analyzer, error) {
	var o struct {
		Level     string   `json:"level"`
		LinkTypes []string `json:"link_types"`
	}
	if err := decodeOptions(options, &o); err != nil {
		return nil, err
	}
	acc, err := commmatrix.New(commmatrix.Options{Level: o.Level, LinkTypes: o.LinkTypes})
	if err != nil {
		return nil, err
	}
	return &analyzer{sink: acc, finish: func(*trace.Trace, string) (*Analysis, error) {
		r, err := acc.Result()
		if err != nil {
			return nil, err
		}
		return commMatrixAnalysis(r), nil
	}}, nil
}

func commMatrixAnalysis(r *commmatrix.Result) *Analysis {
	types := []string{}
	var links int64
	for _, row := range r.Rows {
		if len(types) == 0 || types[len(types)-1] != row.Type {
			types = append(types, row.Type)
		}
		links += row.Count
	}
	a := &Analysis{kind: "communication matrix", info: map[string]any{
		"rows": len(r.Rows), "level": r.Level, "link_types": types, "links": links,
		"start": r.Start.Seconds(), "end": r.End.Seconds(),
	}}
	a.tables = map[string]func(memory.Allocator) arrow.RecordBatch{
		"matrix": func(mem memory.Allocator) arrow.RecordBatch {
			return arrowio.CommMatrixTable(r.Rows, r.Groups, a.meta(), mem)
		},
	}
	a.figure = func(fig plots.FigureOptions, options string) ([]byte, error) {
		var o figureOptions
		if err := decodeOptions(options, &o); err != nil {
			return nil, err
		}
		return plots.CommMatrixFigure(r, o.Type, o.Value, o.Log == nil || *o.Log, fig)
	}
	return a
}
