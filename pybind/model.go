package pybind

import (
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"gonum.org/v1/plot/vg"

	"github.com/macroscope-hpc/macroscope/arrowio"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
	"github.com/macroscope-hpc/macroscope/plots"
)

// MicroModel is a microscopic model and the aggregation engines built on
// it (kept to reuse their caches across values of p).
type MicroModel struct {
	m       *micro.Model
	in      aggregate.Input
	mu      sync.Mutex
	engines map[engineKey]aggregate.Engine
	levels  map[levelsKey][]aggregate.Level // significant p, by engine and search
	knees   map[levelsKey]aggregate.Level   // recommended levels found without a sweep (Knee)

	// source and stateTypes are the trace and state types the model was
	// built from, for the moments of aggregates.
	source     *Trace
	stateTypes []string
	// summary describes the trace a model built while reading came from
	// (StartReadMicro); nil for a model built from a trace in memory.
	summary map[string]any
	// incomplete says why the trace read was incomplete (none: complete).
	incomplete []string
}

// Info describes the model as JSON.
func (m *MicroModel) Info() (js string, err error) {
	defer guard(&err)
	return toJSON(map[string]any{
		"slices": m.m.Slices, "start": m.m.Start.Seconds(), "end": m.m.End.Seconds(),
		"origin": m.m.Origin.Seconds(), "origin_ns": int64(m.m.Origin),
		"start_ns": int64(m.m.Start), "end_ns": int64(m.m.End),
		"states": append([]string{}, m.m.States...), "resources": m.m.NumLeaves(), "nodes": m.m.Tree.Len(),
		"nbytes": m.m.ValueBytes(), "sparse": m.m.IsSparse(),
		"metric": string(metricOf(m.m)), "dimension": metricOf(m.m).Dimension(),
		"trace": m.summary, "incomplete": m.incomplete, "notes": append([]string{}, m.m.Notes...),
		"left_out": leftOutInfo(m.m), "left_out_note": m.m.LeftOutNote("profiler_spans=True"),
		"steps": stepsInfo(m.m),
	})
}

// stepsInfo describes the program's steps in the model's window
// (micro.Model.Steps), in seconds from the trace's start: "steps", a row
// per step, and "marks", where a figure marks them (plots.StepMarks), so
// that the explorer draws the static figure's marks.
func stepsInfo(m *micro.Model) map[string]any {
	rel := func(t trace.Time) float64 { return (t - m.Origin).Seconds() }
	rows := []map[string]any{}
	for _, s := range m.Steps {
		rows = append(rows, map[string]any{"step": s.Number, "label": s.Label(), "start": rel(s.Start), "end": rel(s.End)})
	}
	marks := []map[string]any{}
	for _, mk := range plots.StepMarks(m) {
		marks = append(marks, map[string]any{"t": rel(mk.At), "label": mk.Label})
	}
	return map[string]any{"steps": rows, "marks": marks}
}

// leftOutInfo describes what the model left out of the profiler's spans
// (micro.Model.LeftOut): a row per kind of span, its time in seconds (or
// its events) over the window; and the resources dropped for holding only
// them.
func leftOutInfo(m *micro.Model) map[string]any {
	rows := []map[string]any{}
	for _, l := range m.LeftOut {
		rows = append(rows, map[string]any{"role": l.Role.String(), "names": append([]string{}, l.Names...), "total": l.Total()})
	}
	return map[string]any{"spans": rows, "resources": m.LeftOutRows}
}

func metricOf(m *micro.Model) micro.Metric {
	if m.Metric == "" {
		return micro.StateDuration
	}
	return m.Metric
}

// Table exports the long table of the model.
func (m *MicroModel) Table(addr uintptr) (err error) {
	defer guard(&err)
	return export(arrowio.MicroTable(m.m, cmem), addr)
}

// StartTable starts exporting the long table of the model as a Work whose
// Export gives it, so that Ctrl-C stops a table of millions of rows.
func (m *MicroModel) StartTable() (w *Work, err error) {
	defer guard(&err)
	return startTable(func(cancel <-chan struct{}) (arrow.RecordBatch, error) {
		return arrowio.MicroTableCancel(m.m, cmem, cancel)
	}), nil
}

// aggregateOptions choose the engine: the kind of partitions, the
// measures and, for the spatial kind, the window of slices.
type aggregateOptions struct {
	Kind      string  `json:"kind"`
	Normalize *bool   `json:"normalize"`
	Gain      string  `json:"gain"`
	Window    *[2]int `json:"window"` // first and last slice, inclusive
	Ties      string  `json:"ties"`
	Entities  string  `json:"entities"`
}

// engineKey identifies an engine; engines keep their caches across p.
type engineKey struct {
	kind        aggregate.Kind
	normalize   bool
	gain        aggregate.GainMeasure
	first, last int
	ties        aggregate.TieRule
	entities    aggregate.Entities
}

// levelsKey identifies a significant-p search on an engine.
type levelsKey struct {
	engine    engineKey
	method    string
	threshold float64
}

func (m *MicroModel) engine(options string) (aggregate.Engine, engineKey, error) {
	o := aggregateOptions{}
	if err := decodeOptions(options, &o); err != nil {
		return nil, engineKey{}, err
	}
	kind, err := aggregate.ParseKind(o.Kind)
	if err != nil {
		return nil, engineKey{}, err
	}
	gain, err := aggregate.ParseGain(o.Gain)
	if err != nil {
		return nil, engineKey{}, err
	}
	ties, err := aggregate.ParseTies(o.Ties)
	if err != nil {
		return nil, engineKey{}, err
	}
	entities, err := aggregate.ParseEntities(o.Entities)
	if err != nil {
		return nil, engineKey{}, err
	}
	if gain == "" {
		gain = aggregate.DefaultGain(kind)
	}
	if entities == "" {
		entities = aggregate.DefaultEntities(kind)
	}
	key := engineKey{kind: kind, normalize: o.Normalize == nil || *o.Normalize, gain: gain, first: 0, last: m.m.Slices - 1,
		ties: ties, entities: entities}
	opt := aggregate.Options{Normalize: key.normalize, Gain: gain, Ties: ties, Entities: entities}
	if o.Window != nil {
		if kind != aggregate.KindSpatial {
			return nil, engineKey{}, errs.Argument("window", "only the spatial kind aggregates over a window of slices; build the model on a shorter window (Trace.micro(start=, end=)) instead")
		}
		key.first, key.last = o.Window[0], o.Window[1]
		opt.Window = &aggregate.Window{First: key.first, Last: key.last}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if e := m.engines[key]; e != nil {
		return e, key, nil
	}
	e, err := aggregate.New(kind, m.in, opt)
	if err != nil {
		return nil, engineKey{}, err
	}
	if m.engines == nil {
		m.engines = map[engineKey]aggregate.Engine{}
	}
	m.engines[key] = e
	return e, key, nil
}

// Aggregate computes the optimal spatiotemporal partition for p.
func (m *MicroModel) Aggregate(p float64, options string) (a *Aggregation, err error) {
	defer guard(&err)
	e, _, err := m.engine(options)
	if err != nil {
		return nil, err
	}
	part, err := e.Solve(p)
	if err != nil {
		return nil, err
	}
	return &Aggregation{model: m, part: part, kind: e.Kind()}, nil
}

// controlledSolver is an engine whose single solve can be followed and
// stopped (the spatiotemporal one: seconds on a million resources).
type controlledSolver interface {
	SolveControl(p float64, ctl *aggregate.Control) (*aggregate.Partition, error)
}

// StartAggregate computes Aggregate's partition on a goroutine of its own
// (see Work), so that Python shows its progress (the part of the hierarchy
// solved) and stops it on Ctrl-C; Work.Aggregation then returns it.
func (m *MicroModel) StartAggregate(p float64, options string) (w *Work, err error) {
	defer guard(&err)
	e, _, err := m.engine(options) // bad options fail at once
	if err != nil {
		return nil, err
	}
	var out *Aggregation
	w = startWork(func(ctl *aggregate.Control) error {
		var part *aggregate.Partition
		var err error
		if c, ok := e.(controlledSolver); ok {
			part, err = c.SolveControl(p, ctl)
		} else {
			part, err = e.Solve(p)
		}
		if err == nil {
			out = &Aggregation{model: m, part: part, kind: e.Kind()}
		}
		return err
	})
	w.result = func() any { return out }
	return w, nil
}

type significantOptions struct {
	Method    string  `json:"method"`
	Threshold float64 `json:"threshold"`
	Recommend string  `json:"recommend"`
}

// significant returns the distinct optimal partitions the options ask
// for (kept, since sweeps are the expensive part), the engine, and the
// index of the recommended one.
func (m *MicroModel) significant(options string) ([]aggregate.Level, aggregate.Engine, int, error) {
	return m.significantControl(options, nil)
}

// StartSignificant starts the significant-p search the options ask for
// on a goroutine of its own (see Work); once it is done, SignificantP and
// PlotQuality with the same options find its levels at once. A canceled
// search keeps nothing.
func (m *MicroModel) StartSignificant(options string) (w *Work, err error) {
	defer guard(&err)
	// Bad options fail at once, not in the background.
	o := significantOptions{Method: "exact", Threshold: 1e-3, Recommend: aggregate.RuleKnee}
	if err := decodeOptions(options, &o); err != nil {
		return nil, err
	}
	if _, _, err := m.engine(options); err != nil {
		return nil, err
	}
	return startWork(func(ctl *aggregate.Control) error {
		_, _, _, err := m.significantControl(options, ctl)
		return err
	}), nil
}

// significantControl is significant, followed and stopped through ctl.
func (m *MicroModel) significantControl(options string, ctl *aggregate.Control) ([]aggregate.Level, aggregate.Engine, int, error) {
	o := significantOptions{Method: "exact", Threshold: 1e-3, Recommend: aggregate.RuleKnee}
	if err := decodeOptions(options, &o); err != nil {
		return nil, nil, 0, err
	}
	if _, _, err := aggregate.Recommend(nil, o.Recommend, 1, 1); err != nil {
		return nil, nil, 0, err // before the sweep, which may take a while
	}
	if o.Method != "exact" && o.Method != "dichotomy" {
		return nil, nil, 0, errs.Argument("method", "must be \"exact\" or \"dichotomy\", got %q", o.Method)
	}
	e, key, err := m.engine(options)
	if err != nil {
		return nil, nil, 0, err
	}
	lk := levelsKey{key, o.Method, o.Threshold}
	m.mu.Lock()
	levels, ok := m.levels[lk]
	m.mu.Unlock()
	if !ok {
		// Only the levels' measures are kept: a sweep may find thousands of
		// partitions, and Aggregate solves any of them again.
		if o.Method == "exact" {
			levels, err = aggregate.SignificantCompactControl(e, o.Threshold, ctl)
		} else {
			levels, err = aggregate.SignificantDichotomyControl(e, o.Threshold, ctl)
			for _, l := range levels {
				l.Partition.NumParts, l.Partition.Parts = len(l.Partition.Parts), nil
			}
		}
		if err != nil {
			return nil, nil, 0, err
		}
		m.mu.Lock()
		if m.levels == nil {
			m.levels = map[levelsKey][]aggregate.Level{}
		}
		m.levels[lk] = levels
		m.mu.Unlock()
	}
	g0, l0 := e.Scale()
	rec, _, err := aggregate.Recommend(levels, o.Recommend, g0, l0)
	if err != nil {
		return nil, nil, 0, err
	}
	return levels, e, rec, nil
}

// StartRecommended finds the level the options' recommendation picks
// among the significant levels on a goroutine of its own (see Work);
// Recommended then returns it at once. RuleKnee with the exact method
// needs no sweep (aggregate.Knee: a handful of solves, the same level); the
// other searches run the sweep, as StartSignificant.
func (m *MicroModel) StartRecommended(options string) (w *Work, err error) {
	defer guard(&err)
	o := significantOptions{Method: "exact", Threshold: 1e-3, Recommend: aggregate.RuleKnee}
	if err := decodeOptions(options, &o); err != nil {
		return nil, err
	}
	if _, _, err := m.engine(options); err != nil {
		return nil, err
	}
	if _, _, err := aggregate.Recommend(nil, o.Recommend, 1, 1); err != nil {
		return nil, err
	}
	return startWork(func(ctl *aggregate.Control) error {
		_, err := m.recommendedControl(options, ctl)
		return err
	}), nil
}

// recommendedControl is the level the options recommend, found, or taken
// from what is kept, through ctl.
func (m *MicroModel) recommendedControl(options string, ctl *aggregate.Control) (aggregate.Level, error) {
	o := significantOptions{Method: "exact", Threshold: 1e-3, Recommend: aggregate.RuleKnee}
	if err := decodeOptions(options, &o); err != nil {
		return aggregate.Level{}, err
	}
	e, key, err := m.engine(options)
	if err != nil {
		return aggregate.Level{}, err
	}
	lk := levelsKey{key, o.Method, o.Threshold}
	m.mu.Lock()
	_, swept := m.levels[lk]
	knee, found := m.knees[lk]
	m.mu.Unlock()
	if found && o.Recommend == aggregate.RuleKnee {
		return knee, nil
	}
	if swept || o.Method != "exact" || o.Recommend != aggregate.RuleKnee {
		levels, _, rec, err := m.significantControl(options, ctl)
		if err != nil {
			return aggregate.Level{}, err
		}
		return levels[rec], nil
	}
	g0, l0 := e.Scale()
	if knee, err = aggregate.Knee(e, o.Threshold, g0, l0, ctl); err != nil {
		return aggregate.Level{}, err
	}
	m.mu.Lock()
	if m.knees == nil {
		m.knees = map[levelsKey]aggregate.Level{}
	}
	m.knees[lk] = knee
	m.mu.Unlock()
	return knee, nil
}

// Recommended returns, as JSON, the level the options recommend (p_low,
// p_high, gain, loss, aggregates), found by StartRecommended or by the
// sweep.
func (m *MicroModel) Recommended(options string) (js string, err error) {
	defer guard(&err)
	l, err := m.recommendedControl(options, nil)
	if err != nil {
		return "", err
	}
	return toJSON(map[string]any{"p_low": l.PLow, "p_high": l.PHigh, "gain": l.Partition.Gain,
		"loss": l.Partition.Loss, "aggregates": l.Partition.NumParts})
}

// SignificantP exports the table of distinct optimal partitions.
func (m *MicroModel) SignificantP(options string, addr uintptr) (err error) {
	defer guard(&err)
	levels, _, rec, err := m.significant(options)
	if err != nil {
		return err
	}
	return export(arrowio.LevelsTable(levels, rec, cmem), addr)
}

type qualityPlotOptions struct {
	plotOptions
	LogP bool `json:"log_p"`
}

// PlotQuality draws the quality curves (gain and loss of the optimal
// partition against p) of the significant-p search the options ask for,
// and returns the image file's bytes.
func (m *MicroModel) PlotQuality(options string) (img []byte, err error) {
	defer guard(&err)
	o := qualityPlotOptions{plotOptions: plotOptions{Format: "png"}}
	f, err := decodePlotOptions(options, &o, &o.Format)
	if err != nil {
		return nil, err
	}
	levels, e, rec, err := m.significant(options)
	if err != nil {
		return nil, err
	}
	g0, l0 := e.Scale()
	return plots.QualityCurves(levels, g0, l0, plots.QualityOptions{
		Width: vg.Length(o.Width), Height: vg.Length(o.Height), Format: f, Title: titled(o.Title, m.incomplete),
		Recommended: (levels[rec].PLow + levels[rec].PHigh) / 2, LogP: o.LogP,
	})
}

// Aggregation is an optimal partition of a model.
type Aggregation struct {
	model *MicroModel
	part  *aggregate.Partition
	kind  aggregate.Kind
}

// Info describes the partition as JSON: p, gain, loss, pIC, aggregates.
func (a *Aggregation) Info() (js string, err error) {
	defer guard(&err)
	return toJSON(map[string]any{
		"p": a.part.P, "gain": a.part.Gain, "loss": a.part.Loss, "pic": a.part.Value,
		"aggregates": len(a.part.Parts), "kind": string(a.kind), "incomplete": a.model.incomplete,
	})
}

// Table exports the aggregates.
func (a *Aggregation) Table(addr uintptr) (err error) {
	defer guard(&err)
	return export(arrowio.PartitionTable(a.model.m, a.model.in, a.part, cmem), addr)
}

// StartTable starts Table as a Work whose Export gives the table, so that
// Ctrl-C stops the table of a fine partition (millions of aggregates).
func (a *Aggregation) StartTable() (w *Work, err error) {
	defer guard(&err)
	return startTable(func(cancel <-chan struct{}) (arrow.RecordBatch, error) {
		return arrowio.PartitionTableCancel(a.model.m, a.model.in, a.part, cmem, cancel)
	}), nil
}

type plotOptions struct {
	Width  float64 `json:"width"`  // points
	Height float64 `json:"height"` // points
	Format string  `json:"format"`
	Title  string  `json:"title"`
	// Colors maps state names to colours (colors=), over the trace's.
	Colors map[string]string `json:"colors"`
}

// colors resolves the colours of the model's states for a figure.
func (m *MicroModel) colors(override map[string]string) (plots.ColorMap, error) {
	return plots.ResolveColors(m.m.States, m.m.Colors, override)
}

// StartPlot starts drawing the overview figure: a Work whose Image is
// the image file's bytes, so that Ctrl-C stops the drawing.
func (a *Aggregation) StartPlot(options string) (w *Work, err error) {
	defer guard(&err)
	o := plotOptions{Format: "png"}
	f, err := decodePlotOptions(options, &o, &o.Format)
	if err != nil {
		return nil, err
	}
	colors, err := a.model.colors(o.Colors)
	if err != nil {
		return nil, err
	}
	var img []byte
	w = startWork(func(ctl *aggregate.Control) error {
		drawn, err := plots.Overview(a.model.m, a.model.in, a.part, plots.OverviewOptions{
			Width: vg.Length(o.Width), Height: vg.Length(o.Height), Format: f, Title: titled(o.Title, a.model.incomplete),
			Colors: colors, Keep: named(o.Colors), Cancel: ctl.Cancel,
		})
		img = drawn
		return err
	})
	w.result = func() any { return img }
	return w, nil
}

// named is the set of the states a user gave a colour: figures draw them
// in it however many states the model has.
func named(override map[string]string) map[string]bool {
	out := make(map[string]bool, len(override))
	for name := range override {
		out[name] = true
	}
	return out
}
