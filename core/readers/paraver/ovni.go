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
	typ   int32 // the model's state type
	value int32
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
		d.sink.State(trace.State{Container: cont, Type: s.typ, Value: s.value, Start: s.start, End: at})
		delete(c.open, key)
	}
	if ev.mag == 0 {
		return
	}
	k := c.types[typ]
	if k == nil {
		alias := strconv.FormatInt(typ, 10)
		name := alias
		if et := d.cfg.eventTypes[typ]; et != nil && et.name != "" {
			name = et.name
		}
		k = &eventKind{typ: d.defineType(trace.Type{Name: name, Alias: alias, Kind: trace.KindState, Parent: d.leafType}),
			values: map[eventValue]int32{}}
		c.types[typ] = k
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
		d.sink.State(trace.State{Container: k.cont, Type: s.typ, Value: s.value, Start: s.start, End: max(end, s.start)})
	}
	d.ovni.open = nil
}
