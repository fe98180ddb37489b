// Package commmatrix counts the communications of a trace between its
// resources: for every link type and every pair (source, destination),
// how many links and how many bytes. Links are whatever the format
// records between two containers: MPI messages (Paraver, OTF2, SMPI),
// CUDA and HIP kernel launches (nsys, rocprof), flows (Chrome, Perfetto),
// goroutine creations (Go).
//
// The pairs are taken at a level of the hierarchy: by process (a
// container whose type is a thread's (trace.IsThread) counts for its parent, as pipit's
// comm_matrix counts ranks), by container, or by the nearest ancestor of a
// given container type (node, machine...). A link goes from its From
// container to its To container: sender to receiver.
//
// The Accumulator is a trace.Sink: it counts while a reader streams the
// trace, its memory one sum per link type and pair.
package commmatrix

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Options choose how links are grouped.
type Options struct {
	// Level is "process" (the default), "container", or the name of a
	// container type: each end counts for its nearest container of that
	// type (itself or an ancestor), or for itself if it has none.
	Level string
	// LinkTypes restricts the matrix to these link types (all when empty).
	LinkTypes []string
	// Cancel, once closed, stops Compute (while it replays the trace)
	// and Result, which return trace.ErrComputationCanceled and no
	// result. Nil: never.
	Cancel <-chan struct{}
}

// Row is the communication of one link type from one group to another.
type Row struct {
	Type                string // the link type
	Source, Destination string // paths of the groups
	Count               int64
	// Bytes adds up the sizes the trace gives; Sized counts the links
	// that have one, Min and Max bound them (NaN when none has one).
	Bytes    float64
	Sized    int64
	Min, Max float64
}

// Result is a communication matrix in long form.
type Result struct {
	Rows []Row
	// Groups lists the sources and destinations, in the order of their
	// containers in the trace.
	Groups     []string
	Level      string
	Start, End trace.Time
}

// Accumulator counts links while a trace streams by.
type Accumulator struct {
	opt        Options
	types      []typeInfo
	containers []container
	cells      []cell
	index      map[cellKey]int32
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
	group       int32 // the container it counts for, -1 until known
}

type cellKey struct{ typ, from, to int32 }

type cell struct {
	cellKey
	count, sized int64
	bytes        float64
	min, max     float64
}

// New returns an accumulator, or an *errs.ArgumentError for bad options.
func New(opt Options) (*Accumulator, error) {
	if strings.TrimSpace(opt.Level) == "" && opt.Level != "" {
		return nil, errs.Argument("level", "empty level")
	}
	return &Accumulator{
		opt:        opt,
		containers: []container{{name: "0", parent: trace.None, typ: trace.None, group: 0}},
		index:      map[cellKey]int32{},
	}, nil
}

// Compute counts the links of a trace held in memory.
func Compute(t *trace.Trace, opt Options) (*Result, error) {
	a, err := New(opt)
	if err != nil {
		return nil, err
	}
	if err := t.ReplayCancel(a, opt.Cancel); err != nil {
		return nil, err
	}
	return a.Result()
}

func (a *Accumulator) fail(format string, args ...any) {
	if a.err == nil {
		a.err = fmt.Errorf("commmatrix: "+format, args...)
	}
}

// DefineType implements trace.Sink.
func (a *Accumulator) DefineType(t trace.Type) {
	sel := t.Kind == trace.KindLink && (len(a.opt.LinkTypes) == 0 || slices.Contains(a.opt.LinkTypes, t.Name))
	a.types = append(a.types, typeInfo{name: t.Name, kind: t.Kind, selected: sel, thread: trace.IsThread(t)})
}

// DefineValue implements trace.Sink.
func (a *Accumulator) DefineValue(trace.Value) {}

// CreateContainer implements trace.Sink.
func (a *Accumulator) CreateContainer(c trace.Container) {
	if c.Parent < 0 || int(c.Parent) >= len(a.containers) {
		a.fail("container %q has unknown parent %d", c.Name, c.Parent)
		c.Parent = 0
	}
	a.containers = append(a.containers, container{name: c.Name, parent: c.Parent, typ: c.Type, group: -1})
}

// DestroyContainer implements trace.Sink.
func (a *Accumulator) DestroyContainer(int32, trace.Time) {}

// State implements trace.Sink.
func (a *Accumulator) State(trace.State) {}

// Variable implements trace.Sink.
func (a *Accumulator) Variable(trace.Variable) {}

// Event implements trace.Sink.
func (a *Accumulator) Event(trace.Event) {}

// Link implements trace.Sink.
func (a *Accumulator) Link(l trace.Link) {
	if l.Type < 0 || int(l.Type) >= len(a.types) || l.From < 0 || l.To < 0 ||
		int(l.From) >= len(a.containers) || int(l.To) >= len(a.containers) {
		a.fail("link of unknown type %d or between unknown containers %d and %d", l.Type, l.From, l.To)
		return
	}
	if !a.types[l.Type].selected {
		return
	}
	k := cellKey{l.Type, a.group(l.From), a.group(l.To)}
	i, ok := a.index[k]
	if !ok {
		i = int32(len(a.cells))
		a.index[k] = i
		a.cells = append(a.cells, cell{cellKey: k, min: math.NaN(), max: math.NaN()})
	}
	c := &a.cells[i]
	c.count++
	if s := l.Size; !math.IsNaN(s) {
		c.sized++
		c.bytes += s
		if c.sized == 1 {
			c.min, c.max = s, s
		} else {
			c.min, c.max = min(c.min, s), max(c.max, s)
		}
	}
}

// group returns the container a link end counts for.
func (a *Accumulator) group(id int32) int32 {
	c := &a.containers[id]
	if c.group >= 0 {
		return c.group
	}
	g := id
	switch level := a.opt.Level; level {
	case "", "process":
		if c.parent > 0 && c.typ >= 0 && a.types[c.typ].thread {
			g = c.parent
		}
	case "container":
	default:
		for p := id; p > 0; p = a.containers[p].parent {
			if t := a.containers[p].typ; t >= 0 && a.types[t].name == level {
				g = p
				break
			}
		}
	}
	c.group = g
	return g
}

// Finish implements trace.Sink.
func (a *Accumulator) Finish(start, end trace.Time) {
	if a.finished {
		a.fail("Finish called twice")
	}
	a.finished, a.start, a.end = true, start, end
}

// Result returns the matrix once the trace has finished: rows by link
// type, then source and destination in the order of the containers.
func (a *Accumulator) Result() (*Result, error) {
	if a.err != nil {
		return nil, a.err
	}
	if !a.finished {
		return nil, fmt.Errorf("commmatrix: the trace has not finished")
	}
	look := trace.Looker{Cancel: a.opt.Cancel}
	if err := look.Stopped(0); err != nil {
		return nil, err
	}
	for _, name := range a.opt.LinkTypes {
		if !slices.ContainsFunc(a.types, func(t typeInfo) bool { return t.kind == trace.KindLink && t.name == name }) {
			return nil, errs.Argument("link_types", "the trace has no link type %q", name)
		}
	}
	level := a.opt.Level
	if level == "" {
		level = "process"
	}
	if level != "process" && level != "container" &&
		!slices.ContainsFunc(a.types, func(t typeInfo) bool { return t.kind == trace.KindContainer && t.name == level }) {
		return nil, errs.Argument("level", "the trace has no container type %q (levels: process, container, or a container type)", level)
	}
	cells := slices.Clone(a.cells)
	slices.SortFunc(cells, func(x, y cell) int {
		return cmp.Or(cmp.Compare(a.types[x.typ].name, a.types[y.typ].name), cmp.Compare(x.from, y.from), cmp.Compare(x.to, y.to))
	})
	r := &Result{Level: level, Start: a.start, End: a.end}
	paths := map[int32]string{}
	path := func(id int32) string {
		p, ok := paths[id]
		if !ok {
			p = a.path(id)
			paths[id] = p
		}
		return p
	}
	var groups []int32
	for _, c := range cells {
		groups = append(groups, c.from, c.to)
	}
	slices.Sort(groups)
	for _, g := range slices.Compact(groups) {
		r.Groups = append(r.Groups, path(g))
	}
	if err := look.Stopped(len(cells)); err != nil { // sorted: n log n
		return nil, err
	}
	for _, c := range cells {
		if err := look.Stopped(1); err != nil {
			return nil, err
		}
		r.Rows = append(r.Rows, Row{Type: a.types[c.typ].name, Source: path(c.from), Destination: path(c.to),
			Count: c.count, Bytes: c.bytes, Sized: c.sized, Min: c.min, Max: c.max})
	}
	return r, nil
}

func (a *Accumulator) path(id int32) string {
	return trace.JoinPath(id, "/", func(c int32) (string, int32) { return a.containers[c].name, a.containers[c].parent })
}
