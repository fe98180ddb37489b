// Package pybind is the facade the Python package macroscope is generated
// from (by gopy): a few coarse functions over opaque handles. Bulk data
// never crosses as Go slices; tables cross through the Arrow C stream
// interface into buffers allocated outside the Go heap, so pyarrow and
// pandas read them in place.
//
// Every exported function recovers panics and encodes errors (see guard);
// objects are immutable once built, so any of them may be used from
// several Python threads (gopy releases the GIL during calls).
package pybind

import (
	"encoding/json"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory/mallocator"
	"gonum.org/v1/plot/vg"

	"github.com/macroscope-hpc/macroscope/arrowio"
	"github.com/macroscope-hpc/macroscope/core/aggregate"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/paje"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/plots"
)

// cmem allocates exported tables in C memory (required by the C data
// interface; Go memory must not be retained by C).
var cmem = mallocator.NewMallocator()

// export moves a freshly built record batch into the consumer's stream.
func export(rec arrow.RecordBatch, addr uintptr) error {
	defer rec.Release()
	return arrowio.ExportStream(rec, addr)
}

func toJSON(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

// Trace is a trace read into memory.
type Trace struct {
	t *trace.Trace
}

// ReadPaje reads a Pajé trace file.
func ReadPaje(path string) (tr *Trace, err error) {
	defer guard(&err)
	t, err := paje.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return &Trace{t: t}, nil
}

// Summary describes the trace as JSON: files, time span and counts.
func (t *Trace) Summary() (js string, err error) {
	defer guard(&err)
	tr := t.t
	return toJSON(map[string]any{
		"files": tr.Files, "start": tr.Start.Seconds(), "end": tr.End.Seconds(),
		"containers": len(tr.Containers) - 1, "states": len(tr.States), "variables": len(tr.Variables),
		"links": len(tr.Links), "events": len(tr.Events), "types": len(tr.Types),
	})
}

// Table exports one of the trace's tables ("containers" or "states") to
// the ArrowArrayStream at addr.
func (t *Trace) Table(name string, addr uintptr) (err error) {
	defer guard(&err)
	switch name {
	case "containers":
		return export(arrowio.ContainersTable(t.t, cmem), addr)
	case "states":
		return export(arrowio.StatesTable(t.t, cmem), addr)
	}
	return errs.Argument("table", "unknown trace table %q", name)
}

// microOptions mirror Trace.micro's keyword arguments.
type microOptions struct {
	Slices     int      `json:"slices"`
	Start      *float64 `json:"start"`
	End        *float64 `json:"end"`
	StateTypes []string `json:"state_types"`
	Depth      *int     `json:"depth"`
}

// Micro builds the microscopic model; options is a JSON object.
func (t *Trace) Micro(options string) (m *MicroModel, err error) {
	defer guard(&err)
	o := microOptions{Slices: 100}
	if err := decodeOptions(options, &o); err != nil {
		return nil, err
	}
	opt := micro.Options{Slices: o.Slices, StateTypes: o.StateTypes, Depth: micro.Innermost}
	if o.Depth != nil {
		opt.Depth = *o.Depth
	}
	if opt.Start, err = seconds("start", o.Start); err != nil {
		return nil, err
	}
	if opt.End, err = seconds("end", o.End); err != nil {
		return nil, err
	}
	model, err := micro.Build(t.t, opt)
	if err != nil {
		return nil, err
	}
	return &MicroModel{m: model, in: aggregate.Input{Tree: model.Tree, Slices: model.Slices, States: len(model.States), Values: model.Values}}, nil
}

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
