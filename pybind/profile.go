package pybind

import (
	"math"
	"strconv"
	"strings"

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
		rows := flat[:min(o.top(20), len(flat))]
		labels := make([]string, len(rows))
		exc, inc := make([]float64, len(rows)), make([]float64, len(rows))
		for i, row := range rows {
			labels[i], exc[i], inc[i] = row.Name.Name, row.ExclusiveMean, row.InclusiveMean
		}
		return plots.HorizontalBars(labels, []plots.BarSeries{
			{Name: "exclusive", Values: exc, Color: plots.CategoryColor(0)},
			{Name: "inclusive", Values: inc, Color: plots.CategoryColor(1)},
		}, "time per "+r.By.String()+" (s, mean over those that have the state)", fig)
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
		shown := rows[:min(o.top(20), len(rows))]
		n := len(shown)
		labels, notes := make([]string, n), make([]string, n)
		lo, mean, hi := make([]float64, n), make([]float64, n), make([]float64, n)
		for i, row := range shown {
			labels[i], lo[i], mean[i], hi[i] = row.Name.Name, row.Min, row.Mean, row.Max
			notes[i] = "×" + formatRatio(row.Imbalance)
			if len(row.Top) > 0 {
				notes[i] += " " + lastName(row.Top[0])
			}
		}
		return plots.Ranges(labels, lo, mean, hi, notes, metric.String()+" time per "+r.By.String()+" (s)", fig)
	}
	return a
}

func formatRatio(v float64) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return trimFloat(v, 2)
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
		return commMatrixFigure(r, types, o, fig)
	}
	return a
}

// commMatrixFigure draws one link type's matrix (the first, or o.Type):
// bytes where the trace gives sizes, else counts, unless o.Value says.
func commMatrixFigure(r *commmatrix.Result, types []string, o figureOptions, fig plots.FigureOptions) ([]byte, error) {
	if len(types) == 0 {
		return nil, errs.Argument("matrix", "the trace has no links")
	}
	typ := types[0]
	if o.Type != "" {
		typ = o.Type
	}
	var rows []commmatrix.Row
	sized := true
	for _, row := range r.Rows {
		if row.Type == typ {
			rows = append(rows, row)
			sized = sized && row.Sized > 0
		}
	}
	if len(rows) == 0 {
		return nil, errs.Argument("type", "no link of type %q (types: %v)", typ, types)
	}
	value := o.Value
	switch value {
	case "":
		value = "count"
		if sized {
			value = "bytes"
		}
	case "count", "bytes":
	default:
		return nil, errs.Argument("value", "%q is not count or bytes", value)
	}
	used := map[string]bool{}
	for _, row := range rows {
		used[row.Source], used[row.Destination] = true, true
	}
	index, labels := map[string]int{}, []string{}
	for _, g := range r.Groups {
		if used[g] {
			index[g] = len(labels)
			labels = append(labels, g)
		}
	}
	m := make([][]float64, len(labels))
	for i := range m {
		m[i] = make([]float64, len(labels))
	}
	for _, row := range rows {
		v := float64(row.Count)
		if value == "bytes" {
			v = row.Bytes
		}
		m[index[row.Source]][index[row.Destination]] += v
	}
	short := shortNames(labels)
	logScale := o.Log == nil || *o.Log
	return plots.Heatmap(short, short, m, logScale, typ+": "+value, "destination ("+r.Level+")", "source ("+r.Level+")", fig)
}

// trimFloat writes v with at most digits decimals, without trailing zeros.
func trimFloat(v float64, digits int) string {
	return strconv.FormatFloat(math.Round(v*math.Pow10(digits))/math.Pow10(digits), 'f', -1, 64)
}

// lastName is the last name of a container's path.
func lastName(path string) string {
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		return path[i+1:]
	}
	return path
}

// shortNames returns, for each path, its shortest suffix of whole names
// that no other path ends with ("MPI Rank 3/Master thread" where every
// rank has a "Master thread").
func shortNames(paths []string) []string {
	out := make([]string, len(paths))
	parts := make([][]string, len(paths))
	for i, p := range paths {
		parts[i] = strings.Split(p, "/")
	}
	for k := 1; ; k++ {
		count := map[string]int{}
		suffix := func(i int) string {
			ps := parts[i]
			return strings.Join(ps[max(0, len(ps)-k):], "/")
		}
		for i := range paths {
			count[suffix(i)]++
		}
		done := true
		for i := range paths {
			if out[i] == "" && (count[suffix(i)] == 1 || k >= len(parts[i])) {
				out[i] = suffix(i)
			}
			if out[i] == "" {
				done = false
			}
		}
		if done {
			return out
		}
	}
}
