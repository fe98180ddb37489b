package trace

import (
	"math"
	"slices"
	"strings"
)

// Unset is the End of a container that has not been destroyed yet.
const Unset Time = math.MinInt64

// Trace is a complete trace in memory. Entities are stored column-wise in
// the order the reader completed them.
type Trace struct {
	Files      []string
	Types      []Type
	Values     []Value
	Containers []Container // Containers[0] is the root
	// The entities, column-wise, in blocks (see StateColumn).
	States     StateColumn
	Variables  VariableColumn
	Links      LinkColumn
	Events     EventColumn
	Start, End Time // first and last instant of the trace
	// KeepArgs, set before reading, asks readers for the arguments of
	// states and events (see ArgsSink); they are not kept by default.
	KeepArgs bool
	// StateArgs and EventArgs hold the arguments (JSON text) of the states
	// and events the reader gave any, by entity index; they are nil when
	// no entity has arguments and may be shorter than States and Events,
	// the missing tail meaning none. See ArgsSink and ArgsOf.
	StateArgs, EventArgs []string
}

// New returns an empty trace whose root container is named "0" like
// PajeNG's, ready to receive a reader's calls.
func New(files ...string) *Trace {
	return &Trace{
		Files:      files,
		Containers: []Container{{Name: "0", Alias: "0", Type: None, Parent: None}},
	}
}

// ReadFunc is a reader's streaming entry point: it decodes the trace at
// path into sink.
type ReadFunc func(path string, sink Sink, opt ReadOptions) error

// Load reads the trace at path into memory with read.
func Load(path string, read ReadFunc) (*Trace, error) {
	t := New(path)
	if err := read(path, t, ReadOptions{}); err != nil {
		return nil, err
	}
	return t, nil
}

// DefineType implements Sink.
func (t *Trace) DefineType(ty Type) { t.Types = append(t.Types, ty) }

// DefineValue implements Sink.
func (t *Trace) DefineValue(v Value) { t.Values = append(t.Values, v) }

// CreateContainer implements Sink.
func (t *Trace) CreateContainer(c Container) {
	id := int32(len(t.Containers))
	c.End = Unset
	t.Containers = append(t.Containers, c)
	if c.Parent != None {
		p := &t.Containers[c.Parent]
		p.Children = append(p.Children, id)
	}
}

// DestroyContainer implements Sink.
func (t *Trace) DestroyContainer(id int32, at Time) { t.Containers[id].End = at }

// State implements Sink.
func (t *Trace) State(s State) { t.States.Append(s) }

// Variable implements Sink.
func (t *Trace) Variable(v Variable) { t.Variables.Append(v) }

// Link implements Sink.
func (t *Trace) Link(l Link) { t.Links.Append(l) }

// Event implements Sink.
func (t *Trace) Event(e Event) { t.Events.Append(e) }

// KeepsArgs implements ArgsSink: t.KeepArgs.
func (t *Trace) KeepsArgs() bool { return t.KeepArgs }

// Args implements ArgsSink, keeping the arguments of states and events in
// StateArgs and EventArgs; those of other kinds are dropped.
func (t *Trace) Args(kind Kind, index int, json string) {
	var col *[]string
	switch kind {
	case KindState:
		col = &t.StateArgs
	case KindEvent:
		col = &t.EventArgs
	default:
		return
	}
	if index < 0 {
		return
	}
	for len(*col) <= index {
		*col = append(*col, "")
	}
	(*col)[index] = json
}

// ArgsOf returns the arguments of the index-th state (kind KindState) or
// event (KindEvent), "" when it has none.
func (t *Trace) ArgsOf(kind Kind, index int) string {
	col := t.StateArgs
	if kind == KindEvent {
		col = t.EventArgs
	} else if kind != KindState {
		return ""
	}
	if index < 0 || index >= len(col) {
		return ""
	}
	return col[index]
}

// Finish implements Sink: containers still alive end with the trace.
func (t *Trace) Finish(start, end Time) {
	t.Start, t.End = start, end
	t.Containers[0].Start = start
	for i := range t.Containers {
		if t.Containers[i].End == Unset {
			t.Containers[i].End = end
		}
	}
}

// ContainerPath returns the names from the root's child down to container
// id, joined by sep. The root itself has the empty path.
func (t *Trace) ContainerPath(id int32, sep string) string {
	return JoinPath(id, sep, func(c int32) (string, int32) { return t.Containers[c].Name, t.Containers[c].Parent })
}

// JoinPath is ContainerPath for the containers of any table: node(c)
// gives container c's name and parent, the root being container 0. The
// analyses that keep their own containers while a trace streams by name
// them with it as the trace names its own.
func JoinPath(id int32, sep string, node func(c int32) (name string, parent int32)) string {
	var names []string
	for c := id; c > 0; {
		name, parent := node(c)
		names = append(names, name)
		c = parent
	}
	slices.Reverse(names)
	return strings.Join(names, sep)
}

// TypeName returns the name of type id, or "" for None.
func (t *Trace) TypeName(id int32) string {
	if id == None {
		return ""
	}
	return t.Types[id].Name
}

// ValueName returns the name of value id, or "" for None.
func (t *Trace) ValueName(id int32) string {
	if id == None {
		return ""
	}
	return t.Values[id].Name
}

// Held returns the *Trace a sink keeps everything in: the sink itself,
// or the trace a wrapping sink (a budget guard) fills, which it tells by
// an Unwrap method; nil for sinks that keep nothing (model builders).
// Readers use it to tune the trace (keep arguments, grow columns once).
func Held(s Sink) *Trace {
	switch t := s.(type) {
	case *Trace:
		return t
	case interface{ Unwrap() *Trace }:
		return t.Unwrap()
	}
	return nil
}
