package chrome

import (
	"cmp"
	"slices"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Async events (b, e, n and the legacy S, T, p, F) describe operations
// that are not bound to a thread: a request, a GPU transfer, a frame.
// Each async key (see asyncKey) is a track, a container under the process
// of its first event; its begin and end events nest like a call stack.

// asyncSlice is a matched async begin and end.
type asyncSlice struct {
	track      int32
	start, end trace.Time
	name, cat  int32
	args       int32
	depth      int32
}

// asyncPoint is an async instant (n) or step (T, p).
type asyncPoint struct {
	track     int32
	ts        trace.Time
	name, cat int32
	args      int32
	phase     byte
}

type asyncResult struct {
	slices []asyncSlice
	events []asyncPoint
}

// matchAsync matches the begin and end events of each track in time order
// (file order for equal times), as the trace viewer does: an end (e, F)
// closes the innermost open begin (b, S) of the same name; begins opened
// above it and still open end with it, so that the track stays a call
// stack; an end that matches nothing is counted and dropped; a begin still
// open at the end ends at the last event of its track.
func (c *collector) matchAsync() asyncResult {
	var out asyncResult
	type open struct {
		ev    *asyncEvent
		depth int32
	}
	var stack []open
	for ti := range c.tracks {
		t := &c.tracks[ti]
		events := t.events.gather()
		slices.SortStableFunc(events, func(a, b asyncEvent) int {
			if r := cmp.Compare(a.ts, b.ts); r != 0 {
				return r
			}
			return cmp.Compare(a.seq, b.seq)
		})
		stack = stack[:0]
		closeAt := func(o open, end trace.Time) {
			out.slices = append(out.slices, asyncSlice{track: int32(ti), start: o.ev.ts, end: end,
				name: o.ev.name, cat: o.ev.cat, args: o.ev.args, depth: o.depth})
		}
		for i := range events {
			ev := &events[i]
			switch ev.phase {
			case 'b', 'S':
				stack = append(stack, open{ev, int32(len(stack))})
			case 'e', 'F':
				k := len(stack) - 1
				for k >= 0 && stack[k].ev.name != ev.name {
					k--
				}
				if k < 0 {
					if ev.phase == 'e' {
						c.notes.skip("async end events (ph e) that close nothing", 1)
					} else {
						c.notes.skip("async finish events (ph F) that close nothing", 1)
					}
					continue
				}
				for j := len(stack) - 1; j > k; j-- {
					closeAt(stack[j], ev.ts)
					c.notes.warn("%d async begin events without end, cut at the end of their enclosing async slice")
				}
				stack[k].ev.args = c.joinArgs(stack[k].ev.args, ev.args)
				closeAt(stack[k], ev.ts)
				stack = stack[:k]
			default: // n, T, p
				name := ev.name
				if ev.phase != 'n' && ev.step != none {
					name = ev.step
				}
				out.events = append(out.events, asyncPoint{track: int32(ti), ts: ev.ts, name: name, cat: ev.cat,
					args: ev.args, phase: ev.phase})
			}
		}
		last := events[len(events)-1].ts
		for j := len(stack) - 1; j >= 0; j-- {
			closeAt(stack[j], last)
			c.notes.warn("%d async begin events without end, cut at the last event of their track")
		}
	}
	// Slices come out by end; deliver them by track, then start, outer
	// first, as the states of threads.
	slices.SortStableFunc(out.slices, func(a, b asyncSlice) int {
		if r := cmp.Compare(a.track, b.track); r != 0 {
			return r
		}
		if r := cmp.Compare(a.start, b.start); r != 0 {
			return r
		}
		return cmp.Compare(a.depth, b.depth)
	})
	return out
}

// asyncStates emits the async slices on their tracks.
func (e *emitter) asyncStates(sl []asyncSlice) {
	for _, s := range sl {
		e.emitState(trace.State{Container: e.trackCont[s.track], Type: e.asyncSlice,
			Value: e.value(e.asyncSlice, s.name, s.cat), Start: s.start, End: s.end, Depth: s.depth}, s.args)
	}
}

// asyncEvents emits async instants (n) and steps (T, p) on their tracks,
// in time order per track.
func (e *emitter) asyncEvents(evs []asyncPoint) {
	for _, p := range evs {
		typ := e.asyncInstant
		if p.phase != 'n' {
			typ = e.asyncStep
		}
		e.emitEvent(trace.Event{Container: e.trackCont[p.track], Type: typ, Value: e.value(typ, p.name, p.cat), Time: p.ts}, p.args)
	}
}
