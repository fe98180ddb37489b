package pybind

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/arrowio"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
	"github.com/macroscope-hpc/macroscope/core/views/moments"
)

// Trace is a trace read into memory.
type Trace struct {
	t        *trace.Trace
	format   string   // the reader's name, "table" for a table of intervals
	warnings []string // what the reader skipped, for Python to warn about
	notes    *trace.Notes
}

// ReadPaje reads a Pajé trace file, its dates in seconds.
func ReadPaje(path string) (tr *Trace, err error) {
	defer guard(&err)
	src, f, err := formats.Open(path, "paje", ingest.Values{"time_unit": "s"})
	if err != nil {
		return nil, err
	}
	t := trace.New(path)
	if err := src.Read(t, trace.ReadOptions{}); err != nil {
		return nil, err
	}
	return &Trace{t: t, format: f.Name}, nil
}

// Summary describes the trace as JSON: files, time span and counts.
func (t *Trace) Summary() (js string, err error) {
	defer guard(&err)
	tr := t.t
	return toJSON(map[string]any{
		"files": tr.Files, "start": tr.Start.Seconds(), "end": tr.End.Seconds(),
		"start_ns": int64(tr.Start), "end_ns": int64(tr.End),
		"containers": len(tr.Containers) - 1, "states": tr.States.Len(), "variables": tr.Variables.Len(),
		"links": tr.Links.Len(), "events": tr.Events.Len(), "types": len(tr.Types),
		"format": t.format, "warnings": t.warnings, "skipped": t.notes.Skipped(),
		"incomplete": t.notes.IncompleteReasons(),
	})
}

// Table exports one of the trace's tables ("containers", "states",
// "variables", "links", "events" or "types") to the ArrowArrayStream at
// addr.
func (t *Trace) Table(name string, addr uintptr) (err error) {
	defer guard(&err)
	switch name {
	case "containers":
		return export(arrowio.ContainersTable(t.t, cmem), addr)
	case "states":
		return export(arrowio.StatesTable(t.t, cmem), addr)
	case "variables":
		return export(arrowio.VariablesTable(t.t, cmem), addr)
	case "links":
		return export(arrowio.LinksTable(t.t, cmem), addr)
	case "events":
		return export(arrowio.EventsTable(t.t, cmem), addr)
	case "types":
		return export(arrowio.TypesTable(t.t, cmem), addr)
	}
	return errs.Argument("table", "unknown trace table %q", name)
}

// StartTable starts exporting one of the trace's tables, as Table, as a
// Work whose Export gives it: Ctrl-C stops the conversion (states, links,
// variables, events: millions of rows; a million resources' containers).
func (t *Trace) StartTable(name string) (w *Work, err error) {
	defer guard(&err)
	var convert func(*trace.Trace, memory.Allocator, <-chan struct{}) (arrow.RecordBatch, error)
	switch name {
	case "states":
		convert = arrowio.StatesTableCancel
	case "variables":
		convert = arrowio.VariablesTableCancel
	case "links":
		convert = arrowio.LinksTableCancel
	case "events":
		convert = arrowio.EventsTableCancel
	case "containers":
		convert = arrowio.ContainersTableCancel
	case "types":
		convert = arrowio.TypesTableCancel
	default:
		return nil, errs.Argument("table", "unknown trace table %q", name)
	}
	return startTable(func(cancel <-chan struct{}) (arrow.RecordBatch, error) { return convert(t.t, cmem, cancel) }), nil
}

// microOptions mirror Trace.micro's keyword arguments.
type microOptions struct {
	Slices     int      `json:"slices"`
	Start      *float64 `json:"start"`
	End        *float64 `json:"end"`
	StateTypes []string `json:"state_types"`
	Depth      *int     `json:"depth"`
	Metric     string   `json:"metric"`
	Types      []string `json:"types"`
	Key        string   `json:"key"`
	// ProfilerSpans keeps the profiler's spans (micro.Options).
	ProfilerSpans bool `json:"profiler_spans"`
	// MemoryBudget bounds the model's cells: bytes, 0 the default share
	// of the memory available, negative no limit.
	MemoryBudget int64 `json:"memory_budget"`
}

// StartMicro starts building the microscopic model (options is a JSON
// object); a Work whose MicroModel is the model, so that Ctrl-C stops
// the build.
func (t *Trace) StartMicro(options string) (w *Work, err error) {
	defer guard(&err)
	opt, err := parseMicroOptions(options)
	if err != nil {
		return nil, err
	}
	var m *MicroModel
	w = startWork(func(ctl *aggregate.Control) error {
		opt.Cancel = ctl.Cancel
		built, err := t.micro(opt)
		m = built
		return err
	})
	w.result = func() any { return m }
	return w, nil
}

// micro builds the microscopic model.
func (t *Trace) micro(opt micro.Options) (*MicroModel, error) {
	model, err := micro.Build(t.t, opt)
	if err != nil {
		return nil, errs.NameFile(err, t.t.Files...)
	}
	return &MicroModel{m: model, in: aggregate.Input{Tree: model.Tree, Slices: model.Slices, States: len(model.States), Values: model.Values, Cells: model.Cells},
		source: t, stateTypes: moments.ModelStateTypes(opt), incomplete: incompleteOf(t)}, nil
}
