package compare

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/hier"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
)

// The categories a comparison adds to the runs' states, so that every cell
// of every run sums to 1 (complete cells, docs/compare.md): a present
// resource's time in no state is Idle; a resource a run does not have, or
// time outside a run's aligned extent, is Absent. Absent is never zero:
// an absent resource against a present one differs by H(pi) bits (1 bit
// for two runs).
const (
	Idle   = "(idle)"
	Absent = "(absent)"
)

// Placement says where the run goes in the hierarchy of the comparison's
// model.
type Placement string

const (
	// UnderResource puts a leaf per run under every resource: the
	// aggregation keeps runs apart resource by resource, where they
	// differ, and merges them (with their resources) where they agree.
	// The default.
	UnderResource Placement = "resource"
	// AtTop puts the runs at the top, each over a copy of the union of
	// the hierarchies: each run gets its own optimal partition at the same
	// p, and runs merge only as whole systems.
	AtTop Placement = "top"
)

// ParsePlacement reads a placement name; empty is UnderResource.
func ParsePlacement(s string) (Placement, error) {
	switch p := Placement(strings.ToLower(strings.TrimSpace(s))); p {
	case UnderResource, AtTop:
		return p, nil
	case "":
		return UnderResource, nil
	}
	return "", errs.Argument("run_level", "unknown placement %q (use %q or %q)", s, UnderResource, AtTop)
}

// Match says how the resources of the runs are matched.
type Match string

const (
	// ByName matches resources by their path of names from the root and,
	// where the names of a node's children differ only by the numbers in
	// them (process and thread ids, a GPU's index in its job) and no
	// child of that pattern has the same name in both runs, pairs them in
	// order (see matchByName). The default.
	ByName Match = "auto"
	// ByPath matches resources by their path of names from the root.
	ByPath Match = "path"
	// ByPosition matches the k-th child of every node: for runs whose
	// host names or process ids differ.
	ByPosition Match = "position"
)

// ParseMatch reads a matching name; empty is ByName.
func ParseMatch(s string) (Match, error) {
	switch m := Match(strings.ToLower(strings.TrimSpace(s))); m {
	case ByName, ByPath, ByPosition:
		return m, nil
	case "":
		return ByName, nil
	}
	return "", errs.Argument("match", "unknown matching %q (use %q, %q or %q)", s, ByName, ByPath, ByPosition)
}

// Input is one run to compare, given as a trace to read while it is
// modelled (Source: never held in memory), a trace in memory (Trace), or
// a model already built (Model: its window and slices are its own, so
// only Stretch alignment applies).
type Input struct {
	Name   string            // unique; empty: "run <i>"
	Label  string            // the run's group (repetitions share one); empty: its name
	Meta   map[string]string // what the user knows of the run (for series)
	Source *ingest.Source
	Trace  *trace.Trace
	Model  *micro.Model
}

// files are the files the run was read from, when known.
func (in Input) files() []string {
	switch {
	case in.Trace != nil:
		return in.Trace.Files
	case in.Source != nil:
		return in.Source.Files
	}
	return nil
}

// Options choose the comparison's model.
type Options struct {
	Slices    int // 0 means 100
	Align     Align
	Placement Placement
	Match     Match
	// Model has the model options of every run (StateTypes, Types, Depth,
	// Key, MemoryBudget); its Slices, Start, End and Metric are set by
	// the comparison (state durations only: complete cells need them).
	Model micro.Options
	// Reference is the run the deltas and the outlier column compare to.
	Reference int
	// Start and End, when set, restrict the comparison to a window: times
	// counted from each run's first instant (Stretch, Start: as a model of
	// one trace counts them, micro.Options.Relative) or from the earliest
	// run's (Absolute); nil is the run's own start or end (Stretch), 0 or
	// the Length (Start), the earliest start or latest end (Absolute).
	// They give a run without duration (every event at one instant) the
	// window it needs. Markers alignment takes none.
	Start, End *trace.Time
	// Progress, if set, is called after each run is read: runs done and
	// runs in all (reads of the extent or markers first count too).
	Progress func(done, total int)
}

// Run is what a comparison knows of one of its runs.
type Run struct {
	Name, Label string
	Meta        map[string]string
	Files       []string
	// Start and End are the trace's first and last instants; WindowStart
	// and WindowEnd the part of its time the model covers (Start and End
	// for Stretch; Markers: the first and last common marker boundaries).
	Start, End             trace.Time
	WindowStart, WindowEnd trace.Time
	// SliceSeconds is the length, in the run's own seconds, of each
	// slice: equal but for Markers alignment.
	SliceSeconds []float64
	// Resources counts the run's own resources; Missing those of the
	// union it does not have; Matched counts the nodes of its hierarchy
	// matched to another run's by the pattern of their names (ByName), but
	// for those under a node so matched.
	Resources, Missing, Matched int
	// Markers lists the instants (trace time) that cut the run into the
	// segments of Markers alignment, MarkerResource the container they
	// were read on and DroppedMarkers the markers other runs lack.
	Markers        []trace.Time
	MarkerResource string
	DroppedMarkers int
	// States counts the state intervals read (0 for a model given).
	States int64
	// Notes are what the reader skipped or found missing.
	Notes []string
	// LeftOut and LeftOutRows are what the run's model left out of the
	// profiler's spans (micro.Model's): the joint model has no place for
	// them, and a person is told (Set.LeftOutNote).
	LeftOut     []micro.LeftOut
	LeftOutRows int
}

// LeftOutNote is the sentence that tells a person what the runs' models
// left out of the profiler's spans, said once for all the runs (each
// kind's names together, its time summed over the runs), and how to keep
// them (keep: `--profiler-spans`, `profiler_spans=True`); "" when nothing
// was.
func (s *Set) LeftOutNote(keep string) string {
	var all micro.Model // the runs' spans as one model's, for micro's sentence
	all.Metric = micro.StateDuration
	runs := 0
	for _, r := range s.Runs {
		if len(r.LeftOut) > 0 || r.LeftOutRows > 0 {
			runs++
		}
		all.LeftOutRows += r.LeftOutRows
		for _, l := range r.LeftOut {
			k := slices.IndexFunc(all.LeftOut, func(a micro.LeftOut) bool { return a.Role == l.Role })
			if k < 0 {
				all.LeftOut = append(all.LeftOut, micro.LeftOut{Role: l.Role, Time: []float64{0}}) // the sum alone
				k = len(all.LeftOut) - 1
			}
			a := &all.LeftOut[k]
			for _, n := range l.Names {
				if !slices.Contains(a.Names, n) {
					a.Names = append(a.Names, n)
				}
			}
			a.Time[0] += l.Total()
		}
	}
	n := all.LeftOutNote(keep)
	if n == "" || len(s.Runs) == 1 {
		return n
	}
	return fmt.Sprintf("%d of the %d runs, their times summed: %s", runs, len(s.Runs), n)
}

// SeriesLeftOutNote is Set.LeftOutNote for the rows of a series (each
// run compared alone with the reference): said once for all the runs.
func SeriesLeftOutNote(rows []*SeriesRow, keep string) string {
	set := &Set{Runs: make([]Run, len(rows))}
	for i, r := range rows {
		set.Runs[i].LeftOut, set.Runs[i].LeftOutRows = r.LeftOut, r.LeftOutRows
	}
	return set.LeftOutNote(keep)
}

// Duration returns the run's extent in seconds.
func (r *Run) Duration() float64 { return (r.End - r.Start).Seconds() }

// Set is the model of a comparison: the runs' microscopic models on one
// time axis (Align) and one hierarchy (the union of theirs, matched by
// Match), with complete cells, laid out as one microscopic model whose
// hierarchy has the run as a level (Placement).
type Set struct {
	Runs      []Run
	Reference int
	// Resources is the union of the runs' hierarchies; a leaf is a
	// resource (of at least one run).
	Resources *hier.Tree
	// States are the categories: the runs' states (union by name, in the
	// order they are first seen), then Idle and Absent when some cell has
	// them.
	States []string
	Colors []string
	Slices int
	// Start and End bound the common time axis: the reference run's
	// window (Stretch, Markers: slice k of every run is drawn there),
	// [0, length] (Start) or the trace times (Absolute).
	Start, End trace.Time
	Align      Align
	// AlignReason says why Auto chose Align.Method ("" when it was given).
	AlignReason string
	Placement   Placement
	// Present tells, by run and resource leaf, whether the run has the
	// resource.
	Present [][]bool
	// Tree is the hierarchy of the model (with the run level); its node n
	// is resource node NodeResource[n] of run NodeRun[n] (-1: every run).
	Tree         *hier.Tree
	NodeResource []int32
	NodeRun      []int32
	// Values holds the cells at [(leaf*Slices+slice)*len(States)+state]
	// over Tree's leaves, as aggregate.Input wants them.
	Values []float64

	idle, absent int // indices of Idle and Absent in States, -1 if absent
}

// Input returns the model for the aggregation engines.
func (s *Set) Input() aggregate.Input {
	return aggregate.Input{Tree: s.Tree, Slices: s.Slices, States: len(s.States), Values: s.Values}
}

// Model returns the comparison's model as a microscopic model (sharing
// its values), for the views and figures of one model.
func (s *Set) Model() *micro.Model {
	containers := make([]int32, s.Tree.Len())
	for i := range containers {
		containers[i] = trace.None
	}
	return &micro.Model{Tree: s.Tree, Container: containers, States: s.States, Colors: s.Colors,
		Metric: micro.StateDuration, Slices: s.Slices, Start: s.Start, End: s.End, Origin: s.Origin(), Values: s.Values}
}

// Origin is the instant the common time axis is read from, as a person
// reads a trace's times from its start: the reference run's first instant
// (Stretch, Markers: the axis is its window), 0 (Start: the axis is
// already [0, length]) or the earliest run's first instant (Absolute: one
// clock for every run).
func (s *Set) Origin() trace.Time {
	switch {
	case s.Align.Method == Start || len(s.Runs) == 0:
		return 0
	case s.Align.Method == Absolute:
		first := s.Runs[0].Start
		for _, r := range s.Runs[1:] {
			first = min(first, r.Start)
		}
		return first
	}
	return s.Runs[s.Reference].Start
}

// NumRuns returns the number of runs.
func (s *Set) NumRuns() int { return len(s.Runs) }

// leaf returns the model leaf of run r's resource leaf.
func (s *Set) leaf(r, resource int) int {
	if s.Placement == AtTop {
		return r*len(s.Resources.Leaves) + resource
	}
	return resource*len(s.Runs) + r
}

// Cell returns the values of run r, resource leaf, slice t (one per state).
func (s *Set) Cell(r, resource, t int) []float64 {
	x := len(s.States)
	i := (s.leaf(r, resource)*s.Slices + t) * x
	return s.Values[i : i+x : i+x]
}

// SliceStart returns the start of slice k on the common axis.
func (s *Set) SliceStart(k int) trace.Time {
	return s.Start + trace.Time(int64(k)*int64(s.End-s.Start)/int64(s.Slices))
}

// IdleState and AbsentState return the indices of Idle and Absent in
// States, -1 when no cell has them.
func (s *Set) IdleState() int   { return s.idle }
func (s *Set) AbsentState() int { return s.absent }

// Build reads the runs one after the other, each into its own model on
// its aligned window (a trace is never held whole, unless its reader
// holds it anyway), and makes their comparison's model.
func Build(inputs []Input, opt Options, ro trace.ReadOptions) (*Set, error) {
	b, err := newBuilder(inputs, opt, ro)
	if err != nil {
		return nil, err
	}
	if err := b.plan(); err != nil {
		return nil, err
	}
	for i := range b.inputs {
		if err := b.read(i); err != nil {
			return nil, err
		}
	}
	return b.set()
}

// builder holds the state of Build: the runs' models until the union is
// made.
type builder struct {
	inputs []Input
	opt    Options
	ro     trace.ReadOptions
	runs   []Run
	models []*micro.Model
	// windows: the window of each run's model (on its own time, or the
	// warped axis for Markers), and the warp.
	windows [][2]trace.Time
	warps   []*warp
	axis    [2]trace.Time
	reason  string // why Auto chose its alignment
	done    int
	steps   int
}

func newBuilder(inputs []Input, opt Options, ro trace.ReadOptions) (*builder, error) {
	if len(inputs) < 2 {
		return nil, errs.Argument("runs", "a comparison needs at least two runs, got %d", len(inputs))
	}
	if opt.Slices == 0 {
		opt.Slices = 100
	}
	if opt.Slices < 1 || opt.Slices > micro.MaxSlices {
		return nil, errs.Argument("slices", "must be between 1 and %d, got %d", micro.MaxSlices, opt.Slices)
	}
	var err error
	if opt.Align.Method, err = ParseMethod(string(opt.Align.Method)); err != nil {
		return nil, err
	}
	if opt.Placement, err = ParsePlacement(string(opt.Placement)); err != nil {
		return nil, err
	}
	if opt.Match, err = ParseMatch(string(opt.Match)); err != nil {
		return nil, err
	}
	if m, err := micro.ParseMetric(string(opt.Model.Metric)); err != nil {
		return nil, err
	} else if m != micro.StateDuration {
		return nil, errs.Argument("metric", "runs are compared on state durations (complete cells), not %s", m)
	}
	if opt.Reference < 0 || opt.Reference >= len(inputs) {
		return nil, errs.Argument("reference", "must be a run index from 0 to %d, got %d", len(inputs)-1, opt.Reference)
	}
	if opt.Align.Method == Markers {
		if _, err := opt.Align.Markers.matcher(); err != nil {
			return nil, err
		}
	}
	if opt.Start != nil || opt.End != nil {
		if opt.Align.Method == Markers {
			return nil, errs.Argument("window", "a window (start, end) does not apply to %q alignment: the markers bound the runs", Markers)
		}
		if opt.Start != nil && *opt.Start < 0 && opt.Align.Method != Absolute {
			return nil, errs.Argument("start", "must be at or after the run's start (0 s or more), got %s s", *opt.Start)
		}
		if opt.Start != nil && opt.End != nil && *opt.End <= *opt.Start {
			return nil, errs.Argument("window", "end (%s s) must come after start (%s s)", *opt.End, *opt.Start)
		}
	}
	if opt.Align.Method == Start && opt.Align.Length.Rule == "" && opt.Align.Length.Seconds <= 0 {
		opt.Align.Length.Rule = "max"
	}
	names := map[string]bool{}
	runs := make([]Run, len(inputs))
	for i, in := range inputs {
		n := 0
		for _, given := range []bool{in.Source != nil, in.Trace != nil, in.Model != nil} {
			if given {
				n++
			}
		}
		if n != 1 {
			return nil, errs.Argument("runs", "run %d must be given as one of a source, a trace or a model", i)
		}
		name := in.Name
		if name == "" {
			name = fmt.Sprintf("run %d", i)
		}
		if names[name] {
			return nil, errs.Argument("labels", "two runs are named %q: run names must differ", name)
		}
		names[name] = true
		label := in.Label
		if label == "" {
			label = name
		}
		runs[i] = Run{Name: name, Label: label, Meta: in.Meta}
		if in.Model != nil {
			if opt.Align.Method == Auto {
				// Auto may choose Start, which builds every run on a
				// common window from its start: a model is built already.
				return nil, errs.Argument("align", `run %q is a model already built: align="auto" may choose %q, which builds each run on a window it fixes; give the runs as traces, or align=%q`, name, Start, Stretch)
			}
			if opt.Align.Method != Stretch {
				return nil, errs.Argument("align", "run %q is a model already built: only %q alignment applies to models (read the trace to align otherwise)", name, Stretch)
			}
			if opt.Start != nil || opt.End != nil {
				return nil, errs.Argument("window", "run %q is a model already built on its window: build it on the window wanted (micro's start, end)", name)
			}
			if in.Model.Slices != opt.Slices {
				return nil, errs.Argument("slices", "run %q is a model of %d slices, not %d: give models of the same slices", name, in.Model.Slices, opt.Slices)
			}
			if mt := in.Model.Metric; mt != "" && mt != micro.StateDuration {
				return nil, errs.Argument("metric", "run %q is a model of %s: runs are compared on state durations", name, mt)
			}
		}
		if in.Source != nil {
			runs[i].Files = in.Source.Files
		}
		if in.Trace != nil {
			runs[i].Files = in.Trace.Files
		}
	}
	b := &builder{inputs: inputs, opt: opt, ro: ro, runs: runs, models: make([]*micro.Model, len(inputs)),
		windows: make([][2]trace.Time, len(inputs)), warps: make([]*warp, len(inputs))}
	b.steps = len(inputs)
	if opt.Align.Method != Stretch { // Auto counts its extents' reads even if it stretches
		b.steps *= 2
	}
	return b, nil
}

func (b *builder) step() {
	b.done++
	if b.opt.Progress != nil {
		b.opt.Progress(b.done, b.steps)
	}
}

// readInto streams input i into sink (a trace in memory is replayed).
func (b *builder) readInto(i int, sink trace.Sink, ro trace.ReadOptions) error {
	in := b.inputs[i]
	if in.Trace != nil {
		replay(in.Trace, sink)
		return nil
	}
	return in.Source.Read(sink, ro)
}

// extent returns the first and last instants of input i: a model's
// window, a trace's extent, or a first read of the source.
func (b *builder) extent(i int) (trace.Time, trace.Time, error) {
	in := b.inputs[i]
	switch {
	case in.Model != nil:
		return in.Model.Start, in.Model.End, nil
	case in.Trace != nil:
		return in.Trace.Start, in.Trace.End, nil
	}
	var ext micro.Extent
	ro := b.ro
	ro.Notes = nil
	if err := in.Source.Read(&ext, ro); err != nil {
		return 0, 0, err
	}
	return ext.Start, ext.End, nil
}

// plan fixes every run's window before any model is built: Start and
// Absolute need every run's extent, Markers every run's markers.
func (b *builder) plan() error {
	a := b.opt.Align
	switch a.Method {
	case Stretch:
		return nil
	case Start, Absolute, Auto:
		lo, hi := trace.Time(math.MaxInt64), trace.Time(math.MinInt64)
		var longest, shortest trace.Time = 0, math.MaxInt64
		for i := range b.inputs {
			s, e, err := b.extent(i)
			if err != nil {
				return err
			}
			if e <= s && b.opt.End == nil {
				// The error of a model of that run alone, the run named.
				if b.opt.Start != nil {
					return fmt.Errorf("run %q: %w", b.runs[i].Name, errs.NoDurationEnd(s.Seconds()))
				}
				return fmt.Errorf("run %q: %w", b.runs[i].Name, errs.NoDuration(s.Seconds()))
			}
			b.runs[i].Start, b.runs[i].End = s, e
			lo, hi = min(lo, s), max(hi, e)
			longest, shortest = max(longest, e-s), min(shortest, e-s)
			b.step()
		}
		if a.Method == Auto {
			b.opt.Align.Method, b.reason = chooseAlign(longest, shortest, b.opt.End, b.opt.Align.Length)
			if b.opt.Align.Method == Stretch {
				// Read again below, each on its own extent.
				for i := range b.runs {
					b.runs[i].Start, b.runs[i].End = 0, 0
				}
				return nil
			}
			if b.opt.Align.Length.Rule == "" && b.opt.Align.Length.Seconds <= 0 {
				b.opt.Align.Length = Length{Rule: "max"} // Start's default; a length given is kept
			}
		}
		if b.opt.Align.Method == Absolute {
			from, to := lo, hi
			if b.opt.Start != nil {
				from = lo + *b.opt.Start
			}
			if b.opt.End != nil {
				to = lo + *b.opt.End
			}
			if to <= from {
				return errs.Argument("window", "empty time window [%s, %s] s from the earliest run's start", from-lo, to-lo)
			}
			b.axis = [2]trace.Time{from, to}
			for i := range b.inputs {
				b.windows[i] = b.axis
			}
			return nil
		}
		length := longest
		switch {
		case b.opt.Align.Length.Rule == "min":
			length = shortest
		case b.opt.Align.Length.Rule == "" && b.opt.Align.Length.Seconds > 0:
			length = trace.Time(math.Round(b.opt.Align.Length.Seconds * 1e9))
		}
		from, to := trace.Time(0), length
		if b.opt.Start != nil {
			from = *b.opt.Start
		}
		if b.opt.End != nil {
			to = *b.opt.End
		}
		if to <= from {
			return errs.Argument("window", "empty time window [%s, %s] s from the runs' starts (the common window is %s s long)", from, to, length)
		}
		b.axis = [2]trace.Time{from, to}
		for i := range b.inputs {
			b.windows[i] = [2]trace.Time{b.runs[i].Start + from, b.runs[i].Start + to}
		}
		return nil
	}
	// Markers: a first read of every run for its markers.
	byNumber := a.Markers.By == "number"
	found := make([]*markerSink, len(b.inputs))
	for i := range b.inputs {
		ms, err := newMarkerSink(a.Markers)
		if err != nil {
			return err
		}
		ro := b.ro
		ro.Notes = nil
		if err := b.readInto(i, ms, ro); err != nil {
			return err
		}
		if !ms.any {
			return errs.Argument("markers", "run %q has %s", b.runs[i].Name, a.Markers.what())
		}
		found[i] = ms
		b.runs[i].Start, b.runs[i].End = ms.extent[0], ms.extent[1]
		if a.Markers.By == "" && !ms.numbers {
			byNumber = false
		} else if a.Markers.By == "" && i == 0 {
			byNumber = true
		}
		b.step()
	}
	if a.Markers.By == "" {
		byNumber = true
		for _, ms := range found {
			byNumber = byNumber && ms.numbers
		}
	}
	lists := make([][]marker, len(found))
	for i, ms := range found {
		list, where, err := ms.markers(byNumber)
		if err != nil {
			return errs.Argument("markers", "run %q: %v", b.runs[i].Name, err)
		}
		lists[i] = list
		b.runs[i].MarkerResource = where
	}
	common, dropped := commonMarkers(lists)
	bounds := make([][]trace.Time, len(common))
	for i, ms := range common {
		if len(ms) == 0 {
			return errs.Argument("markers", "the runs share no marker (matched by %s)", byWord(byNumber))
		}
		bounds[i] = boundaries(ms)
		if len(bounds[i]) < 2 {
			return errs.Argument("markers", "the runs share a single marker instant: markers need two to make a segment")
		}
		b.runs[i].DroppedMarkers = dropped[i]
		b.runs[i].Markers = bounds[i]
	}
	n := len(bounds[0])
	for i := range bounds {
		if len(bounds[i]) != n { // a run whose last marker is an event against a state's end
			return errs.Argument("markers", "run %q has %d marker boundaries, run %q %d: use markers of one kind", b.runs[0].Name, n, b.runs[i].Name, len(bounds[i]))
		}
	}
	ref := bounds[b.opt.Reference]
	lengths := make([]float64, n-1)
	for k := range lengths {
		lengths[k] = float64(ref[k+1] - ref[k])
	}
	per, err := segmentSlices(lengths, b.opt.Slices)
	if err != nil {
		return err
	}
	// The common axis: the reference's marker window, cut into equal
	// slices of a whole number of nanoseconds.
	width := trace.Time(math.Ceil(float64(ref[n-1]-ref[0]) / float64(b.opt.Slices)))
	width = max(width, 1)
	to := make([]trace.Time, n)
	acc := 0
	for k := 0; k < n; k++ {
		to[k] = ref[0] + trace.Time(acc)*width
		if k < n-1 {
			acc += per[k]
		}
	}
	b.axis = [2]trace.Time{to[0], to[n-1]}
	for i := range b.inputs {
		b.warps[i] = &warp{from: bounds[i], to: to}
		b.windows[i] = b.axis
	}
	return nil
}

func byWord(number bool) string {
	if number {
		return "number"
	}
	return "ordinal"
}

// read builds run i's model on its window.
func (b *builder) read(i int) error {
	in := b.inputs[i]
	run := &b.runs[i]
	opt := b.opt.Model
	opt.Slices, opt.Metric = b.opt.Slices, micro.StateDuration
	opt.Start, opt.End = b.opt.Start, b.opt.End
	opt.Relative = true // the run's own window, counted from its start
	if b.opt.Align.Method != Stretch {
		opt.Relative = false
		s, e := b.windows[i][0], b.windows[i][1]
		opt.Start, opt.End = &s, &e
	}
	ro := b.ro
	notes := &trace.Notes{}
	ro.Notes = notes
	var m *micro.Model
	var err error
	switch {
	case in.Model != nil:
		m = in.Model
		run.Start, run.End = m.Start, m.End
	case b.warps[i] != nil:
		w := b.warps[i]
		read := func(sink trace.Sink, ro trace.ReadOptions) error {
			return b.readInto(i, &warpSink{out: sink, w: w}, ro)
		}
		var sum *micro.Summary
		m, sum, err = micro.Stream(read, opt, ro, nil)
		if sum != nil {
			run.States = sum.States
		}
	case in.Trace != nil:
		opt.Cancel = ro.Cancel // the read's cancel stops the model built from memory too
		m, err = micro.Build(in.Trace, opt)
		run.States = int64(in.Trace.States.Len())
		if b.opt.Align.Method == Stretch {
			run.Start, run.End = in.Trace.Start, in.Trace.End
		}
	default:
		var sum *micro.Summary
		m, sum, err = micro.FromSource(in.Source, opt, ro)
		if sum != nil {
			run.States = sum.States
			if b.opt.Align.Method == Stretch || b.opt.Align.Method == Start || b.opt.Align.Method == Absolute {
				run.Start, run.End = sum.Start, sum.End
			}
		}
	}
	if err != nil {
		// A run with nothing to model is named by its files, as a model
		// of that trace alone names them (the wrapping below fixes the
		// message).
		return fmt.Errorf("run %q: %w", run.Name, errs.NameFile(err, in.files()...))
	}
	run.Notes = notes.Messages()
	run.LeftOut, run.LeftOutRows = m.LeftOut, m.LeftOutRows
	run.Resources = m.NumLeaves()
	run.WindowStart, run.WindowEnd = m.Start, m.End
	if b.warps[i] != nil {
		run.WindowStart, run.WindowEnd = run.Markers[0], run.Markers[len(run.Markers)-1]
	}
	run.SliceSeconds = sliceSeconds(m, b.warps[i], b.opt.Slices)
	// The union below reads each run's cells whole: a model stored
	// sparsely is spread out here, as the union is dense anyway.
	b.models[i] = m.ToDense()
	b.step()
	return nil
}

// sliceSeconds returns the length of each slice in the run's own seconds.
func sliceSeconds(m *micro.Model, w *warp, n int) []float64 {
	out := make([]float64, n)
	for k := range out {
		a, e := m.SliceStart(k), m.SliceStart(k+1)
		if w != nil {
			a, e = w.unwarp(a), w.unwarp(e)
		}
		out[k] = (e - a).Seconds()
	}
	return out
}

// unwarp maps a time of the common axis back to the run's.
func (w *warp) unwarp(t trace.Time) trace.Time {
	inv := warp{from: w.to, to: w.from}
	return inv.at(t)
}

// replay hands a trace in memory to a sink, as a reader would.
func replay(t *trace.Trace, sink trace.Sink) {
	for _, ty := range t.Types {
		sink.DefineType(ty)
	}
	for _, v := range t.Values {
		sink.DefineValue(v)
	}
	for id := 1; id < len(t.Containers); id++ {
		c := t.Containers[id]
		c.Children = nil
		end := c.End
		c.End = trace.Unset
		sink.CreateContainer(c)
		if end != trace.Unset && end != t.End {
			sink.DestroyContainer(int32(id), end)
		}
	}
	for i := range t.States.Len() {
		sink.State(t.States.At(i))
	}
	for _, v := range t.Variables.All() {
		sink.Variable(v)
	}
	for _, l := range t.Links.All() {
		sink.Link(l)
	}
	for _, e := range t.Events.All() {
		sink.Event(e)
	}
	sink.Finish(t.Start, t.End)
}

// RunModel returns run r's cells as a microscopic model of the union
// hierarchy on the common axis (a copy), for the views of one run.
func (s *Set) RunModel(r int) *micro.Model {
	L, T, X := len(s.Resources.Leaves), s.Slices, len(s.States)
	values := make([]float64, L*T*X)
	for l := 0; l < L; l++ {
		for t := 0; t < T; t++ {
			copy(values[(l*T+t)*X:(l*T+t+1)*X], s.Cell(r, l, t))
		}
	}
	containers := make([]int32, s.Resources.Len())
	for i := range containers {
		containers[i] = trace.None
	}
	// What the run's model left out, slice by slice where its slices are
	// the common axis's, else as its total alone (Model.LeftOut's sums).
	run := s.Runs[r]
	var out []micro.LeftOut
	for _, l := range run.LeftOut {
		if len(l.Time) != T {
			l.Time = []float64{l.Total()}
		}
		l.Names = slices.Clone(l.Names)
		l.Time = slices.Clone(l.Time)
		out = append(out, l)
	}
	return &micro.Model{Tree: s.Resources, Container: containers, States: s.States, Colors: s.Colors,
		Metric: micro.StateDuration, Slices: T, Start: s.Start, End: s.End, Origin: s.Origin(), Values: values,
		LeftOut: out, LeftOutRows: run.LeftOutRows}
}

// SliceDivergence returns, for each slice, the divergence of the runs'
// cells there (CellDivergence over every resource): where in time the
// runs differ.
func (s *Set) SliceDivergence() []float64 {
	R, L, X := len(s.Runs), len(s.Resources.Leaves), len(s.States)
	out := make([]float64, s.Slices)
	cells := make([][]float64, R)
	for t := range out {
		for r := range cells {
			cells[r] = cells[r][:0]
			for l := 0; l < L; l++ {
				cells[r] = append(cells[r], s.Cell(r, l, t)...)
			}
		}
		out[t] = CellDivergence(cells, X)
	}
	return out
}

// chooseAlign is Auto's choice among the runs' durations: Start when the
// longest is within AutoTolerance of the shortest, else Stretch, and why.
// A window's end (end, from each run's start) gives every run the same
// seconds whichever is chosen: Start then, whatever the durations (a run
// without duration among them, which the window gives one). A length
// applies to Start only: the reason says when it goes unused.
func chooseAlign(longest, shortest trace.Time, end *trace.Time, length Length) (Method, string) {
	if end != nil {
		return Start, fmt.Sprintf(`align="auto" chose %q: the window ends %s s after each run's start, so every run is compared over the same seconds from its start, whatever its duration`,
			Start, trace.FormatSeconds(*end))
	}
	spread := float64(longest)/float64(max(shortest, 1)) - 1
	if spread <= AutoTolerance {
		over := ""
		switch {
		case length.Rule == "min":
			over = " over the shortest run's duration"
		case length.Rule == "" && length.Seconds > 0:
			over = fmt.Sprintf(" over the length given, %s s", strconv.FormatFloat(length.Seconds, 'g', -1, 64))
		}
		return Start, fmt.Sprintf(`align="auto" chose %q: the runs' durations (%.6g s to %.6g s) are within %g%% of each other, so their times are compared second for second from their starts%s`,
			Start, shortest.Seconds(), longest.Seconds(), 100*AutoTolerance, over)
	}
	unused := ""
	switch {
	case length.Rule == "min":
		unused = `; the length "min" applies to "start" alignment only and is not used`
	case length.Rule == "" && length.Seconds > 0:
		unused = fmt.Sprintf(`; the length %s s applies to "start" alignment only and is not used`, strconv.FormatFloat(length.Seconds, 'g', -1, 64))
	}
	return Stretch, fmt.Sprintf(`align="auto" chose %q: the runs' durations (%.6g s to %.6g s) differ by more than %g%%, so each run's extent is cut into the slices (slice k is the same fraction of every run)%s`,
		Stretch, shortest.Seconds(), longest.Seconds(), 100*AutoTolerance, unused)
}
