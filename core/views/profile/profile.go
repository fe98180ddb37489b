// Package profile computes the flat profile of a trace's states (for each
// state name: how many, their inclusive and exclusive time) and their load
// imbalance across processes, with pipit's semantics (Bhatele et al.,
// "Pipit: Scripting the analysis of parallel execution traces", 2023;
// github.com/hpcgroup/pipit, Trace.flat_profile and Trace.load_imbalance):
//
//   - a state's inclusive time is its duration; its exclusive time is that
//     minus the inclusive time of the states directly nested in it (depth
//     d+1 on the same container and state type, within it);
//   - a name's time in a process is the sum over its states on the
//     process's containers (the threads of a process add up; a container
//     whose type is a thread's (trace.IsThread) belongs to its parent, any other
//     container is a process of its own, or By: ByContainer keeps every
//     container apart);
//   - the profile of a name is the mean of its times over the processes
//     that have it (pipit's flat_profile), beside their sum;
//   - its imbalance is the largest of those times over their mean
//     (pipit's load_imbalance), the processes of the largest first.
//
// A state nested in another of the same name (recursion) adds its
// inclusive time again, as in pipit; exclusive times are not counted
// twice. Where pipit pairs a Leave with the latest Enter of the same name,
// readers close the innermost open state (see the OTF2 reader), so traces
// whose regions do not nest properly differ on those regions.
//
// The Accumulator is a trace.Sink: it computes while a reader streams the
// trace, its memory one sum per state name and process plus one number per
// open nesting level of each container.
package profile

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// By says what a profile's times are summed over.
type By uint8

// The groupings.
const (
	// ByProcess sums the threads of a process (pipit's Process column).
	ByProcess By = iota
	// ByContainer keeps every container apart.
	ByContainer
)

// ParseBy reads "process" or "container" (also "thread"); "" is process.
func ParseBy(s string) (By, error) {
	switch strings.ToLower(s) {
	case "", "process":
		return ByProcess, nil
	case "container", "thread", "resource":
		return ByContainer, nil
	}
	return 0, errs.Argument("by", "%q is not process or container", s)
}

func (b By) String() string {
	if b == ByContainer {
		return "container"
	}
	return "process"
}

// Options choose what a profile covers.
type Options struct {
	// StateTypes restricts the profile to these state types (all when
	// empty).
	StateTypes []string
	By         By
	// Cancel, once closed, stops Compute (while it replays the trace)
	// and Result, which return trace.ErrComputationCanceled and no
	// result. Nil: never.
	Cancel <-chan struct{}
}

// Sum is the time of one state name in one process.
type Sum struct {
	Count                int64
	Inclusive, Exclusive trace.Time
}

// Name is a state name of a state type.
type Name struct{ Type, Name string }

// Result is a profile: the sum of every state name in every process.
type Result struct {
	Names     []Name
	Processes []string // paths of the processes (or containers)
	// Sums[i] holds name i's sums by process index; only the processes
	// that have the name are present.
	Sums       []map[int32]Sum
	Start, End trace.Time
	By         By
}

// Accumulator computes a profile while a trace streams by.
type Accumulator struct {
	opt        Options
	types      []typeInfo
	values     []int32 // name index of each state value, -1 for other values
	containers []container
	names      []Name
	nameIndex  map[Name]int32
	procIndex  map[int32]int32 // process container -> process index
	procs      []int32         // process containers, by index
	// cells holds the sums, cellIndex the cell of each state name in
	// each process.
	cells      []cell
	cellIndex  map[cellKey]int32
	start, end trace.Time
	finished   bool
	err        error
}

type typeInfo struct {
	name     string
	kind     trace.Kind
	selected bool
	thread   bool // containers of this type are threads (trace.IsThread)
}

type container struct {
	name        string
	parent, typ int32
	process     int32 // index of the process its states count for, -1 until known
	streams     []stream
}

// stream follows the states of one state type on one container: levels[d]
// is the inclusive time of the completed states of depth d whose
// enclosing state has not completed yet.
type stream struct {
	typ int32
	// levels[d] sums the inclusive time of the states at depth d delivered
	// before the state at depth d-1 that holds them (a reader delivering a
	// state once it ends: the innermost first).
	levels []trace.Time
	// last[d] is the last state delivered at depth d, with its cell: a
	// state at depth d+1 within it was delivered after it (a reader
	// delivering states as they begin, as Chrome's complete events are),
	// and is taken off its exclusive time at once.
	last []lastState
}

type lastState struct {
	start, end trace.Time
	cell       int32 // -1: none
}

type cellKey struct{ name, process int32 }

type cell struct {
	cellKey
	Sum
}

// New returns an accumulator.
func New(opt Options) *Accumulator {
	return &Accumulator{
		opt:        opt,
		containers: []container{{name: "0", parent: trace.None, typ: trace.None, process: -1}},
		nameIndex:  map[Name]int32{},
		procIndex:  map[int32]int32{},
		cellIndex:  map[cellKey]int32{},
	}
}

// Compute profiles a trace held in memory.
func Compute(t *trace.Trace, opt Options) (*Result, error) {
	a := New(opt)
	if err := t.ReplayCancel(a, opt.Cancel); err != nil {
		return nil, err
	}
	return a.Result()
}

func (a *Accumulator) fail(format string, args ...any) {
	if a.err == nil {
		a.err = fmt.Errorf("profile: "+format, args...)
	}
}

// DefineType implements trace.Sink.
func (a *Accumulator) DefineType(t trace.Type) {
	sel := t.Kind == trace.KindState && (len(a.opt.StateTypes) == 0 || slices.Contains(a.opt.StateTypes, t.Name))
	a.types = append(a.types, typeInfo{name: t.Name, kind: t.Kind, selected: sel, thread: trace.IsThread(t)})
}

// DefineValue implements trace.Sink.
func (a *Accumulator) DefineValue(v trace.Value) {
	idx := int32(-1)
	if v.Type >= 0 && int(v.Type) < len(a.types) && a.types[v.Type].selected {
		k := Name{a.types[v.Type].name, v.Name}
		i, ok := a.nameIndex[k]
		if !ok {
			i = int32(len(a.names))
			a.nameIndex[k] = i
			a.names = append(a.names, k)
		}
		idx = i
	}
	a.values = append(a.values, idx)
}

// CreateContainer implements trace.Sink.
func (a *Accumulator) CreateContainer(c trace.Container) {
	if c.Parent < 0 || int(c.Parent) >= len(a.containers) {
		a.fail("container %q has unknown parent %d", c.Name, c.Parent)
		c.Parent = 0
	}
	a.containers = append(a.containers, container{name: c.Name, parent: c.Parent, typ: c.Type, process: -1})
}

// DestroyContainer implements trace.Sink.
func (a *Accumulator) DestroyContainer(int32, trace.Time) {}

// State implements trace.Sink.
func (a *Accumulator) State(s trace.State) {
	if s.Type < 0 || int(s.Type) >= len(a.types) || s.Value < 0 || int(s.Value) >= len(a.values) ||
		s.Container < 0 || int(s.Container) >= len(a.containers) {
		a.fail("state of unknown type %d, value %d or container %d", s.Type, s.Value, s.Container)
		return
	}
	if !a.types[s.Type].selected || s.Depth < 0 {
		return
	}
	name := a.values[s.Value]
	if name < 0 {
		a.fail("state value %d is not of state type %q", s.Value, a.types[s.Type].name)
		return
	}
	c := &a.containers[s.Container]
	st := c.stream(s.Type)
	d := int(s.Depth)
	for len(st.levels) < d+2 {
		st.levels = append(st.levels, 0)
		st.last = append(st.last, lastState{cell: -1})
	}
	inc := s.End - s.Start
	exc := inc - st.levels[d+1]
	st.levels[d+1] = 0
	// The state that holds it was delivered already (it began before and
	// ends after; a sibling delivered before ends at or before this one's
	// start, which holds it only when this one is empty and at its end).
	if p := st.last[max(d-1, 0)]; d > 0 && p.cell >= 0 && p.start <= s.Start && s.End <= p.end && s.Start < p.end {
		a.cells[p.cell].Exclusive -= inc
	} else {
		st.levels[d] += inc
	}
	if c.process < 0 {
		c.process = a.process(s.Container)
	}
	k := cellKey{name, c.process}
	i, ok := a.cellIndex[k]
	if !ok {
		i = int32(len(a.cells))
		a.cellIndex[k] = i
		a.cells = append(a.cells, cell{cellKey: k})
	}
	st.last[d] = lastState{s.Start, s.End, i}
	sum := &a.cells[i].Sum
	sum.Count++
	sum.Inclusive += inc
	sum.Exclusive += exc
}

// stream returns the stream of state type typ on c, creating it.
func (c *container) stream(typ int32) *stream {
	for i := range c.streams {
		if c.streams[i].typ == typ {
			return &c.streams[i]
		}
	}
	c.streams = append(c.streams, stream{typ: typ})
	return &c.streams[len(c.streams)-1]
}

// process returns the index of the process a container's states count
// for.
func (a *Accumulator) process(id int32) int32 {
	p := id
	if c := a.containers[id]; a.opt.By == ByProcess && c.parent > 0 && c.typ >= 0 &&
		a.types[c.typ].thread {
		p = c.parent
	}
	i, ok := a.procIndex[p]
	if !ok {
		i = int32(len(a.procs))
		a.procIndex[p] = i
		a.procs = append(a.procs, p)
	}
	return i
}

// Variable implements trace.Sink.
func (a *Accumulator) Variable(trace.Variable) {}

// Link implements trace.Sink.
func (a *Accumulator) Link(trace.Link) {}

// Event implements trace.Sink.
func (a *Accumulator) Event(trace.Event) {}

// Finish implements trace.Sink.
func (a *Accumulator) Finish(start, end trace.Time) {
	if a.finished {
		a.fail("Finish called twice")
	}
	a.finished, a.start, a.end = true, start, end
}

// Result returns the profile once the trace has finished.
func (a *Accumulator) Result() (*Result, error) {
	if a.err != nil {
		return nil, a.err
	}
	if !a.finished {
		return nil, fmt.Errorf("profile: the trace has not finished")
	}
	look := trace.Looker{Cancel: a.opt.Cancel}
	if err := look.Stopped(0); err != nil {
		return nil, err
	}
	for _, name := range a.opt.StateTypes {
		if !slices.ContainsFunc(a.types, func(t typeInfo) bool { return t.kind == trace.KindState && t.name == name }) {
			return nil, errs.Argument("state_types", "the trace has no state type %q", name)
		}
	}
	r := &Result{Start: a.start, End: a.end, By: a.opt.By}
	// Processes in the order of their containers; names that occur.
	order := make([]int32, len(a.procs))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(i, j int32) int { return cmp.Compare(a.procs[i], a.procs[j]) })
	renumber := make([]int32, len(a.procs))
	for newIdx, old := range order {
		renumber[old] = int32(newIdx)
		r.Processes = append(r.Processes, a.path(a.procs[old]))
	}
	byName := make([]map[int32]Sum, len(a.names))
	for _, c := range a.cells {
		if err := look.Stopped(1); err != nil {
			return nil, err
		}
		if byName[c.name] == nil {
			byName[c.name] = map[int32]Sum{}
		}
		byName[c.name][renumber[c.process]] = c.Sum
	}
	for i, n := range a.names {
		if byName[i] != nil {
			r.Names = append(r.Names, n)
			r.Sums = append(r.Sums, byName[i])
		}
	}
	return r, nil
}

func (a *Accumulator) path(id int32) string {
	return trace.JoinPath(id, "/", func(c int32) (string, int32) { return a.containers[c].name, a.containers[c].parent })
}
