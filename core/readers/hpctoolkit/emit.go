package hpctoolkit

import (
	"strings"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// stateTypeName is the name of the state type of the sampled frames.
const stateTypeName = "Procedure"

// level is one level of a trace line's place in the resource hierarchy: a
// container type and the container's name ("Rank", "Rank 3").
type level struct{ typ, name string }

// builder sends the definitions to the sink as they are first needed:
// container types and containers from the trace lines' hierarchy, one state
// type per container type that holds samples, one value per frame name.
type builder struct {
	sink       trace.Sink
	nTypes     int32
	types      map[typeKey]int32
	containers map[string]int32 // by the path of names from the root
	nConts     int32
	stateTypes map[int32]int32 // container type -> state type
	values     map[valueKey]int32
	nValues    int32
	contType   []int32 // type of each container, by index (root: None)
}

type typeKey struct {
	parent int32
	name   string
}

type valueKey struct {
	typ  int32
	name string
}

func newBuilder(sink trace.Sink) *builder {
	return &builder{
		sink:       sink,
		types:      map[typeKey]int32{},
		containers: map[string]int32{},
		nConts:     1,
		stateTypes: map[int32]int32{},
		values:     map[valueKey]int32{},
		contType:   []int32{trace.None},
	}
}

func (b *builder) typ(parent int32, name string, kind trace.Kind) int32 {
	k := typeKey{parent, name}
	if kind != trace.KindContainer {
		k.name = "\x00" + name // state types never clash with container types
	}
	if t, ok := b.types[k]; ok {
		return t
	}
	b.sink.DefineType(trace.Type{Name: name, Kind: kind, Parent: parent, Start: trace.None, End: trace.None})
	t := b.nTypes
	b.nTypes++
	b.types[k] = t
	return t
}

// container returns the container at the end of path, creating it and its
// ancestors (alive from start) if needed.
func (b *builder) container(path []level, start trace.Time) int32 {
	parent, ptype := int32(0), trace.None
	key := ""
	for _, l := range path {
		key += "\x00" + l.typ + "\x01" + l.name
		t := b.typ(ptype, l.typ, trace.KindContainer)
		c, ok := b.containers[key]
		if !ok {
			b.sink.CreateContainer(trace.Container{Name: l.name, Type: t, Parent: parent, Start: start, End: trace.Unset})
			c = b.nConts
			b.nConts++
			b.containers[key] = c
			b.contType = append(b.contType, t)
		}
		parent, ptype = c, t
	}
	return parent
}

func (b *builder) stateType(container int32) int32 {
	ct := b.contType[container]
	if st, ok := b.stateTypes[ct]; ok {
		return st
	}
	st := b.typ(ct, stateTypeName, trace.KindState)
	b.stateTypes[ct] = st
	return st
}

func (b *builder) value(typ int32, name string) int32 {
	k := valueKey{typ, name}
	if v, ok := b.values[k]; ok {
		return v
	}
	b.sink.DefineValue(trace.Value{Type: typ, Name: name, Role: frameRole(name)})
	v := b.nValues
	b.nValues++
	b.values[k] = v
	return v
}

// flame turns the samples of one trace line into nested states. A sample
// at t in frame f says that the frames from the outermost one down to f
// are active from t until the next sample; the frames a sample shares with
// the previous one (the longest common prefix of the two paths, frames
// compared as nodes of the calling-context tree) go on, the others end at
// t and the new ones begin at t. So a frame's state covers the consecutive
// samples whose call paths run through it, and states nest like the boxes
// of a flame chart. Depth is the frame's depth in the path.
type flame struct {
	b         *builder
	fr        *frames
	container int32
	stype     int32
	stack     []openFrame
	path      []int32 // scratch: the path of the current sample
	begun     int32
	last      trace.Time
	samples   int64
}

type openFrame struct {
	frame int32
	start trace.Time
	order int32
}

func newFlame(b *builder, fr *frames, container int32) *flame {
	return &flame{b: b, fr: fr, container: container, stype: trace.None, last: trace.Time(-1 << 63)}
}

// sample records a sample at t in frame f, trace.None for a sample where
// the thread was idle (no frame active).
func (l *flame) sample(t trace.Time, f int32) {
	l.samples++
	l.last = t
	l.path = l.path[:0]
	for ; f != trace.None; f = l.fr.parent[f] {
		l.path = append(l.path, f)
	}
	// l.path runs from f to the outermost frame: compare from its end.
	k := 0
	for k < len(l.stack) && k < len(l.path) && l.stack[k].frame == l.path[len(l.path)-1-k] {
		k++
	}
	l.close(t, k)
	for i := len(l.path) - 1 - k; i >= 0; i-- {
		l.stack = append(l.stack, openFrame{frame: l.path[i], start: t, order: l.begun})
		l.begun++
	}
}

// close ends at t the open frames deeper than keep, innermost first.
func (l *flame) close(t trace.Time, keep int) {
	for len(l.stack) > keep {
		o := l.stack[len(l.stack)-1]
		l.stack = l.stack[:len(l.stack)-1]
		if l.stype == trace.None {
			l.stype = l.b.stateType(l.container)
		}
		v := l.b.value(l.stype, l.fr.name[o.frame])
		l.b.sink.State(trace.State{
			Container: l.container, Type: l.stype, Value: v,
			Start: o.start, End: t, Depth: int32(len(l.stack)), Order: o.order,
		})
	}
}

// lineStat is what a read tells of one trace line, for the tests.
type lineStat struct {
	container int32
	samples   int64
}

// frameRole returns the role of the frames named name: the placeholders
// of HPCToolkit's OMPT support for an OpenMP thread idle or waiting
// outside a construct ("<omp idle>", "<omp barrier wait>"..., but "<omp
// tool ...>", the tool's own), and the bodies the compilers outline for
// parallel regions.
func frameRole(name string) trace.Role {
	switch {
	case strings.HasPrefix(name, "<omp ") && !strings.HasPrefix(name, "<omp tool"):
		return trace.RoleParallelIdle
	case trace.OutlinedParallelBody(name):
		return trace.RoleParallelRegion
	}
	return trace.RoleNone
}
