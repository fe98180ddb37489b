package budget

import (
	"fmt"
	"unsafe"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Guard is a trace read into memory under a budget: it keeps everything
// as *trace.Trace does and, every few thousand entities, weighs what the
// trace holds (Bytes); past the limit it calls Over once, which stops the
// read (by closing the reader's Cancel channel), drops the states,
// variables, links and events that still come until the reader stops, and
// Err then says why. (Containers and values still come: the reader may
// refer to them.)
type Guard struct {
	*trace.Trace
	Limit int64  // bytes; <= 0: no limit
	Over  func() // called once, when the trace outgrows Limit
	calls int
	strs  int64 // bytes of the strings received (names, arguments)
	err   error
	meter *Meter // what the reader holds outside the trace (Hold)
}

// guardEvery is how many entities pass between two weighings: weighing
// costs a few multiplications, and a few thousand entities are at most a
// few hundred kilobytes.
const guardEvery = 4096

// NewGuard returns a Guard filling t under the budget a user's setting
// means (see Resolve).
func NewGuard(t *trace.Trace, setting int64, over func()) *Guard {
	g := &Guard{Trace: t, Limit: Resolve(setting), Over: over}
	g.meter = &Meter{Limit: g.Limit, Over: over, Base: g.Bytes}
	return g
}

// Hold is the trace.ReadOptions.Hold of a read into the guard: what the
// reader holds before it delivers it, weighed with the trace under the
// same budget.
func (g *Guard) Hold(n int64) error {
	if g.meter == nil {
		return nil
	}
	return g.meter.Hold(n)
}

// Bytes estimates the memory the trace holds: its columns (ColumnBytes)
// and the strings it received.
func (g *Guard) Bytes() int64 { return ColumnBytes(g.Trace) + g.strs }

// Unwrap returns the trace the guard fills (see trace.Held).
func (g *Guard) Unwrap() *trace.Trace { return g.Trace }

// Err returns the error of a trace that outgrew its budget, nil otherwise.
func (g *Guard) Err() error {
	if g.err == nil && g.meter != nil {
		return g.meter.Err()
	}
	return g.err
}

func (g *Guard) tick() {
	if g.calls++; g.calls < guardEvery || g.err != nil || g.Limit <= 0 {
		return
	}
	g.calls = 0
	held := int64(0)
	if g.meter != nil {
		held = g.meter.Held()
	}
	if need := g.Bytes() + held; need > g.Limit {
		t := g.Trace
		g.err = errs.Argument("memory_budget", "%s", fmt.Sprintf(
			"the trace read into memory outgrew the memory budget of %s (%s held after %d containers, %d states, %d variables, %d links, %d events, and more to come; %s); "+
				"build its model while reading it instead (ms.read_micro(path, ...), ms.moments(path)), which holds the model and not the trace, or raise memory_budget=",
			Bytes(g.Limit), Bytes(need), len(t.Containers)-1, t.States.Len(), t.Variables.Len(), t.Links.Len(), t.Events.Len(), describe()))
		if g.Over != nil {
			g.Over()
		}
	}
}

// CreateContainer implements trace.Sink.
func (g *Guard) CreateContainer(c trace.Container) {
	g.strs += int64(len(c.Name)+len(c.Alias)) + 4 // and its place among its parent's children
	g.Trace.CreateContainer(c)
	g.tick()
}

// DefineType implements trace.Sink. Types weigh as values do: a crafted
// file may define a million (a Pajé trace of one line each).
func (g *Guard) DefineType(t trace.Type) {
	g.strs += int64(len(t.Name) + len(t.Alias) + len(t.Color))
	g.Trace.DefineType(t)
	g.tick()
}

// DefineValue implements trace.Sink.
func (g *Guard) DefineValue(v trace.Value) {
	g.strs += int64(len(v.Name) + len(v.Alias) + len(v.Category) + len(v.Color))
	g.Trace.DefineValue(v)
	g.tick()
}

// State implements trace.Sink.
func (g *Guard) State(s trace.State) {
	if g.err == nil {
		g.Trace.State(s)
		g.tick()
	}
}

// Variable implements trace.Sink.
func (g *Guard) Variable(v trace.Variable) {
	if g.err == nil {
		g.Trace.Variable(v)
		g.tick()
	}
}

// Link implements trace.Sink.
func (g *Guard) Link(l trace.Link) {
	if g.err == nil {
		g.Trace.Link(l) // its key is in the links' column (ColumnBytes)
		g.tick()
	}
}

// Event implements trace.Sink.
func (g *Guard) Event(e trace.Event) {
	if g.err == nil {
		g.Trace.Event(e)
		g.tick()
	}
}

// Args implements trace.ArgsSink.
func (g *Guard) Args(kind trace.Kind, index int, json string) {
	g.strs += int64(len(json))
	g.Trace.Args(kind, index, json)
}

// ColumnBytes estimates the memory of a trace's columns as allocated
// (capacity, not length: appending grows them ahead of need; the
// entities by the blocks they fill, see trace.StateColumn), strings left
// out but the links' keys, which their column holds.
func ColumnBytes(t *trace.Trace) int64 {
	return t.States.Bytes() + t.Variables.Bytes() + t.Links.Bytes() + t.Events.Bytes() +
		int64(cap(t.Containers))*int64(unsafe.Sizeof(trace.Container{})) +
		int64(cap(t.Values))*int64(unsafe.Sizeof(trace.Value{})) +
		int64(cap(t.Types))*int64(unsafe.Sizeof(trace.Type{})) +
		int64(cap(t.StateArgs)+cap(t.EventArgs))*int64(unsafe.Sizeof(""))
}
