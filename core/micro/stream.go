package micro

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"unsafe"

	"github.com/macroscope-hpc/macroscope/core/budget"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/names"
	"github.com/macroscope-hpc/macroscope/core/sparse"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// ErrWindow is Accumulator.Model's error when the trace's window is not the
// one the accumulator sliced: the start or end it assumed (a guess, see
// NewAccumulator) is not the trace's. Reading again with the window the
// accumulator learnt (Accumulator.Extent) gives the model.
var ErrWindow = errors.New("micro: the trace's window is not the one assumed")

// ErrNesting is Accumulator.Model's error when the innermost states could
// not be followed while streaming: the states of a container and type did
// not arrive as a stack of nested states (see Accumulator). Build on the
// whole trace gives the model.
var ErrNesting = errors.New("micro: the states do not arrive as nested states")

// Counts tells how many entities a reader delivered.
type Counts struct {
	Containers, States, Variables, Links, Events int64
}

// Accumulator is a trace.Sink that builds the microscopic model while a
// reader streams a trace, without keeping the entities: Model returns
// exactly what Build returns on the whole trace, cell by cell.
//
// It keeps the definitions (types, values, containers), Slices cells per
// container and category that received data (what the model holds), and
// for nested states, per container, state type and open
// nesting level, the slices the completed inner states cover until their
// enclosing state arrives: memory grows with the model and the nesting
// depth, not with the number of events.
//
// Slice boundaries depend on the window, which the caller gives (the
// options' Start and End, or for those left to the trace a guess such as
// the Pajé reader's, ingest.Source.Probe). Model checks the guess against
// the trace's first and last instants given to Finish and returns
// ErrWindow when it was wrong.
//
// The innermost state (Options.Depth == Innermost) is found from the
// order in which states complete: on one container and state type, the
// states at one depth arrive in time order without overlapping, and a
// state arrives after the states nested in it (the stack of Pajé's
// PushState and PopState, OTF2's Enter and Leave). Time not covered by
// a state nested in a state is that state's own. A stream that breaks
// the rule makes Model return ErrNesting.
type Accumulator struct {
	opt     Options
	metric  Metric
	kind    trace.Kind
	names   []string
	g       grid
	active  bool // the window is valid: cells are accumulated
	average bool

	skel *trace.Trace // the definitions

	typeSel     []bool // by type
	hasData     []bool // by container
	spanData    []bool // by container: it has entities the options leave out
	typeUsed    []bool // by type
	noValueSeen []bool // by type
	noValue     []int32

	// stepOf holds, by value, the number of the step its states are, or
	// noStep; steps gathers them, whatever the options select (Model.Steps).
	stepOf []int64
	steps  steps

	// columnsBudget weighs the containers and columns as they grow
	// (checkColumns), its default fixed at its first check.
	columnsBudget budget.Once

	// Categories get a dense key on first use: keyOfValue by value id,
	// keyOfType by type (entities without a value; variable types); keys
	// maps a key back: a value id, or -1-type.
	keyOfValue []int32
	keyOfType  []int32
	keys       []int32
	// keyOfCategory gives the key of the values that the model counts as
	// one category on a container (same type, same name under the
	// options' Key: "ProfilerStep#1", "ProfilerStep#2"...): they share a
	// column, which holds their sum. Without it a trace of thousands of
	// numbered instances keeps a column of every slice per instance until
	// the model adds them up, and the partial models of a run's files,
	// held until they are merged, hold them all.
	keyOfCategory map[valueCategory]int32
	keyKind       Key

	conts []contAcc // by container

	// The cells, slice by slice: dur[k][col] holds the scaled durations
	// (states) or counts (events) of column col in slice k, stays[k][col]
	// the stays (StateAverageDuration), sum[k][col] the integrals of
	// value x scaled time (VariableAverage). A column is a container and
	// category that received data (colCont, colKey). At any moment the
	// states arriving fall in one or two slices: their cells are close
	// together, whatever the container.
	dur     [][]int64
	stays   [][]int32
	sum     [][]float64
	colCont []int32
	colKey  []int32

	nan      map[int32]nanVariable // first non-finite variable per container
	nanCount int

	err        error // why the stream cannot be followed (ErrNesting)
	finished   bool
	start, end trace.Time // the trace's, from Finish
	counts     Counts

	pieces []piece    // scratch
	now    trace.Time // the instant of the entity being accounted for

	// first holds, by type and by value, the earliest instant of an
	// entity of it (noUse for none), and noValueFirst, by noValue entry,
	// that of the first entity without a value: what orders the
	// definitions of partial models merged by time (see Partial).
	typeFirst, valueFirst, noValueFirst []trace.Time

	// deferred tells that Defer was called, when the definitions were
	// lateFrom (types, values, containers): see Partial's late ones.
	deferred bool
	lateFrom [3]int

	// OnError, if set, is called once when the accumulation cannot go on:
	// the stream turns out not to be nested (Model will return
	// ErrNesting), or its columns outgrow the memory budget (Model
	// returns the budget's error). The read can stop there.
	OnError func()

	// StartOrdered, set before the first state, tells that on each
	// container and state type the states arrive in the order they start
	// (by start, then depth, then end), each before the states nested in
	// it, as pj_dump prints them, rather than when they end. The stream
	// must then follow that order, or Model returns ErrNesting.
	StartOrdered bool
}

// contAcc is what the accumulator keeps of a container: the columns of
// its categories and, for innermost states, its nesting streams.
type contAcc struct {
	cols []int32 // by category key: column + 1, 0 for none yet
	// The nesting streams, by state type: the first in place (the common
	// case: one state type per container), the others after it.
	g0     group
	groups []group
}

// group returns the nesting stream of state type typ on c, creating it.
func (c *contAcc) group(typ int32) *group {
	if c.g0.used && c.g0.typ == typ {
		return &c.g0
	}
	if !c.g0.used {
		c.g0 = group{typ: typ, used: true}
		return &c.g0
	}
	for i := range c.groups {
		if c.groups[i].typ == typ {
			return &c.groups[i]
		}
	}
	c.groups = append(c.groups, group{typ: typ, used: true})
	return &c.groups[len(c.groups)-1]
}

// group follows the states of one state type on one container.
type group struct {
	typ      int32
	used     bool
	seen0    bool       // a state at depth 0 arrived
	lastEnd0 trace.Time // the end of the latest one
	pending  int        // states waiting for their enclosing state, at every depth
	k        int64      // the slice of the latest state's start (a hint)
	levels   []level    // levels[d]: states at depth d (d > 0), and their cover
	deepest  int        // the deepest level whose states wait for their enclosing state; 0: none

	// StartOrdered streams: the latest state, and the states that may
	// still have states nested in them, outermost first.
	prev    trace.State
	hasPrev bool
	open    []openState
}

// openState is a state of a StartOrdered stream that may still get states
// nested in it: its column, interval and depth, and with
// StateAverageDuration its own time slice by slice so far.
type openState struct {
	col        int32
	start, end trace.Time
	depth      int32
	own        []piece
}

// level holds what the states completed at one depth leave to their
// enclosing state, which arrives later: how many, where the first starts
// and the last ends, and the slices they cover.
type level struct {
	seen        bool
	lastEnd     trace.Time // end of the latest state at this depth
	n           int        // completed since the enclosing state's predecessor
	first, last trace.Time
	cover       []piece
}

// piece is a part of slice k, d scaled units long.
type piece struct {
	k int32
	d int64
}

type nanVariable struct {
	seq int
	v   trace.Variable
}

// NewAccumulator returns an accumulator that slices the window [start,
// end]: the options' Start and End when they are set (they must then be
// start and end), a guess of the trace's first and last instants
// otherwise. Errors are those of the options alone (metric, slices,
// depth); those of the window come from Model, as Build would give them.
func NewAccumulator(opt Options, start, end trace.Time) (*Accumulator, error) {
	metric, err := ParseMetric(string(opt.Metric))
	if err != nil {
		return nil, err
	}
	if err := checkOptions(opt); err != nil {
		return nil, err
	}
	if !opt.Relative && ((opt.Start != nil && *opt.Start != start) || (opt.End != nil && *opt.End != end)) {
		return nil, errs.Argument("window", "the window [%s, %s] s is not the options' one", start, end)
	}
	a := &Accumulator{
		opt:      opt,
		metric:   metric,
		kind:     metric.entityKind(),
		names:    typeNames(opt),
		average:  metric == StateAverageDuration,
		skel:     trace.New(),
		hasData:  []bool{false},
		spanData: []bool{false},
		conts:    []contAcc{{}},
		nan:      map[int32]nanVariable{},
		steps:    steps{},

		keyOfCategory: map[valueCategory]int32{},
	}
	a.keyKind, _ = ParseKey(string(opt.Key)) // checked above
	a.g = grid{start: start, end: end, n: int64(opt.Slices)}
	a.active = end > start && checkGrid(opt, start, end) == nil
	return a, nil
}

// checkOptions checks what Build checks that does not depend on the window.
func checkOptions(opt Options) error {
	if opt.Slices < 1 || opt.Slices > MaxSlices {
		return errs.Argument("slices", "must be between 1 and %d, got %d", MaxSlices, opt.Slices)
	}
	if opt.Depth < Innermost {
		return errs.Argument("depth", "must be -1 (innermost) or a nesting depth >= 0, got %d", opt.Depth)
	}
	if _, err := ParseKey(string(opt.Key)); err != nil {
		return err
	}
	return nil
}

// Counts returns how many entities the accumulator received.
func (a *Accumulator) Counts() Counts { return a.counts }

// Extent returns the trace's first and last instants, once Finish has
// come.
func (a *Accumulator) Extent() (start, end trace.Time, ok bool) { return a.start, a.end, a.finished }

// DefineType implements trace.Sink.
func (a *Accumulator) DefineType(t trace.Type) {
	a.skel.DefineType(t)
	a.typeSel = append(a.typeSel, t.Kind == a.kind && (len(a.names) == 0 || slices.Contains(a.names, t.Name)))
	a.noValueSeen = append(a.noValueSeen, false)
	a.typeUsed = append(a.typeUsed, false)
	a.keyOfType = append(a.keyOfType, -1)
	a.typeFirst = append(a.typeFirst, noUse)
}

// DefineValue implements trace.Sink. Only the values of the metric's kind
// of types keep their names.
func (a *Accumulator) DefineValue(v trace.Value) {
	n := int64(noStep)
	if isStep(v) {
		n = int64(v.Step)
	}
	a.stepOf = append(a.stepOf, n)
	if v.Type < 0 || int(v.Type) >= len(a.typeSel) || !a.typeSel[v.Type] {
		v = trace.Value{Type: v.Type}
	}
	a.skel.DefineValue(v)
	a.keyOfValue = append(a.keyOfValue, -1)
	a.valueFirst = append(a.valueFirst, noUse)
}

// CreateContainer implements trace.Sink.
func (a *Accumulator) CreateContainer(c trace.Container) {
	a.counts.Containers++
	if n := len(a.conts); n == cap(a.conts) && n >= 1<<12 { // about to grow
		if err := a.checkColumns(); err != nil {
			a.fail(err)
		}
	}
	a.skel.CreateContainer(c)
	a.hasData = append(a.hasData, false)
	a.spanData = append(a.spanData, false)
	a.conts = append(a.conts, contAcc{})
}

// DestroyContainer implements trace.Sink.
func (a *Accumulator) DestroyContainer(id int32, at trace.Time) { a.skel.DestroyContainer(id, at) }

// Defer implements trace.DeferSink: the definitions that follow are late
// (see Partial). Only the first call counts.
func (a *Accumulator) Defer() {
	if !a.deferred {
		a.deferred = true
		a.lateFrom = [3]int{len(a.skel.Types), len(a.skel.Values), len(a.skel.Containers)}
	}
}

// Link implements trace.Sink: links are counted only.
func (a *Accumulator) Link(l trace.Link) {
	a.counts.Links++
	a.firstUse(l.Type, l.Value, l.Start)
}

// Finish implements trace.Sink.
func (a *Accumulator) Finish(start, end trace.Time) {
	a.skel.Finish(start, end)
	a.start, a.end, a.finished = start, end, true
	if a.kind != trace.KindState || a.opt.Depth != Innermost || a.err != nil {
		return
	}
	// A state nested in no state that arrived is an orphan.
	for c := range a.conts {
		for _, gr := range append([]group{a.conts[c].g0}, a.conts[c].groups...) {
			for d := 1; d < len(gr.levels); d++ {
				if gr.levels[d].n > 0 {
					a.failNesting("container %d: %d state(s) at depth %d end without an enclosing state", c, gr.levels[d].n, d)
					return
				}
			}
		}
	}
}

func (a *Accumulator) failNesting(format string, args ...any) {
	a.fail(fmt.Errorf("%w: "+format, append([]any{ErrNesting}, args...)...))
}

func (a *Accumulator) fail(err error) {
	if a.err == nil {
		a.err = err
		if a.OnError != nil {
			a.OnError()
		}
	}
}

// use records that container c has an entity of selected type typ with
// value v (trace.None for none) and returns the entity's category key.
// An entity the options leave out (Options.ProfilerSpans) gets a key of
// its own, whose columns the model does not hold, and makes no data.
func (a *Accumulator) use(c, typ, v int32) int32 {
	if v >= 0 && a.kind != trace.KindVariable && a.opt.leftOutRole(a.skel.Values[v]) != trace.RoleNone {
		a.spanData[c] = true
		return a.valueKey(v)
	}
	a.hasData[c] = true
	a.typeUsed[typ] = true
	if a.kind == trace.KindVariable {
		return a.key(&a.keyOfType[typ], -1-typ)
	}
	if v == trace.None {
		if !a.noValueSeen[typ] {
			a.noValueSeen[typ] = true
			a.noValue = append(a.noValue, typ)
			a.noValueFirst = append(a.noValueFirst, a.now)
		}
		return a.key(&a.keyOfType[typ], -1-typ)
	}
	return a.valueKey(v)
}

// valueCategory is what makes the category of a value in every model
// whatever the other values of the trace: its type and its name under
// the Key (names.Group's for KeyGroup, which names.GroupsOf may only
// coarsen).
type valueCategory struct {
	typ  int32
	name string
	out  trace.Role // the options leave it out (Options.leftOutRole)
}

// valueKey returns the category key of value v: that of an earlier value
// of the same category (valueCategory), else a new one with code v.
func (a *Accumulator) valueKey(v int32) int32 {
	if k := a.keyOfValue[v]; k >= 0 {
		return k
	}
	val := a.skel.Values[v]
	c := valueCategory{typ: val.Type, out: a.opt.leftOutRole(val)}
	switch {
	case c.out != trace.RoleNone:
		// Left out whatever the key: the columns of its group, whose
		// name Model.LeftOut lists, as the dense builders list every
		// value's (a value of a category's key would hide the others').
		c.name = names.GroupOf(val.Name, val.Role == trace.RoleScheduledThread)
	case a.keyKind == KeyName:
		c.name = val.Name
	case a.keyKind == KeyGroup:
		c.name = names.GroupOf(val.Name, val.Role == trace.RoleScheduledThread)
	case a.keyKind == KeyCategory:
		c.name = val.Category
	case a.keyKind == KeyDomain:
		if c.name = names.Domain(val.Name); c.name == "" {
			c.name = "\x00" + val.Category // not a domain's name
		}
	}
	k, ok := a.keyOfCategory[c]
	if !ok {
		k = a.key(&a.keyOfValue[v], v)
		a.keyOfCategory[c] = k
	}
	a.keyOfValue[v] = k
	return k
}

func (a *Accumulator) key(slot *int32, code int32) int32 {
	if *slot < 0 {
		*slot = int32(len(a.keys))
		a.keys = append(a.keys, code)
	}
	return *slot
}

// col returns the column of container ci's category key, making it.
func (a *Accumulator) col(c *contAcc, ci, key int32) int32 {
	if int(key) < len(c.cols) && c.cols[key] > 0 {
		return c.cols[key] - 1
	}
	for int(key) >= len(c.cols) {
		c.cols = append(c.cols, 0)
	}
	col := int32(len(a.colCont))
	if n := len(a.colCont); n == cap(a.colCont) && n >= 1<<12 { // the arrays are about to grow
		if err := a.checkColumns(); err != nil {
			a.fail(err)
		}
	}
	c.cols[key] = col + 1
	a.colCont, a.colKey = append(a.colCont, ci), append(a.colKey, key)
	if a.dur == nil && a.sum == nil {
		if a.kind == trace.KindVariable {
			a.sum = make([][]float64, a.g.n)
		} else {
			a.dur = make([][]int64, a.g.n)
		}
		if a.average {
			a.stays = make([][]int32, a.g.n)
		}
	}
	for k := range a.g.n {
		if a.sum != nil {
			a.sum[k] = append(a.sum[k], 0)
		} else {
			a.dur[k] = append(a.dur[k], 0)
		}
		if a.average {
			a.stays[k] = append(a.stays[k], 0)
		}
	}
	return col
}

// checkColumns weighs the containers and columns against the memory
// budget when their arrays are about to grow: each container takes its
// place in the skeleton, each column a cell in every slice, and a million
// containers of one state each (a Pajé file of 50 MB) took gigabytes
// while read, before the model's own check (checkBytes) could refuse it.
// The arrays count twice and a quarter (their copy, grown, beside them).
func (a *Accumulator) checkColumns() error {
	per := 8.0
	if a.average {
		per += 4
	}
	cols, conts := len(a.colCont), len(a.conts)
	need := 2.25 * (float64(cols)*(float64(a.g.n)*per+8) +
		float64(conts)*float64(unsafe.Sizeof(trace.Container{})+unsafe.Sizeof(contAcc{})+2))
	a.columnsBudget.Setting = a.opt.MemoryBudget
	return a.columnsBudget.Check("slices", fmt.Sprintf("the model's containers and columns gathered while reading (%d containers, %d columns x %d slices so far)", conts, cols, a.g.n),
		int64(min(need, math.MaxInt64/2)),
		"use fewer slices, a shorter window, or fewer states or resources (state_types=, key=\"domain\" or key=\"type\")")
}

// spans returns the pieces of [x, y) in the window, slice by slice (see
// grid.spans), in the accumulator's scratch space.
func (a *Accumulator) spans(x, y trace.Time) []piece {
	g := &a.g
	ps := a.pieces[:0]
	if x < g.start {
		x = g.start
	}
	if y > g.end {
		y = g.end
	}
	if y > x {
		w := int64(g.end - g.start)
		x0 := int64(x-g.start) * g.n
		x1 := int64(y-g.start) * g.n
		for p, k := x0, x0/w; p < x1; k++ {
			next := min((k+1)*w, x1)
			ps = append(ps, piece{int32(k), next - p})
			p = next
		}
	}
	a.pieces = ps
	return ps
}

// State implements trace.Sink.
func (a *Accumulator) State(s trace.State) {
	a.counts.States++
	a.firstUse(s.Type, s.Value, s.Start)
	if s.Value >= 0 && int(s.Value) < len(a.stepOf) && a.stepOf[s.Value] != noStep {
		a.steps.add(int32(a.stepOf[s.Value]), s.Start, s.End)
	}
	if a.kind != trace.KindState || !a.typeSel[s.Type] {
		return
	}
	key := a.use(s.Container, s.Type, s.Value)
	if !a.active || a.err != nil {
		return
	}
	c := &a.conts[s.Container]
	if a.opt.Depth != Innermost {
		if s.Depth == int32(a.opt.Depth) {
			a.add(c, s.Container, key, a.spans(s.Start, s.End))
		}
		return
	}
	if a.StartOrdered {
		a.innermostStartOrdered(c, key, s)
		return
	}
	// The common case: a state at depth 0 with nothing nested in it.
	if gr := &c.g0; s.Depth == 0 && gr.typ == s.Type && gr.used {
		if gr.pending == 0 && (!gr.seen0 || s.Start >= gr.lastEnd0) && s.End >= s.Start {
			gr.seen0, gr.lastEnd0 = true, s.End
			a.addStay(c, s.Container, gr, key, s.Start, s.End)
			return
		}
	}
	a.innermost(c, key, s)
}

// addStay adds the time of [x, y) in the window to the row of key, as add
// does with spans, finding the first slice from the group's hint.
func (a *Accumulator) addStay(c *contAcc, ci int32, gr *group, key int32, x, y trace.Time) {
	g := &a.g
	if x < g.start {
		x = g.start
	}
	if y > g.end {
		y = g.end
	}
	if y <= x {
		return
	}
	w := int64(g.end - g.start)
	x0 := int64(x-g.start) * g.n
	x1 := int64(y-g.start) * g.n
	k := gr.k
	if lo := k * w; x0 < lo || x0 >= lo+4*w {
		k = x0 / w
	} else {
		for x0 >= (k+1)*w {
			k++
		}
	}
	gr.k = k
	col := a.col(c, ci, key)
	for p := x0; p < x1; k++ {
		next := min((k+1)*w, x1)
		a.dur[k][col] += next - p
		if a.average {
			a.stays[k][col]++
		}
		p = next
	}
}

// add adds pieces of one stay of container ci to the column of key.
func (a *Accumulator) add(c *contAcc, ci, key int32, ps []piece) {
	if len(ps) == 0 {
		return
	}
	col := a.col(c, ci, key)
	for _, p := range ps {
		a.dur[p.k][col] += p.d
		if a.average && p.d > 0 {
			a.stays[p.k][col]++
		}
	}
}

// innermost accounts for state s of category key on container c: the
// time of s not covered by the states nested in it, which have arrived.
func (a *Accumulator) innermost(c *contAcc, key int32, s trace.State) {
	gr := c.group(s.Type)
	d := int(s.Depth)
	if d < 0 || s.End < s.Start {
		a.failNesting("a state of type %d on container %d has depth %d and lasts [%s, %s]", s.Type, s.Container, d, s.Start, s.End)
		return
	}
	for len(gr.levels) < d+2 {
		gr.levels = append(gr.levels, level{})
	}
	lv, inner := &gr.levels[d], &gr.levels[d+1]
	seen, lastEnd := &lv.seen, &lv.lastEnd
	if d == 0 {
		seen, lastEnd = &gr.seen0, &gr.lastEnd0
	}
	if *seen && s.Start < *lastEnd {
		a.failNesting("a state on container %d starts at %s, before the previous one at depth %d ends (%s)", s.Container, s.Start, d, *lastEnd)
		return
	}
	// States come as they end, the nested ones first: every state at
	// depth d-1 already here ended before s's enclosing state began. One
	// that ends after s starts was delivered before the state it encloses
	// (a trace in start order, as the chrome reader stores it): the
	// stream is refused now, not at its end, after it has kept the cover
	// of every state waiting for an enclosing one that came before it.
	if d > 0 {
		pseen, pend := gr.levels[d-1].seen, gr.levels[d-1].lastEnd
		if d == 1 {
			pseen, pend = gr.seen0, gr.lastEnd0
		}
		if pseen && pend > s.Start {
			a.failNesting("a state on container %d [%s, %s] at depth %d comes after a state at depth %d that ends later (%s)", s.Container, s.Start, s.End, d, d-1, pend)
			return
		}
	}
	if inner.n > 0 && (inner.first < s.Start || inner.last > s.End) {
		a.failNesting("a state on container %d [%s, %s] does not enclose the states nested in it [%s, %s]", s.Container, s.Start, s.End, inner.first, inner.last)
		return
	}
	if gr.deepest >= d+2 {
		// A state completes every level below its own, so the deepest
		// level left waiting is the latest state's: one comparison
		// instead of a look at every level below for each state, which
		// was quadratic in the depth (an HPCToolkit call path of a
		// million frames never ended). The error names the shallowest,
		// looked for once.
		e := d + 2
		for a.err == nil && gr.levels[e].n == 0 {
			e++
		}
		a.failNesting("container %d: a state at depth %d completed without the state enclosing it", s.Container, e)
		return
	}
	ps := a.spans(s.Start, s.End)
	if inner.n == 0 || len(inner.cover) == 0 {
		a.add(c, s.Container, key, ps)
	} else {
		// Own time: the pieces minus what the nested states cover, slice
		// by slice (both in slice order).
		j, ok := 0, true
		for i := range ps {
			for j < len(inner.cover) && inner.cover[j].k < ps[i].k {
				ok = false // covered time outside the state
				j++
			}
			if j < len(inner.cover) && inner.cover[j].k == ps[i].k {
				ps[i].d -= inner.cover[j].d
				j++
			}
			ok = ok && ps[i].d >= 0
		}
		if !ok || j != len(inner.cover) {
			a.failNesting("the states nested in a state on container %d [%s, %s] cover more than it", s.Container, s.Start, s.End)
			return
		}
		a.add(c, s.Container, key, ps)
		// The full span is what the enclosing state loses.
		ps = a.spans(s.Start, s.End)
	}
	gr.pending -= inner.n
	inner.n = 0
	if d > 0 && lv.n == 0 && cap(lv.cover) < cap(inner.cover) {
		// The nested level's buffer, free now, goes up to this level,
		// which starts its cover: a stack a million states deep, closed
		// from the innermost out, then needs one buffer instead of one
		// per level (a slice's worth of pieces each, 1.6 GB for a
		// million levels of 100 slices).
		lv.cover, inner.cover = inner.cover[:0], lv.cover[:0]
	} else {
		inner.cover = inner.cover[:0]
	}
	gr.deepest = d // 0 at depth 0, which does not wait: none waits then
	*seen, *lastEnd = true, s.End
	if d > 0 {
		if lv.n == 0 {
			lv.first = s.Start
		}
		lv.n++
		gr.pending++
		lv.last = s.End
		for _, p := range ps {
			if n := len(lv.cover); n > 0 && lv.cover[n-1].k == p.k {
				lv.cover[n-1].d += p.d
			} else {
				lv.cover = append(lv.cover, p)
			}
		}
	}
}

// innermostStartOrdered accounts for state s of category key on
// container c in a StartOrdered stream: s counts whole, and its time is
// taken from the state it is nested in, which arrived before it.
func (a *Accumulator) innermostStartOrdered(c *contAcc, key int32, s trace.State) {
	gr := c.group(s.Type)
	d := s.Depth
	if d < 0 || s.End < s.Start {
		a.failNesting("a state of type %d on container %d has depth %d and lasts [%s, %s]", s.Type, s.Container, d, s.Start, s.End)
		return
	}
	// In order: by start, depth and end. Zero-length states count for
	// nothing, so their place does not matter, as long as they do not
	// fall inside a state at their depth or deeper (below).
	if s.Start < s.End {
		if p := gr.prev; gr.hasPrev && !(p.Start < s.Start || p.Start == s.Start && (p.Depth < d || p.Depth == d && p.End < s.End)) {
			a.failNesting("a state on container %d [%s, %s] at depth %d arrives after [%s, %s] at depth %d", s.Container, s.Start, s.End, d, p.Start, p.End, p.Depth)
			return
		}
		gr.prev, gr.hasPrev = s, true
	}
	// The states at depth d or deeper are over: they must have ended.
	for n := len(gr.open); n > 0 && gr.open[n-1].depth >= d; n-- {
		if top := gr.open[n-1]; top.end > s.Start {
			a.failNesting("a state on container %d [%s, %s] at depth %d starts before [%s, %s] at depth %d ends", s.Container, s.Start, s.End, d, top.start, top.end, top.depth)
			return
		}
		gr.open = gr.open[:n-1]
	}
	if s.Start == s.End {
		// A zero-length state counts for nothing and holds nothing; it
		// may come after a state that starts with it and ends an enclosing
		// state, as Build sorts them.
		return
	}
	var parent *openState
	if d > 0 {
		n := len(gr.open)
		if n == 0 || gr.open[n-1].depth != d-1 || s.Start < gr.open[n-1].start || s.End > gr.open[n-1].end {
			a.failNesting("a state on container %d [%s, %s] at depth %d is not nested in a state at depth %d", s.Container, s.Start, s.End, d, d-1)
			return
		}
		parent = &gr.open[n-1]
	}
	ps := a.spans(s.Start, s.End)
	a.add(c, s.Container, key, ps)
	if parent != nil && len(ps) > 0 {
		if parent.col < 0 { // cannot be: s lies in it
			a.failNesting("a state on container %d [%s, %s] lies outside the window, not the state nested in it", s.Container, parent.start, parent.end)
			return
		}
		// The enclosing state loses the time of s.
		j := 0
		for _, p := range ps {
			a.dur[p.k][parent.col] -= p.d
			if !a.average {
				continue
			}
			for j < len(parent.own) && parent.own[j].k < p.k {
				j++
			}
			if j == len(parent.own) || parent.own[j].k != p.k || parent.own[j].d < p.d {
				a.failNesting("the states nested in a state on container %d [%s, %s] cover more than it", s.Container, parent.start, parent.end)
				return
			}
			if parent.own[j].d -= p.d; parent.own[j].d == 0 {
				a.stays[p.k][parent.col]-- // no time of its own left in the slice
			}
		}
	}
	// s may get nested states: keep it open, reusing the space of a
	// state closed before.
	n := len(gr.open)
	if n < cap(gr.open) {
		gr.open = gr.open[:n+1]
	} else {
		gr.open = append(gr.open, openState{})
	}
	o := &gr.open[n]
	o.col, o.start, o.end, o.depth = -1, s.Start, s.End, d
	o.own = o.own[:0]
	if len(ps) > 0 {
		o.col = a.col(c, s.Container, key)
		if a.average {
			o.own = append(o.own, ps...)
		}
	}
}

// Event implements trace.Sink.
func (a *Accumulator) Event(e trace.Event) {
	a.counts.Events++
	a.firstUse(e.Type, e.Value, e.Time)
	if a.kind != trace.KindEvent || !a.typeSel[e.Type] {
		return
	}
	key := a.use(e.Container, e.Type, e.Value)
	if !a.active {
		return
	}
	if k := a.g.sliceOf(e.Time); k >= 0 {
		a.dur[k][a.col(&a.conts[e.Container], e.Container, key)]++
	}
}

// Variable implements trace.Sink.
func (a *Accumulator) Variable(v trace.Variable) {
	a.counts.Variables++
	a.firstUse(v.Type, trace.None, v.Start)
	if a.kind != trace.KindVariable || !a.typeSel[v.Type] {
		return
	}
	key := a.use(v.Container, v.Type, 0)
	if math.IsNaN(v.Value) || math.IsInf(v.Value, 0) {
		a.nanCount++
		if _, ok := a.nan[v.Container]; !ok {
			a.nan[v.Container] = nanVariable{a.nanCount, v}
		}
		return
	}
	if !a.active {
		return
	}
	ps := a.spans(v.Start, v.End)
	if len(ps) == 0 {
		return
	}
	col := a.col(&a.conts[v.Container], v.Container, key)
	for _, p := range ps {
		a.sum[p.k][col] += v.Value * float64(p.d)
	}
}

// Model returns the model of the trace streamed, as Build gives it, once
// Finish has come: ErrWindow if the window sliced is not the trace's,
// ErrNesting if the innermost states could not be followed, Build's
// errors otherwise.
func (a *Accumulator) Model() (*Model, error) {
	if !a.finished {
		return nil, errors.New("micro: the trace has not been read to its end")
	}
	opt, err := a.opt.Resolve(a.start, a.end) // on the trace's extent, now known
	if err != nil {
		return nil, err
	}
	start, end := opt.Window(a.start, a.end)
	if end <= start {
		return nil, emptyWindow(opt, start, end, a.start, a.end)
	}
	if err := checkGrid(opt, start, end); err != nil {
		return nil, err
	}
	if start != a.g.start || end != a.g.end {
		return nil, ErrWindow
	}
	t := a.skel
	typeSel, err := selectTypes(t, a.kind, a.names)
	if err != nil {
		return nil, err
	}
	if a.err != nil {
		return nil, a.err
	}
	key, _ := ParseKey(string(a.opt.Key)) // checked by NewAccumulator
	m, leafOf, categoryOf, slot, err := layout(t, a.metric, key, typeSel,
		usage{hasData: a.hasData, used: a.typeUsed, noValue: a.noValue, spans: a.spanData}, a.opt, start, end)
	if err != nil {
		return nil, err
	}
	m.Origin = a.start
	m.Steps = a.steps.within(start, end)
	if err := a.nanError(leafOf); err != nil {
		return nil, err
	}
	g := a.g
	g.nCat, g.leaves = len(m.States), len(m.Tree.Leaves)
	// The model's cells add up the accumulator's columns: each column is a
	// container and category key, which falls on a leaf and category of
	// the model (several columns may fall on one: values that share a
	// category, KeyCategory).
	type part struct{ leaf, cat, col int32 }
	parts := make([]part, 0, len(a.colCont))
	out := newLeftOuts(int(g.n))
	for col, ci := range a.colCont {
		// The columns of the entities left out, on resources or not,
		// are what the model reports of them.
		if code := a.keys[a.colKey[col]]; code >= 0 && a.kind != trace.KindVariable {
			if r := a.opt.leftOutRole(t.Values[code]); r != trace.RoleNone {
				for k := range g.n {
					out.add(r, code, int(k), a.dur[k][col])
				}
				continue
			}
		}
		leaf := leafOf[ci]
		if leaf < 0 {
			continue
		}
		var cat, typ int32
		switch code := a.keys[a.colKey[col]]; {
		case code >= 0:
			cat, typ = categoryOf[code], t.Values[code].Type
		case a.kind == trace.KindVariable:
			cat, typ = categoryOf[-1-code], -1-code
		default:
			cat, typ = categoryOf[len(t.Values)+int(-1-code)], -1-code
		}
		if cat < 0 {
			continue
		}
		parts = append(parts, part{leaf + slot[typ], cat, int32(col)})
	}
	// By leaf, then category; a cell's columns in their order.
	slices.SortStableFunc(parts, func(x, y part) int {
		if x.leaf != y.leaf {
			return int(x.leaf - y.leaf)
		}
		return int(x.cat - y.cat)
	})
	if a.metric == EventCount {
		m.LeftOut = out.result(t.Values, a.opt, 1)
	} else {
		m.LeftOut = out.result(t.Values, a.opt, float64(g.n)*1e9)
	}
	w := float64(g.width())
	scale := float64(g.n) * 1e9
	// value returns the value of the cell of slice k that the columns of
	// group make: their durations and counts add up, exactly, before the
	// division, as in Build.
	value := func(group []part, k int) float64 {
		switch a.metric {
		case VariableAverage:
			return a.sum[k][group[len(group)-1].col] / w
		case StateAverageDuration:
			var d, stays int64
			for _, p := range group {
				d += a.dur[k][p.col]
				stays += int64(a.stays[k][p.col])
			}
			if stays > 0 {
				return float64(d) / (scale * float64(stays))
			}
			return 0
		}
		var d int64
		for _, p := range group {
			d += a.dur[k][p.col]
		}
		if a.metric == EventCount {
			return float64(d)
		}
		return float64(d) / w
	}
	// The groups of columns that make a cell's category on a leaf (by
	// leaf, then category), and their values slice by slice: read from
	// the accumulator's slices in the order of the groups' columns, a few
	// dozen groups at a time, so that each slice is read in order (by
	// leaf, the columns of a slice are all over it).
	var groups []int // start of each group in parts, and len(parts)
	for i := range parts {
		if i == 0 || parts[i].leaf != parts[i-1].leaf || parts[i].cat != parts[i-1].cat {
			groups = append(groups, i)
		}
	}
	groups = append(groups, len(parts))
	ng, n := len(groups)-1, int(g.n)
	order := make([]int32, ng)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(x, y int32) int { return int(parts[groups[x]].col - parts[groups[y]].col) })
	vals := make([]float64, ng*n)
	for b := 0; b < ng; b += 64 {
		block := order[b:min(b+64, ng)]
		for k := range n {
			for _, gi := range block {
				vals[int(gi)*n+k] = value(parts[groups[gi]:groups[gi+1]], k)
			}
		}
	}
	// each calls f for the non-zero values of the cells, in order, and
	// end after each cell.
	each := func(f func(cat int32, v float64), end func()) {
		gi := 0
		for leaf := int32(0); leaf < int32(g.leaves); leaf++ {
			hi := gi
			for hi < ng && parts[groups[hi]].leaf == leaf {
				hi++
			}
			for k := range n {
				for i := gi; i < hi; i++ {
					if v := vals[i*n+k]; v != 0 {
						f(parts[groups[i]].cat, v)
					}
				}
				end()
			}
			gi = hi
		}
	}
	// Sparse or dense, whichever is worth it (Model), counted before the
	// values are stored.
	cells, nonZero := g.leaves*int(g.n), 0
	each(func(int32, float64) { nonZero++ }, func() {})
	if sparse.Pays(nonZero, cells, g.nCat) {
		if err := checkBytes(a.opt, g, 12*float64(nonZero)+8*float64(cells+1)); err != nil {
			return nil, err
		}
		m.Cells = sparse.New(cells, nonZero)
		each(m.Cells.Add, m.Cells.Close)
		return m, nil
	}
	if err := checkBytes(a.opt, g, 8*float64(cells)*float64(g.nCat)); err != nil {
		return nil, err
	}
	m.Values = make([]float64, cells*g.nCat)
	cell := 0
	each(func(cat int32, v float64) { m.Values[cell*g.nCat+int(cat)] = v }, func() { cell++ })
	return m, nil
}

// nanError is Build's error for the first non-finite variable of a
// resource, if any.
func (a *Accumulator) nanError(leafOf []int32) error {
	first := nanVariable{seq: -1}
	for c, nv := range a.nan {
		if leafOf[c] >= 0 && (first.seq < 0 || nv.seq < first.seq) {
			first = nv
		}
	}
	if first.seq < 0 {
		return nil
	}
	v := first.v
	return errs.Argument("variables", "variable %s of %s is %v at %s s from the trace's start", a.skel.Types[v.Type].Name,
		a.skel.ContainerPath(v.Container, "/"), v.Value, v.Start-a.start)
}
