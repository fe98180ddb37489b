package pybind

import (
	"errors"
	"math"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"gonum.org/v1/plot/vg"

	"github.com/macroscope-hpc/macroscope/arrowio"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
	"github.com/macroscope-hpc/macroscope/core/views/compare"
	"github.com/macroscope-hpc/macroscope/plots"
)

// compareOptions are ms.compare's options (compare.Options).
type compareOptions struct {
	Slices  int    `json:"slices"`
	Align   string `json:"align"`
	Length  string `json:"length"`
	Markers *struct {
		Name     string `json:"name"`
		By       string `json:"by"`
		Resource string `json:"resource"`
	} `json:"markers"`
	RunLevel      string   `json:"run_level"`
	Match         string   `json:"match"`
	Reference     int      `json:"reference"`
	StateTypes    []string `json:"state_types"`
	Types         []string `json:"types"`
	Depth         *int     `json:"depth"`
	Key           string   `json:"key"`
	ProfilerSpans bool     `json:"profiler_spans"`
	MemoryBudget  int64    `json:"memory_budget"`
	// Start and End: seconds from each run's start (compare.Options).
	Start *float64 `json:"start"`
	End   *float64 `json:"end"`
}

func parseCompareOptions(js string) (compare.Options, error) {
	o := compareOptions{Slices: 100}
	if err := decodeOptions(js, &o); err != nil {
		return compare.Options{}, err
	}
	method, err := compare.ParseMethod(o.Align)
	if err != nil {
		return compare.Options{}, err
	}
	length, err := compare.ParseLength(o.Length)
	if err != nil {
		return compare.Options{}, err
	}
	placement, err := compare.ParsePlacement(o.RunLevel)
	if err != nil {
		return compare.Options{}, err
	}
	match, err := compare.ParseMatch(o.Match)
	if err != nil {
		return compare.Options{}, err
	}
	if _, err := micro.ParseKey(o.Key); err != nil {
		return compare.Options{}, err
	}
	opt := compare.Options{Slices: o.Slices, Align: compare.Align{Method: method, Length: length}, Placement: placement,
		Match: match, Reference: o.Reference, Model: micro.Options{StateTypes: o.StateTypes, Types: o.Types,
			Depth: micro.Innermost, Key: micro.Key(o.Key), MemoryBudget: o.MemoryBudget, ProfilerSpans: o.ProfilerSpans}}
	if o.Depth != nil {
		opt.Model.Depth = *o.Depth
	}
	if opt.Start, err = seconds("start", o.Start); err != nil {
		return compare.Options{}, err
	}
	if opt.End, err = seconds("end", o.End); err != nil {
		return compare.Options{}, err
	}
	if o.Markers != nil {
		opt.Align.Markers = compare.MarkerSpec{Name: o.Markers.Name, By: o.Markers.By, Resource: o.Markers.Resource}
	}
	return opt, nil
}

// runSource is how a run of a comparison is read again (for its
// operations): a file and its reader's options, or a trace in memory.
type runSource struct {
	path    string
	options string
	trace   *Trace
}

// CompareBuilder gathers the runs of a comparison (AddPath, AddTrace,
// AddModel), then builds it (Start): the runs are read one after the
// other, never held together.
type CompareBuilder struct {
	options string
	inputs  []compare.Input
	sources []runSource
}

// NewCompareBuilder starts a comparison with ms.compare's options (JSON),
// checked at once.
func NewCompareBuilder(options string) (b *CompareBuilder, err error) {
	defer guard(&err)
	if _, err := parseCompareOptions(options); err != nil {
		return nil, err
	}
	return &CompareBuilder{options: options}, nil
}

// runMeta decodes a run's name, label and metadata.
type runMeta struct {
	Name  string            `json:"name"`
	Label string            `json:"label"`
	Meta  map[string]string `json:"meta"`
}

func (b *CompareBuilder) add(meta string, in compare.Input, src runSource) error {
	var m runMeta
	if err := decodeOptions(meta, &m); err != nil {
		return err
	}
	in.Name, in.Label, in.Meta = m.Name, m.Label, m.Meta
	b.inputs = append(b.inputs, in)
	b.sources = append(b.sources, src)
	return nil
}

// AddPath adds the trace at path, read with the reader options (JSON,
// with "format"): opened now (a missing file fails at once), read when
// the comparison is built.
func (b *CompareBuilder) AddPath(path, readOptions, meta string) (err error) {
	defer guard(&err)
	src, _, err := openTrace(path, readOptions)
	if err != nil {
		return err
	}
	return b.add(meta, compare.Input{Source: src}, runSource{path: path, options: readOptions})
}

// AddTrace adds a trace in memory.
func (b *CompareBuilder) AddTrace(t *Trace, meta string) (err error) {
	defer guard(&err)
	return b.add(meta, compare.Input{Trace: t.t}, runSource{trace: t})
}

// AddModel adds a model already built (stretch alignment only).
func (b *CompareBuilder) AddModel(m *MicroModel, meta string) (err error) {
	defer guard(&err)
	return b.add(meta, compare.Input{Model: m.m}, runSource{})
}

// Start builds the comparison on a goroutine of its own (see Work; its
// progress counts the runs read); Work.Comparison returns it.
func (b *CompareBuilder) Start() (w *Work, err error) {
	defer guard(&err)
	opt, err := parseCompareOptions(b.options)
	if err != nil {
		return nil, err
	}
	var out *Comparison
	w = startWork(func(ctl *aggregate.Control) error {
		opt.Progress = func(done, total int) { ctl.Progress(done, float64(done)/float64(total)) }
		notes := &trace.Notes{}
		var set *compare.Set
		err := readGuarded("", func() (err error) {
			set, err = compare.Build(b.inputs, opt, trace.ReadOptions{Cancel: ctl.Cancel, Notes: notes})
			return err
		})
		if errors.Is(err, trace.ErrCanceled) {
			return aggregate.ErrCanceled
		}
		if err != nil {
			return err
		}
		m := set.Model()
		out = &Comparison{set: set, sources: b.sources,
			model: &MicroModel{m: m, in: set.Input(), summary: map[string]any{"compare": true}}}
		for _, r := range set.Runs {
			for _, n := range r.Notes {
				out.warnings = append(out.warnings, r.Name+": "+n)
			}
		}
		return nil
	})
	w.result = func() any { return out }
	return w, nil
}

// Comparison waits for the end of a CompareBuilder's work and returns the
// comparison, or its error.
func (w *Work) Comparison() (c *Comparison, err error) {
	defer guard(&err)
	if err := w.Err(); err != nil {
		return nil, err
	}
	if c, ok := w.result().(*Comparison); ok && c != nil {
		return c, nil
	}
	return nil, errors.New("this work builds no comparison")
}

// Comparison is the model of several runs (compare.Set) and its model
// with the run as a level, whose engines it shares with Python's
// MicroModel.
type Comparison struct {
	set      *compare.Set
	model    *MicroModel
	sources  []runSource
	warnings []string
	mu       sync.Mutex
	ops      map[int]*compare.OpsSummary
}

// Info describes the comparison as JSON.
func (c *Comparison) Info() (js string, err error) {
	defer guard(&err)
	s := c.set
	runs := make([]map[string]any, len(s.Runs))
	for i, r := range s.Runs {
		runs[i] = map[string]any{"name": r.Name, "label": r.Label, "duration": r.Duration(), "resources": r.Resources,
			"missing": r.Missing, "files": r.Files}
	}
	return toJSON(map[string]any{
		"runs": runs, "reference": s.Reference, "slices": s.Slices, "start": s.Start.Seconds(), "end": s.End.Seconds(),
		"origin": s.Origin().Seconds(), "states": s.States, "resources": len(s.Resources.Leaves), "align": string(s.Align.Method),
		"run_level": string(s.Placement), "warnings": c.warnings, "align_reason": s.AlignReason,
		"left_out": s.LeftOutNote("profiler_spans=True"),
	})
}

// Model returns the comparison's model with the run as a level.
func (c *Comparison) Model() (m *MicroModel, err error) {
	defer guard(&err)
	return c.model, nil
}

// Runs exports the runs table (arrowio.RunsTable).
func (c *Comparison) Runs(addr uintptr) (err error) {
	defer guard(&err)
	return export(arrowio.RunsTable(c.set, cmem), addr)
}

// ResourceHierarchy exports the union hierarchy of the runs (one row per
// node, with its rows in the aligned overviews).
func (c *Comparison) ResourceHierarchy(addr uintptr) (err error) {
	defer guard(&err)
	return export(arrowio.HierarchyTable(c.set.RunModel(c.set.Reference), cmem), addr)
}

// RunModel returns run r's cells on the union hierarchy and the common
// axis, as a model of its own (for the explorers, one per run).
func (c *Comparison) RunModel(r int) (m *MicroModel, err error) {
	defer guard(&err)
	if r < 0 || r >= c.set.NumRuns() {
		return nil, errs.Argument("run", "no run %d among %d", r, c.set.NumRuns())
	}
	rm := c.set.RunModel(r)
	return &MicroModel{m: rm, in: aggregate.Input{Tree: rm.Tree, Slices: rm.Slices, States: len(rm.States), Values: rm.Values}}, nil
}

// differencesOptions choose the rows of a differences table and its test.
type differencesOptions struct {
	P            *float64 `json:"p"`
	Rows         string   `json:"rows"` // "nodes" (default), "aggregates", "hierarchy"
	Phases       any      `json:"phases"`
	Rank         string   `json:"rank"`
	Top          int      `json:"top"`
	Normalize    *bool    `json:"normalize"`
	Permutations int      `json:"permutations"`
	Alpha        float64  `json:"alpha"`
	Block        int      `json:"block"`
	Seed         uint64   `json:"seed"`
}

// StartDifferences computes a differences table on a goroutine of its
// own (see Work); Work.Differences returns it.
func (c *Comparison) StartDifferences(options string) (w *Work, err error) {
	defer guard(&err)
	o := differencesOptions{Rows: "nodes"}
	if err := decodeOptions(options, &o); err != nil {
		return nil, err
	}
	rank, err := compare.ParseRank(o.Rank)
	if err != nil {
		return nil, err
	}
	if o.Rows != "nodes" && o.Rows != "aggregates" && o.Rows != "hierarchy" {
		return nil, errs.Argument("rows", `must be "nodes", "aggregates" or "hierarchy", got %q`, o.Rows)
	}
	if o.Rows != "hierarchy" && o.P == nil {
		return nil, errs.Argument("p", "the rows of a level need its p")
	}
	if o.P != nil && !(*o.P >= 0 && *o.P <= 1) {
		return nil, errs.Argument("p", "must be in [0, 1], got %v", *o.P)
	}
	engineOpts := `{"normalize": true}`
	if o.Normalize != nil && !*o.Normalize {
		engineOpts = `{"normalize": false}`
	}
	e, _, err := c.model.engine(engineOpts)
	if err != nil {
		return nil, err
	}
	var out *Differences
	w = startWork(func(ctl *aggregate.Control) error {
		var rows []compare.Row
		var part *aggregate.Partition
		if o.P != nil {
			var err error
			if cs, ok := e.(controlledSolver); ok {
				part, err = cs.SolveControl(*o.P, ctl)
			} else {
				part, err = e.Solve(*o.P)
			}
			if err != nil {
				return err
			}
		}
		switch o.Rows {
		case "aggregates":
			rows = c.set.PartitionRows(part)
		case "nodes":
			rows = compare.NodesOf(c.set.PartitionRows(part))
		default:
			phases, err := c.phases(o.Phases, part)
			if err != nil {
				return err
			}
			if rows, err = c.set.NodeRows(phases); err != nil {
				return err
			}
		}
		tab, err := c.set.Differences(rows, compare.TableOptions{Rank: rank, Top: o.Top, Cancel: ctl.Cancel, Test: compare.TestOptions{
			Permutations: o.Permutations, Alpha: o.Alpha, Block: o.Block, Seed: o.Seed}})
		if err != nil {
			return err
		}
		out = &Differences{c: c, tab: tab, rows: rows, p: math.NaN(), kind: o.Rows}
		if o.P != nil {
			out.p = *o.P
		}
		return nil
	})
	w.result = func() any { return out }
	return w, nil
}

// phases reads the phases of hierarchy rows: null (the whole window), an
// integer k (k equal phases), "level" (the time ranges the partition at
// p shares at the root), or a list of [first, last] slices.
func (c *Comparison) phases(v any, part *aggregate.Partition) ([]compare.Phase, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case float64:
		if x < 1 || x != math.Trunc(x) {
			return nil, errs.Argument("phases", "must be a positive number of phases, got %v", x)
		}
		return compare.EqualPhases(c.set.Slices, int(x)), nil
	case string:
		if x != "level" || part == nil {
			return nil, errs.Argument("phases", `"level" needs p; else give a number of phases or a list of [first, last] slices`)
		}
		return compare.PartitionPhases(part, c.set.Slices), nil
	case []any:
		var out []compare.Phase
		for _, item := range x {
			pair, ok := item.([]any)
			if !ok || len(pair) != 2 {
				return nil, errs.Argument("phases", "each phase must be [first, last] slices")
			}
			a, ok1 := pair[0].(float64)
			b, ok2 := pair[1].(float64)
			if !ok1 || !ok2 {
				return nil, errs.Argument("phases", "each phase must be [first, last] slices")
			}
			out = append(out, compare.Phase{First: int32(a), Last: int32(b)})
		}
		return out, nil
	}
	return nil, errs.Argument("phases", "must be None, a number, \"level\" or a list of [first, last] slices")
}

// Differences waits for the end of a StartDifferences work and returns
// its table, or its error.
func (w *Work) Differences() (d *Differences, err error) {
	defer guard(&err)
	if err := w.Err(); err != nil {
		return nil, err
	}
	if d, ok := w.result().(*Differences); ok && d != nil {
		return d, nil
	}
	return nil, errors.New("this work computes no differences table")
}

// Differences is a differences table of a comparison.
type Differences struct {
	c    *Comparison
	tab  *compare.Table
	rows []compare.Row // every row, in the partition's order (the figure's)
	p    float64
	kind string
}

// Info describes the table and its test as JSON.
func (d *Differences) Info() (js string, err error) {
	defer guard(&err)
	t := d.tab.Test
	p := any(d.p)
	if math.IsNaN(d.p) {
		p = nil
	}
	return toJSON(map[string]any{"p": p, "rows": d.kind, "count": len(d.tab.Rows), "total_score": d.tab.Total,
		"grouped": d.tab.Grouped, "groups": d.tab.Groups,
		"test": map[string]any{"method": t.Method, "exact": t.Exact, "labelings": t.Labelings, "p_min": t.PMin,
			"permutations": t.Permutations, "alpha": t.Alpha, "reported": t.Reported, "note": t.Note}})
}

// Table exports the differences table (arrowio.DifferencesTable).
func (d *Differences) Table(addr uintptr) (err error) {
	defer guard(&err)
	return export(arrowio.DifferencesTable(d.c.set, d.tab, cmem), addr)
}

// Proportions exports the long table of proportions (arrowio.ProportionsTable).
func (d *Differences) Proportions(addr uintptr) (err error) {
	defer guard(&err)
	return export(arrowio.ProportionsTable(d.c.set, d.tab, cmem), addr)
}

type comparePlotOptions struct {
	plotOptions
	Top  int   `json:"top"`
	Runs []int `json:"runs"`
}

// Plot draws the runs' aligned overviews with the table's rows (the
// footprints drawn in each run) and the rows reported (or, when none is,
// the first top rows) outlined by divergence.
func (d *Differences) Plot(options string) (img []byte, err error) {
	defer guard(&err)
	return d.plot(options, nil)
}

// StartPlot starts Plot as a Work, which Ctrl-C stops in each run's
// overview; Work.Image gives the image.
func (d *Differences) StartPlot(options string) (w *Work, err error) {
	defer guard(&err)
	var img []byte
	w = startWork(func(ctl *aggregate.Control) error {
		var err error
		img, err = d.plot(options, ctl.Cancel)
		return err
	})
	w.result = func() any { return img }
	return w, nil
}

// plot is Plot, stopped once cancel is closed.
func (d *Differences) plot(options string, cancel <-chan struct{}) ([]byte, error) {
	o := comparePlotOptions{plotOptions: plotOptions{Format: "png"}, Top: 10}
	f, err := decodePlotOptions(options, &o, &o.Format)
	if err != nil {
		return nil, err
	}
	colors, err := plots.ResolveColors(d.c.set.States, d.c.set.Colors, o.Colors)
	if err != nil {
		return nil, err
	}
	return plots.CompareOverview(d.c.set, d.drawnRows(), d.marked(o.Top), plots.CompareOptions{
		Width: vg.Length(o.Width), Height: vg.Length(o.Height), Format: f, Title: o.Title, Colors: colors, Runs: o.Runs,
		Cancel: cancel})
}

// drawnRows returns the rows the figure draws: the table's when they
// partition the model (a level's rows), else each run's own cells.
func (d *Differences) drawnRows() []compare.Row {
	if d.kind != "hierarchy" {
		return d.rows
	}
	var rows []compare.Row
	for _, n := range d.c.set.Resources.Leaves {
		for t := 0; t < d.c.set.Slices; t++ {
			rows = append(rows, compare.Row{Node: n, First: int32(t), Last: int32(t)})
		}
	}
	return rows
}

// marked returns the rows outlined: those reported, else the first top.
func (d *Differences) marked(top int) []compare.Difference {
	var out []compare.Difference
	for _, r := range d.tab.Rows {
		if r.Test.Reported {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		out = d.tab.Rows[:min(max(top, 0), len(d.tab.Rows))]
	}
	if top > 0 && len(out) > top {
		out = out[:top]
	}
	return out
}

// opsOptions select the operations compared (compare.OpsOptions).
type opsOptions struct {
	Control    int    `json:"control"`
	Test       int    `json:"test"`
	Iteration  any    `json:"iteration"` // null, "all", an integer or a list
	Device     string `json:"device"`
	ShortNames bool   `json:"short_names"`
}

// StartOps starts the export of HTA TraceDiff's per-operation table of
// two runs (arrowio.OpsTable) as a table work, which Ctrl-C stops while
// the runs' files are read again (each once, for its operations):
// Work.Export gives the table, Work.Warnings compare.Ops's warnings.
func (c *Comparison) StartOps(options string) (w *Work, err error) {
	defer guard(&err)
	return startWarnedTable(func(cancel <-chan struct{}) (arrow.RecordBatch, []string, error) {
		return c.opsTable(options, cancel)
	}), nil
}

// opsTable is the table of StartOps and compare.Ops's warnings, its reads
// stopped once cancel is closed.
func (c *Comparison) opsTable(options string, cancel <-chan struct{}) (arrow.RecordBatch, []string, error) {
	o := opsOptions{Control: c.set.Reference, Test: -1}
	if err := decodeOptions(options, &o); err != nil {
		return nil, nil, err
	}
	if o.Test < 0 {
		o.Test = 1
		if c.set.Reference == 1 {
			o.Test = 0
		}
	}
	R := c.set.NumRuns()
	if o.Control < 0 || o.Control >= R || o.Test < 0 || o.Test >= R {
		return nil, nil, errs.Argument("runs", "control and test must be run indices from 0 to %d", R-1)
	}
	opt := compare.OpsOptions{ShortNames: o.ShortNames, Device: compare.Device(o.Device)}
	switch it := o.Iteration.(type) {
	case nil:
	case string:
		if it != "all" {
			return nil, nil, errs.Argument("iteration", `must be None, "all", an iteration or a list of them, got %q`, it)
		}
		opt.All = true
	case float64:
		opt.Iterations = [2][]int64{{int64(it)}, {int64(it)}}
	case []any:
		var list []int64
		for _, v := range it {
			n, ok := v.(float64)
			if !ok {
				return nil, nil, errs.Argument("iteration", "a list of iteration numbers, got %v", v)
			}
			list = append(list, int64(n))
		}
		opt.Iterations = [2][]int64{list, list}
	default:
		return nil, nil, errs.Argument("iteration", `must be None, "all", an iteration or a list of them`)
	}
	a, err := c.opsOf(o.Control, cancel)
	if err != nil {
		return nil, nil, err
	}
	b, err := c.opsOf(o.Test, cancel)
	if err != nil {
		return nil, nil, err
	}
	ops, warned, err := compare.Ops(a, b, opt)
	if err != nil {
		return nil, nil, err
	}
	labels := [2]string{c.set.Runs[o.Control].Name, c.set.Runs[o.Test].Name}
	if labels[0] == labels[1] {
		labels[1] += "_test"
	}
	return arrowio.OpsTable(ops, labels, o.ShortNames, cmem), warned, nil
}

// opsOf returns run r's operations, reading it again the first time (a
// read that cancel stops, keeping nothing).
func (c *Comparison) opsOf(r int, cancel <-chan struct{}) (*compare.OpsSummary, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.ops[r]; ok {
		return s, nil
	}
	sink := compare.NewOpsSink()
	src := c.sources[r]
	switch {
	case src.trace != nil:
		return nil, errs.Argument("runs", "run %q was given as a trace in memory without its arguments; give its file to compare its operations", c.set.Runs[r].Name)
	case src.path == "":
		return nil, errs.Argument("runs", "run %q was given as a model: its operations need its trace file", c.set.Runs[r].Name)
	}
	opened, _, err := openTrace(src.path, src.options)
	if err != nil {
		return nil, err
	}
	if err := readGuarded(src.path, func() error { return opened.Read(sink, trace.ReadOptions{Cancel: cancel}) }); err != nil {
		return nil, err
	}
	if err := trace.Stopped(cancel); err != nil {
		return nil, err // the read may end before it looks
	}
	s := sink.Summary()
	s.File = src.path
	if c.ops == nil {
		c.ops = map[int]*compare.OpsSummary{}
	}
	c.ops[r] = s
	return s, nil
}

// CompareSeries gathers the summaries of the runs of a series against a
// reference model (compare.Summarize), one run at a time.
type CompareSeries struct {
	ref  *micro.Model
	opt  compare.SeriesOptions
	mu   sync.Mutex
	rows []*compare.SeriesRow
}

type seriesOptions struct {
	Match        string `json:"match"`
	Permutations int    `json:"permutations"`
	Seed         uint64 `json:"seed"`
}

// NewCompareSeries starts a series against the reference model.
func NewCompareSeries(ref *MicroModel, options string) (s *CompareSeries, err error) {
	defer guard(&err)
	o := seriesOptions{}
	if err := decodeOptions(options, &o); err != nil {
		return nil, err
	}
	match, err := compare.ParseMatch(o.Match)
	if err != nil {
		return nil, err
	}
	if metricOf(ref.m) != micro.StateDuration {
		return nil, errs.Argument("reference", "runs are compared on state durations, not %s", metricOf(ref.m))
	}
	return &CompareSeries{ref: ref.m, opt: compare.SeriesOptions{Match: match, Test: compare.TestOptions{Permutations: o.Permutations, Seed: o.Seed}}}, nil
}

// AddModel summarises a run given as its model (of the reference's
// slices, over its own extent); meta is its name, label and metadata.
func (s *CompareSeries) AddModel(m *MicroModel, meta string) (err error) {
	defer guard(&err)
	var rm runMeta
	if err := decodeOptions(meta, &rm); err != nil {
		return err
	}
	files, _ := m.summary["files"].([]string)
	row, err := compare.Summarize(compare.Input{Name: rm.Name, Label: rm.Label, Meta: rm.Meta, Model: m.m}, s.ref, s.opt)
	if err != nil {
		return err
	}
	if len(row.Files) == 0 {
		row.Files = files
	}
	s.mu.Lock()
	s.rows = append(s.rows, row)
	s.mu.Unlock()
	return nil
}

// AddPOP adds the factors of a one-run POP analysis to the last run's
// row (pop.Factors.RunSummary), as "pop:<factor>" columns.
func (s *CompareSeries) AddPOP(a *Analysis) (err error) {
	defer guard(&err)
	if a.pop == nil || len(a.pop.Runs) != 1 {
		return errs.Argument("analysis", "a %s result is not the POP analysis of one run", a.kind)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.rows) == 0 {
		return errs.Argument("analysis", "no run to add it to")
	}
	row := s.rows[len(s.rows)-1]
	for _, f := range a.pop.RunSummary(0) {
		row.Measures = append(row.Measures, compare.Measure{Name: "pop:" + f.Key, Value: f.Values[0]})
	}
	return nil
}

// Table exports the series table (arrowio.SeriesTable).
func (s *CompareSeries) Table(addr uintptr) (err error) {
	defer guard(&err)
	s.mu.Lock()
	defer s.mu.Unlock()
	return export(arrowio.SeriesTable(s.rows, cmem), addr)
}
