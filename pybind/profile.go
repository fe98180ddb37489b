package pybind

import (
	"encoding"

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

// parseProfileOptions decodes the options of the flat profile and the
// load imbalance.
func parseProfileOptions(options string) (profile.Options, profile.Metric, int, error) {
	var o profileOptions
	if err := decodeOptions(options, &o); err != nil {
		return profile.Options{}, 0, 0, err
	}
	by, err := profile.ParseBy(o.By)
	if err != nil {
		return profile.Options{}, 0, 0, err
	}
	metric, err := profile.ParseMetric(o.Metric)
	if err != nil {
		return profile.Options{}, 0, 0, err
	}
	top := 3
	if o.Top != nil {
		if top = *o.Top; top < 0 {
			return profile.Options{}, 0, 0, errs.Argument("top", "must be a number of processes, got %d", top)
		}
	}
	return profile.Options{StateTypes: o.StateTypes, By: by}, metric, top, nil
}

func newProfileAnalyzer(imbalance bool) func(string, <-chan struct{}) (*analyzer, error) {
	return func(options string, cancel <-chan struct{}) (*analyzer, error) {
		opt, metric, top, err := parseProfileOptions(options)
		if err != nil {
			return nil, err
		}
		opt.Cancel = cancel
		acc := profile.New(opt)
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

func newCommMatrixAnalyzer(options string, cancel <-chan struct{}) (*analyzer, error) {
	var o struct {
		Level     string   `json:"level"`
		LinkTypes []string `json:"link_types"`
	}
	if err := decodeOptions(options, &o); err != nil {
		return nil, err
	}
	acc, err := commmatrix.New(commmatrix.Options{Level: o.Level, LinkTypes: o.LinkTypes, Cancel: cancel})
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

// StartPartitionProfile starts profiling a part of a trace (a JSON
// partition.Part) in this process, for a profile computed on a cluster;
// Reading.Partial gives the encoded partial profile. options are those
// of the flat profile (by, state_types).
func StartPartitionProfile(path, part, options string) (r *Reading, err error) {
	defer guard(&err)
	p, err := decodePart(part)
	if err != nil {
		return nil, err
	}
	opt, _, _, err := parseProfileOptions(options)
	if err != nil {
		return nil, err
	}
	return startPartial(path, func(ro trace.ReadOptions) (encoding.BinaryMarshaler, []byte, error) {
		res, err := profile.ComputePart(p, opt, ro)
		if err != nil {
			return nil, nil, streamError(path, err)
		}
		return res, nil, nil
	}), nil
}

// PartitionProfileMerge merges the encoded profiles of two consecutive
// parts, a's first.
func PartitionProfileMerge(a, b []byte) (data []byte, err error) {
	defer guard(&err)
	ra, err := profile.UnmarshalResult(a)
	if err != nil {
		return nil, err
	}
	rb, err := profile.UnmarshalResult(b)
	if err != nil {
		return nil, err
	}
	m, err := profile.Merge(ra, rb)
	if err != nil {
		return nil, err
	}
	return m.MarshalBinary()
}

// PartitionProfile returns the analysis kind ("flat_profile" or
// "load_imbalance") of the merged profile of all the parts of a trace.
func PartitionProfile(data []byte, kind, options, source string) (a *Analysis, err error) {
	defer guard(&err)
	_, metric, top, err := parseProfileOptions(options)
	if err != nil {
		return nil, err
	}
	r, err := profile.UnmarshalResult(data)
	if err != nil {
		return nil, err
	}
	switch kind {
	case "flat_profile":
		a = profileAnalysis(r)
	case "load_imbalance":
		a = imbalanceAnalysis(r, metric, top)
	default:
		return nil, errs.Argument("analysis", "%q is not computed on a cluster (flat_profile and load_imbalance are)", kind)
	}
	a.info["source"] = source
	return a, nil
}
