package paraver

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// ovni (BSC's tracer of Nanos6, nOS-V, NODES, OpenMP, TAMPI and MPI) writes
// its Paraver traces (ovniemu's cpu.prv and thread.prv) with events only:
// each event type is a channel of the emulator, a row's CPU or thread, and
// its value holds until the next event of that type on that row (the
// "Last Evt Val" semantics of every .cfg ovni ships), 0 being no value
// (ovni writes 0 when a channel becomes null, and Paraver does not draw
// it). Read as point events, such a trace has no states at all, so the
// reader turns each channel into states: a state of that type, valued by
// the event's value, from each non-zero event to the next event of the
// type on the row (or the end of the trace).
//
// A channel whose values the .pcf does not name carries numbers, not
// states: the TID and PID of the running thread, task and body IDs, MPI
// ranks, AppIDs, the CPU a thread runs on, the number of running threads.
// ovni's .cfg views draw most of them in gradient mode (task IDs, ranks,
// the number of running threads: magnitudes, 0 drawn as no value), and
// none is a subsystem or a state a profile should list beside "Task:
// Running body". Such a channel is read as a variable of its type, its
// value held from each non-zero event to the next event of the type on the
// row (0 leaves a gap, as the views draw it). Channels whose values the
// .pcf names (subsystems, thread states, task types, MPI functions) stay
// states.
//
// ovniemu writes a fixed date into the header, 19/01/38 at 03:14 (the end
// of 32-bit time), and rows as the threads of one task (0:1:1(N:1)), a
// layout no other writer we know of gives with that date.

// ovniDate is the date ovniemu's prv.c writes in every header.
const ovniDate = "19/01/38 at 03:14"

// isOvni tells an ovni header.
func isOvni(h *header) bool {
	return h.date == ovniDate && len(h.nodes) == 0 && len(h.apps) == 1 && len(h.apps[0].tasks) == 1
}

// channels holds the value each (row, event type) has at the moment, for
// ovni traces.
type channels struct {
	open  map[channelKey]openState
	types map[int64]*eventKind // a state type per Paraver event type
}

type channelKey struct {
	cont int32
	typ  int64
}

type openState struct {
	start trace.Time
	typ   int32 // the model's state or variable type
	value int32 // the state's value
	// number is the variable's value, for a channel of numbers (numeric).
	number  float64
	numeric bool
}

// end emits what s held on cont until at.
func (s openState) end(sink trace.Sink, cont int32, at trace.Time) {
	if s.numeric {
		sink.Variable(trace.Variable{Container: cont, Type: s.typ, Start: s.start, End: at, Value: s.number})
		return
	}
	sink.State(trace.State{Container: cont, Type: s.typ, Value: s.value, Start: s.start, End: at})
}

func newChannels() *channels {
	return &channels{open: map[channelKey]openState{}, types: map[int64]*eventKind{}}
}

// channelEvent ends the state the channel typ of cont held, if any, at
// time at, and begins one valued ev unless ev is 0.
func (d *decoder) channelEvent(cont int32, at trace.Time, typ int64, ev eventValue) {
	c := d.ovni
	key := channelKey{cont, typ}
	if s, ok := c.open[key]; ok {
		s.end(d.sink, cont, at)
		delete(c.open, key)
	}
	if ev.mag == 0 {
		return
	}
	k := c.types[typ]
	if k == nil {
		alias := strconv.FormatInt(typ, 10)
		name := alias
		et := d.cfg.eventTypes[typ]
		if et != nil && et.name != "" {
			name = et.name
		}
		kind := trace.KindState
		if et == nil || len(et.values) == 0 {
			kind = trace.KindVariable
		}
		k = &eventKind{typ: d.defineType(trace.Type{Name: name, Alias: alias, Kind: kind, Parent: d.leafType}),
			values: map[eventValue]int32{}, numeric: kind == trace.KindVariable}
		c.types[typ] = k
	}
	if k.numeric {
		n := float64(ev.mag)
		if ev.neg {
			n = -n
		}
		c.open[key] = openState{start: at, typ: k.typ, number: n, numeric: true}
		return
	}
	v, ok := k.values[ev]
	if !ok {
		alias := ev.String()
		name := alias
		if et := d.cfg.eventTypes[typ]; et != nil && et.values[ev] != "" {
			name = et.values[ev]
		}
		// ovni's .pcf colors values by number in STATES_COLOR, the
		// palette Paraver gives the values its .cfg windows draw.
		var color string
		if !ev.neg && ev.mag <= 1<<62 {
			color = d.cfg.states[int64(ev.mag)].color
		}
		v = d.defineValue(trace.Value{Type: k.typ, Name: name, Alias: alias, Color: color})
		k.values[ev] = v
	}
	c.open[key] = openState{start: at, typ: k.typ, value: v}
}

// closeChannels ends the states still open at the end of the trace, in the
// order of their rows and types.
func (d *decoder) closeChannels(end trace.Time) {
	keys := make([]channelKey, 0, len(d.ovni.open))
	for k := range d.ovni.open {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b channelKey) int {
		return cmp.Or(cmp.Compare(a.cont, b.cont), cmp.Compare(a.typ, b.typ))
	})
	for _, k := range keys {
		s := d.ovni.open[k]
		s.end(d.sink, k.cont, max(end, s.start))
	}
	d.ovni.open = nil
}
