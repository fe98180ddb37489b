package pybind

import (
	"sync"

	"gonum.org/v1/plot/vg"

	"github.com/macroscope-hpc/macroscope/arrowio"
	"github.com/macroscope-hpc/macroscope/core/aggregate"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/plots"
)

// MicroModel is a microscopic model and the aggregation engines built on
// it (kept to reuse their caches across values of p).
type MicroModel struct {
	m       *micro.Model
	in      aggregate.Input
	mu      sync.Mutex
	engines map[bool]*aggregate.Spatiotemporal // by normalisation
}

// Info describes the model as JSON.
func (m *MicroModel) Info() (js string, err error) {
	defer guard(&err)
	return toJSON(map[string]any{
		"slices": m.m.Slices, "start": m.m.Start.Seconds(), "end": m.m.End.Seconds(),
		"states": m.m.States, "resources": m.m.NumLeaves(), "nodes": m.m.Tree.Len(),
	})
}

// Table exports the long table of the model.
func (m *MicroModel) Table(addr uintptr) (err error) {
	defer guard(&err)
	return export(arrowio.MicroTable(m.m, cmem), addr)
}

type aggregateOptions struct {
	Normalize *bool `json:"normalize"`
}

func (m *MicroModel) engine(options string) (*aggregate.Spatiotemporal, error) {
	o := aggregateOptions{}
	if err := decodeOptions(options, &o); err != nil {
		return nil, err
	}
	normalize := o.Normalize == nil || *o.Normalize
	m.mu.Lock()
	defer m.mu.Unlock()
	if e := m.engines[normalize]; e != nil {
		return e, nil
	}
	e, err := aggregate.NewSpatiotemporal(m.in, aggregate.Options{Normalize: normalize})
	if err != nil {
		return nil, err
	}
	if m.engines == nil {
		m.engines = map[bool]*aggregate.Spatiotemporal{}
	}
	m.engines[normalize] = e
	return e, nil
}

// Aggregate computes the optimal spatiotemporal partition for p.
func (m *MicroModel) Aggregate(p float64, options string) (a *Aggregation, err error) {
	defer guard(&err)
	e, err := m.engine(options)
	if err != nil {
		return nil, err
	}
	part, err := e.Solve(p)
	if err != nil {
		return nil, err
	}
	return &Aggregation{model: m, part: part}, nil
}

type significantOptions struct {
	Method    string  `json:"method"`
	Threshold float64 `json:"threshold"`
	Recommend string  `json:"recommend"`
}

// SignificantP exports the table of distinct optimal partitions.
func (m *MicroModel) SignificantP(options string, addr uintptr) (err error) {
	defer guard(&err)
	o := significantOptions{Method: "exact", Threshold: 1e-3, Recommend: aggregate.RuleKnee}
	if err := decodeOptions(options, &o); err != nil {
		return err
	}
	if _, _, err := aggregate.Recommend(nil, o.Recommend, 1, 1); err != nil {
		return err // before the sweep, which may take a while
	}
	e, err := m.engine(options)
	if err != nil {
		return err
	}
	var levels []aggregate.Level
	switch o.Method {
	case "exact":
		levels, err = aggregate.SignificantExact(e, o.Threshold)
	case "dichotomy":
		levels, err = aggregate.SignificantDichotomy(e, o.Threshold)
	default:
		err = errs.Argument("method", "must be \"exact\" or \"dichotomy\", got %q", o.Method)
	}
	if err != nil {
		return err
	}
	g0, l0 := e.Scale()
	rec, _, err := aggregate.Recommend(levels, o.Recommend, g0, l0)
	if err != nil {
		return err
	}
	return export(arrowio.LevelsTable(levels, rec, cmem), addr)
}

// Aggregation is an optimal partition of a model.
type Aggregation struct {
	model *MicroModel
	part  *aggregate.Partition
}

// Info describes the partition as JSON: p, gain, loss, pIC, aggregates.
func (a *Aggregation) Info() (js string, err error) {
	defer guard(&err)
	return toJSON(map[string]any{
		"p": a.part.P, "gain": a.part.Gain, "loss": a.part.Loss, "pic": a.part.Value,
		"aggregates": len(a.part.Parts),
	})
}

// Table exports the aggregates.
func (a *Aggregation) Table(addr uintptr) (err error) {
	defer guard(&err)
	return export(arrowio.PartitionTable(a.model.m, a.model.in, a.part, cmem), addr)
}

type plotOptions struct {
	Width  float64 `json:"width"`  // points
	Height float64 `json:"height"` // points
	Format string  `json:"format"`
	Title  string  `json:"title"`
}

// Plot draws the overview figure and returns the image file's bytes.
func (a *Aggregation) Plot(options string) (img []byte, err error) {
	defer guard(&err)
	o := plotOptions{Format: "png"}
	if err := decodeOptions(options, &o); err != nil {
		return nil, err
	}
	f, err := plots.ParseFormat(o.Format)
	if err != nil {
		return nil, err
	}
	return plots.Overview(a.model.m, a.model.in, a.part, plots.OverviewOptions{
		Width: vg.Length(o.Width), Height: vg.Length(o.Height), Format: f, Title: o.Title,
	})
}
