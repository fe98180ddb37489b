package moments

import (
	"fmt"
	"math"
	"slices"

	"github.com/macroscope-hpc/macroscope/core/names"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Accumulator is a trace.Sink that computes moments of utilization while a
// reader streams a trace, without keeping the states: its memory is one
// Sums per resource (and per resource and state value with ByState), plus
// for each open nesting level of each resource the little that nested
// states need until their enclosing state completes.
//
// It relies on the Sink contract for states: on one container and state
// type, a state arrives after the states nested in it, and states at the
// same depth arrive in time order without overlapping. A stream that
// breaks it is reported by Err and Result.
type Accumulator struct {
	opt    Options
	lo, hi trace.Time // window clipping bounds; the extremes when open
	// fast: every value counts and nobody asks per value, so nested
	// states cannot change anything and are skipped.
	fast bool

	types  []typeInfo
	values []valueInfo
	// defTypes and defValues are the definitions as the stream gave them,
	// passed on in the Result (they name and colour its states).
	defTypes   []trace.Type
	defValues  []trace.Value
	containers []container
	states     []StateSums
	stateIndex map[stateKey]int32

	typeMatched  []bool // by Options.StateTypes index
	valueMatched []bool // by Options.Values index
	typeUsed     []bool // by type: a selected state type with states
	// held counts, by container type (trace.None for the root), the
	// selected state types its containers hold (see statetypes.go).
	held map[int32]int

	finished   bool
	start, end trace.Time
	err        error
}

type typeInfo struct {
	name     string
	kind     trace.Kind
	parent   int32
	selected bool // a state type the analysis looks at
}

type valueInfo struct {
	name    string
	typ     int32
	counted bool // a busy value of a selected state type
	thread  bool // its name is a thread's (trace.RoleScheduledThread), grouped so
}

type container struct {
	name       string
	typ        int32
	parent     int32
	children   []int32
	start, end trace.Time
	destroyed  bool
	streams    []stream // one per selected state type seen on this container
	// union holds the busy periods of a container whose busy function is
	// the union of several state types' (see statetypes.go).
	union intervalSet
}

type stateKey struct{ container, value int32 }

// unknownStart is the start of the root container until Finish tells it.
const unknownStart trace.Time = math.MinInt64

// New returns an accumulator, or an *errs.ArgumentError for bad options.
func New(opt Options) (*Accumulator, error) {
	if err := opt.validate(); err != nil {
		return nil, err
	}
	a := &Accumulator{
		opt:          opt,
		lo:           math.MinInt64,
		hi:           math.MaxInt64,
		fast:         opt.Select == AllStates && !opt.ByState,
		containers:   []container{{name: "0", typ: trace.None, parent: trace.None, start: unknownStart}},
		stateIndex:   map[stateKey]int32{},
		typeMatched:  make([]bool, len(opt.StateTypes)),
		valueMatched: make([]bool, len(opt.Values)),
		held:         map[int32]int{},
	}
	if opt.Start != nil {
		a.lo = *opt.Start
	}
	if opt.End != nil {
		a.hi = *opt.End
	}
	return a, nil
}

// Err returns the first inconsistency found in the stream so far.
func (a *Accumulator) Err() error { return a.err }

func (a *Accumulator) fail(format string, args ...any) {
	if a.err == nil {
		a.err = fmt.Errorf("moments: "+format, args...)
	}
}

// DefineType implements trace.Sink.
func (a *Accumulator) DefineType(t trace.Type) {
	a.defTypes = append(a.defTypes, t)
	sel := false
	if t.Kind == trace.KindState {
		sel = len(a.opt.StateTypes) == 0
		for i, name := range a.opt.StateTypes {
			if name == t.Name {
				sel, a.typeMatched[i] = true, true
			}
		}
	}
	a.types = append(a.types, typeInfo{name: t.Name, kind: t.Kind, parent: t.Parent, selected: sel})
	a.typeUsed = append(a.typeUsed, false)
	if sel {
		a.holdType(t.Parent, t.Name)
	}
}

// DefineValue implements trace.Sink.
func (a *Accumulator) DefineValue(v trace.Value) {
	a.defValues = append(a.defValues, v)
	counted := false
	if v.Type >= 0 && int(v.Type) < len(a.types) && a.types[v.Type].selected {
		// A busy state is named as the file writes it or by its group,
		// as the legend shows it (busy=["aten::copy_"] takes every
		// "aten::copy_, op_id = N"), the groups that need the trace's
		// other names included, which are not known yet: busy=["L5
		// Slice"] takes "L5 Slice 17", and busy=["Frame"] the frames a
		// Perfetto trace names by their token, even in a trace with too
		// few of them for the legend to group them.
		i := slices.Index(a.opt.Values, v.Name)
		if i < 0 {
			for _, g := range names.PossibleGroups(v.Name, a.types[v.Type].name, v.Role == trace.RoleScheduledThread) {
				if i = slices.Index(a.opt.Values, g); i >= 0 {
					break
				}
			}
		}
		if i >= 0 {
			a.valueMatched[i] = true
		}
		switch a.opt.Select {
		case AllStates:
			counted = true
		case Only:
			counted = i >= 0
		case AllBut:
			counted = i < 0
		}
	}
	a.values = append(a.values, valueInfo{name: v.Name, typ: v.Type, counted: counted, thread: v.Role == trace.RoleScheduledThread})
}

// CreateContainer implements trace.Sink.
func (a *Accumulator) CreateContainer(c trace.Container) {
	id := int32(len(a.containers))
	if c.Parent < 0 || int(c.Parent) >= len(a.containers) {
		a.fail("container %q (%d) has unknown parent %d", c.Name, id, c.Parent)
		c.Parent = 0
	}
	a.containers = append(a.containers, container{name: c.Name, typ: c.Type, parent: c.Parent, start: c.Start})
	p := &a.containers[c.Parent]
	p.children = append(p.children, id)
}

// DestroyContainer implements trace.Sink.
func (a *Accumulator) DestroyContainer(id int32, at trace.Time) {
	if id < 0 || int(id) >= len(a.containers) {
		a.fail("destroying unknown container %d", id)
		return
	}
	c := &a.containers[id]
	if c.destroyed {
		a.fail("container %q (%d) is destroyed twice", c.name, id)
		return
	}
	a.closeContainer(id, at)
}

// closeContainer ends the life of container id at time at: the time since
// its last state of each selected type is a gap.
func (a *Accumulator) closeContainer(id int32, at trace.Time) {
	c := &a.containers[id]
	c.destroyed, c.end = true, at
	if !a.opt.Gaps {
		return
	}
	for typ := range a.types {
		t := &a.types[typ]
		if !t.selected || t.parent != c.typ {
			continue
		}
		st := a.stream(c, int32(typ))
		a.gap(id, st, at)
	}
}

// State implements trace.Sink.
func (a *Accumulator) State(s trace.State) {
	if a.err != nil {
		return
	}
	if s.Type < 0 || int(s.Type) >= len(a.types) || s.Container < 0 || int(s.Container) >= len(a.containers) {
		a.fail("state of unknown type %d or container %d", s.Type, s.Container)
		return
	}
	if !a.types[s.Type].selected {
		return
	}
	a.typeUsed[s.Type] = true
	c := &a.containers[s.Container]
	switch {
	case s.Value < 0 || int(s.Value) >= len(a.values):
		a.fail("state on container %q has unknown value %d", c.name, s.Value)
	case s.End < s.Start:
		a.fail("state %q on container %q ends at %s, before it starts at %s", a.values[s.Value].name, c.name, s.End, s.Start)
	case s.Depth < 0:
		a.fail("state %q on container %q has negative depth %d", a.values[s.Value].name, c.name, s.Depth)
	case c.destroyed:
		a.fail("state %q on container %q after its destruction", a.values[s.Value].name, c.name)
	case a.fast && s.Depth > 0:
		// Enclosed in a depth-0 state that counts entirely.
	default:
		a.state(s, c)
	}
}

// Variable implements trace.Sink; variables do not make resources busy.
func (a *Accumulator) Variable(trace.Variable) {}

// Link implements trace.Sink; links do not make resources busy.
func (a *Accumulator) Link(trace.Link) {}

// Event implements trace.Sink; events do not make resources busy.
func (a *Accumulator) Event(trace.Event) {}

// Finish implements trace.Sink: containers still alive end with the trace.
func (a *Accumulator) Finish(start, end trace.Time) {
	if a.finished {
		a.fail("Finish called twice")
		return
	}
	a.finished, a.start, a.end = true, start, end
	root := &a.containers[0]
	root.start = start
	for i := range root.streams {
		a.resolveLead(0, &root.streams[i], start)
	}
	for id := range a.containers {
		if !a.containers[id].destroyed {
			a.closeContainer(int32(id), end)
		}
	}
}

// emit adds the busy interval [x, y) of value v of stream st to
// container id, clipped to the window.
func (a *Accumulator) emit(id int32, st *stream, v int32, x, y trace.Time) {
	x, y = max(x, a.lo), min(y, a.hi)
	if y <= x {
		return
	}
	if c := &a.containers[id]; a.acrossTypes(c) {
		c.union.add(x, y)
	} else if st.run && x == st.runB {
		st.runB = y
	} else {
		st.flushRun()
		st.run, st.runA, st.runB = true, x, y
	}
	if a.opt.ByState {
		a.stateSums(id, v).Add(x, y)
	}
}

// emitSums adds busy time of stream st already gathered in sums. When
// the container's busy function is a union across types, the intervals
// themselves come separately (see stream.state).
func (a *Accumulator) emitSums(id int32, st *stream, v int32, s Sums) {
	if s.Empty() {
		return
	}
	if !a.acrossTypes(&a.containers[id]) {
		st.flushRun()
		st.busy.Merge(s)
	}
	if a.opt.ByState {
		a.stateSums(id, v).Merge(s)
	}
}

func (a *Accumulator) stateSums(id, v int32) *Sums {
	k := stateKey{id, v}
	i, ok := a.stateIndex[k]
	if !ok {
		i = int32(len(a.states))
		a.stateIndex[k] = i
		a.states = append(a.states, StateSums{Container: id, Value: v})
	}
	return &a.states[i].Sums
}

// clipAdd adds [x, y) clipped to the window to s.
func (a *Accumulator) clipAdd(s *Sums, x, y trace.Time) {
	s.Add(max(x, a.lo), min(y, a.hi))
}
