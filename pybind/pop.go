package pybind

import (
	"bytes"
	"encoding/gob"
	"encoding/json"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/arrowio"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/pop"
	"github.com/macroscope-hpc/macroscope/plots"
)

func init() {
	analysisKinds["pop"] = newPOPAnalyzer
}

// popOptions mirror the keyword arguments of Trace.pop and ms.pop.
type popOptions struct {
	EagerLimit *float64 `json:"eager_limit"` // bytes; null: Dimemas' 32 KiB
	Ideal      *bool    `json:"ideal"`
	Scaling    string   `json:"scaling"`
	Label      string   `json:"label"`
}

func parsePOPOptions(options string) (popOptions, pop.Options, pop.Scaling, error) {
	var o popOptions
	if err := decodeOptions(options, &o); err != nil {
		return o, pop.Options{}, 0, err
	}
	var opt pop.Options
	if o.EagerLimit != nil {
		if math.IsNaN(*o.EagerLimit) || *o.EagerLimit < 0 {
			return o, opt, 0, errs.Argument("eager_limit", "must be a number of bytes (0: every send waits for its receiver; inf: none does), got %v", *o.EagerLimit)
		}
		opt.EagerLimit = *o.EagerLimit
		if opt.EagerLimit == 0 {
			opt.EagerLimit = -1
		}
	}
	opt.NoIdeal = o.Ideal != nil && !*o.Ideal
	scaling, err := pop.ParseScaling(o.Scaling)
	return o, opt, scaling, err
}

func newPOPAnalyzer(options string, cancel <-chan struct{}) (*analyzer, error) {
	o, opt, scaling, err := parsePOPOptions(options)
	if err != nil {
		return nil, err
	}
	opt.Cancel = cancel
	acc := pop.New(opt)
	return &analyzer{sink: acc, finish: func(_ *trace.Trace, source string) (*Analysis, error) {
		run, err := acc.Result()
		if err != nil {
			return nil, err
		}
		run.Source = source
		s := &POPSeries{}
		s.add(*run, o.Label)
		return s.analysis(scaling)
	}, pipe: true}, nil
}

// POPSeries gathers the runs of a scaling study, one POP analysis each, for
// their factors side by side.
type POPSeries struct {
	runs   []pop.Run
	labels []string
}

// NewPOPSeries returns an empty series.
func NewPOPSeries() *POPSeries { return &POPSeries{} }

// Add adds the runs of a POP analysis to the series; label names the run
// (its processes when empty).
func (s *POPSeries) Add(a *Analysis, label string) (err error) {
	defer guard(&err)
	if a.kind != "POP efficiencies" || a.pop == nil {
		return errs.Argument("runs", "a %s result is not a POP analysis", a.kind)
	}
	for i, r := range a.pop.Runs {
		l := label
		if l == "" {
			l = a.popLabels[i]
		}
		s.add(r, l)
	}
	return nil
}

func (s *POPSeries) add(r pop.Run, label string) {
	s.runs = append(s.runs, r)
	s.labels = append(s.labels, label)
}

// POP computes the factors of the series; options is a JSON object with
// "scaling".
func (s *POPSeries) POP(options string) (a *Analysis, err error) {
	defer guard(&err)
	_, _, scaling, err := parsePOPOptions(options)
	if err != nil {
		return nil, err
	}
	return s.analysis(scaling)
}

// EncodePOPRun encodes the run of a one-run POP analysis (gob): the
// study's factors of a compare_series on Dask are computed here from the
// runs analysed on the workers.
func (a *Analysis) EncodePOPRun() (data []byte, err error) {
	defer guard(&err)
	if a.pop == nil || len(a.pop.Runs) != 1 {
		return nil, errs.Argument("analysis", "a %s result is not the POP analysis of one run", a.kind)
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(a.pop.Runs[0]); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// AddEncoded adds to the series a run EncodePOPRun encoded.
func (s *POPSeries) AddEncoded(data []byte) (err error) {
	defer guard(&err)
	var r pop.Run
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&r); err != nil {
		return errs.Argument("runs", "not an encoded POP run: %v", err)
	}
	s.add(r, "")
	return nil
}

// StudySummary returns, as JSON, the factors of the series that need
// every run (pop.StudySummaryKeys: scalabilities, speed-up) for each run
// in the order added: {"keys": [...], "values": [[run 0's], ...]}, null
// for NaN; options is a JSON object with "scaling".
func (s *POPSeries) StudySummary(options string) (out string, err error) {
	defer guard(&err)
	_, _, scaling, err := parsePOPOptions(options)
	if err != nil {
		return "", err
	}
	study, err := pop.StudySummary(s.runs, scaling)
	if err != nil {
		return "", err
	}
	keys := []string{}
	values := make([][]*float64, len(study))
	for i, fs := range study {
		values[i] = []*float64{}
		for _, f := range fs {
			if i == 0 {
				keys = append(keys, f.Key)
			}
			var v *float64
			if x := f.Values[0]; !math.IsNaN(x) && !math.IsInf(x, 0) {
				v = &x
			}
			values[i] = append(values[i], v)
		}
	}
	b, err := json.Marshal(map[string]any{"keys": keys, "values": values})
	return string(b), err
}

func (s *POPSeries) analysis(scaling pop.Scaling) (*Analysis, error) {
	f, err := pop.ComputeFactors(s.runs, scaling)
	if err != nil {
		return nil, err
	}
	// The labels follow the runs, which the factors sort by processes.
	labels := f.Labels()
	for i, r := range f.Runs {
		for j := range s.runs {
			if s.labels[j] != "" && sameRun(&s.runs[j], &r) {
				labels[i] = s.labels[j]
			}
		}
	}
	// Each run's own label is its processes: runs of as many processes
	// (a serial series: all "1") are told apart as Labels tells them, or
	// the table's columns would repeat.
	seen := map[string]int{}
	for i, l := range labels {
		if seen[l]++; seen[l] > 1 {
			labels[i] = fmt.Sprintf("%s (%d)", l, seen[l])
		}
	}
	a := &Analysis{kind: "POP efficiencies", pop: f, popLabels: labels, info: map[string]any{
		"runs": labels, "scaling": f.Scaling.String(), "normalised_instructions": nullable(f.NormalisedInstructions),
	}}
	var reasons []string
	for _, r := range f.Runs {
		if r.NoIdealReason != "" {
			reasons = append(reasons, r.NoIdealReason)
		}
	}
	a.info["no_ideal"] = reasons
	a.info["useful_rule"] = f.Runs[0].UsefulRule
	models := make([]string, len(f.Runs))
	for i, r := range f.Runs {
		models[i] = r.Model
	}
	a.info["models"], a.info["hybrid"], a.info["without_mpi"], a.info["serial"] = models, f.Hybrid(), f.WithoutMPI(), f.Serial()
	if len(f.Runs) == 1 {
		a.info["source"] = f.Runs[0].Source
	}
	a.tables = map[string]func(memory.Allocator) arrow.RecordBatch{
		"factors": func(mem memory.Allocator) arrow.RecordBatch { return arrowio.POPFactorsTable(f, labels, a.meta(), mem) },
		"raw": func(mem memory.Allocator) arrow.RecordBatch {
			return arrowio.POPRawTable(f.Runs, labels, a.meta(), mem)
		},
		"resources": func(mem memory.Allocator) arrow.RecordBatch {
			return arrowio.POPResourcesTable(f.Runs, labels, a.meta(), mem)
		},
		"processes": func(mem memory.Allocator) arrow.RecordBatch {
			return arrowio.POPProcessesTable(f.Runs, labels, a.meta(), mem)
		},
	}
	a.figure = func(fig plots.FigureOptions, options string) ([]byte, error) {
		var o struct {
			Form string `json:"form"`
		}
		if err := decodeOptions(options, &o); err != nil {
			return nil, err
		}
		form := pop.Multiplicative
		switch o.Form {
		case "", "multiplicative":
		case "additive":
			form = pop.Additive
		default:
			return nil, errs.Argument("form", "%q is not multiplicative or additive", o.Form)
		}
		return plots.POPFigure(f, labels, form, fig)
	}
	return a, nil
}

// sameRun tells whether two runs are one (the same source and sizes).
func sameRun(a, b *pop.Run) bool {
	return a.Source == b.Source && a.Runtime == b.Runtime && a.Processes == b.Processes && a.UsefulTotal == b.UsefulTotal
}

// nullable turns NaN into JSON's null.
func nullable(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return v
}
