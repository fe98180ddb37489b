package chrome

import (
	"bytes"
	"cmp"
	"container/heap"
	"encoding/json"
	"slices"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Async events (b, e, n and the legacy S, T, p, F) describe operations
// that are not bound to a thread: a request, a GPU transfer, a frame.
// Each async key (see asyncKey) is a track whose begin and end events nest
// like a call stack. The tracks are shown as the trace viewers show them:
// grouped by process and name, each group's operations packed into lanes.
//
// Perfetto (trace processor, TrackCompressor::InternLegacyAsyncTrack and
// GetOrCreateTrackForCookie) puts the events of an id on a track set named
// by the name of the id's first event in the process, and an id on the
// track it had last, unless another id took it since, else on the first
// track of the set with nothing open; its UI draws the tracks of a set as
// one. The trace viewer (catapult, AsyncSliceGroup.viewSubGroups and
// AsyncSliceGroupTrack.buildSubRows_) groups the async slices by title and
// puts each top-level slice, with its sub-slices below it, on the first row
// whose last slice ended by its start, in order of start. The rule here
// is the trace viewer's packing in Perfetto's groups: a group per (process
// of the track, name of its first event); its operations (a top-level
// slice with everything nested in it, see asyncOp) in order of start, each
// on the lowest lane whose last operation ended by then. It differs from
// Perfetto's only for an id that comes back to a lower lane than its last.

// asyncSlice is a matched async begin and end.
type asyncSlice struct {
	op         int32 // the operation it belongs to (see asyncOp)
	start, end trace.Time
	name, cat  int32
	args       int32
	depth      int32
}

// asyncPoint is an async instant (n) or step (T, p).
type asyncPoint struct {
	op        int32
	ts        trace.Time
	name, cat int32
	args      int32
	phase     byte
}

// asyncOp is what a lane holds at once of one track: a top-level slice
// with the slices nested in it and the instants and steps of the track
// while it is open, or an instant or step of the track outside any of its
// slices (an operation of no duration).
type asyncOp struct {
	track      int32
	lane       int32 // the lane of its group, set by packAsync
	start, end trace.Time
}

// asyncGroup is the async tracks of one process and one name: the lanes
// their operations are packed into.
type asyncGroup struct {
	proc, name int32
	lanes      int32
}

// asyncResult is what matchAsync makes of the tracks. The slices and
// events are in order of operation, the slices of each by start, outer
// first, the events of each by time.
type asyncResult struct {
	slices  []asyncSlice
	events  []asyncPoint
	ops     []asyncOp
	packed  []int32 // the operations in the order packAsync placed them
	groups  []asyncGroup
	groupOf []int32 // the group of each track
}

// matchAsync matches the begin and end events of each track in time order
// (file order for equal times), as the trace viewer does: an end (e, F)
// closes the innermost open begin (b, S) of the same name; begins opened
// above it and still open end with it, so that the track stays a call
// stack; an end that matches nothing is counted and dropped; a begin still
// open at the end ends at the last event of its track. It then packs the
// operations into the lanes of their groups (see packAsync).
func (c *collector) matchAsync() asyncResult {
	var out asyncResult
	type open struct {
		ev        *asyncEvent
		depth, op int32
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
		newOp := func(at trace.Time) int32 {
			out.ops = append(out.ops, asyncOp{track: int32(ti), start: at, end: at})
			return int32(len(out.ops) - 1)
		}
		closeAt := func(o open, end trace.Time) {
			out.slices = append(out.slices, asyncSlice{op: o.op, start: o.ev.ts, end: end,
				name: o.ev.name, cat: o.ev.cat, args: o.ev.args, depth: o.depth})
			if o.depth == 0 {
				out.ops[o.op].end = end
			}
		}
		for i := range events {
			ev := &events[i]
			switch ev.phase {
			case 'b', 'S':
				o := open{ev: ev, depth: int32(len(stack))}
				if len(stack) == 0 {
					o.op = newOp(ev.ts)
				} else {
					o.op = stack[0].op
				}
				stack = append(stack, o)
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
				var op int32
				if len(stack) > 0 {
					op = stack[0].op
				} else {
					op = newOp(ev.ts)
				}
				out.events = append(out.events, asyncPoint{op: op, ts: ev.ts, name: name, cat: ev.cat,
					args: ev.args, phase: ev.phase})
			}
		}
		last := events[len(events)-1].ts
		for j := len(stack) - 1; j >= 0; j-- {
			closeAt(stack[j], last)
			c.notes.warn("%d async begin events without end, cut at the last event of their track")
		}
	}
	// Each operation's slices come out together, by end: put them by
	// start, outer first, as the states of threads.
	for first := 0; first < len(out.slices); {
		next := first + 1
		for next < len(out.slices) && out.slices[next].op == out.slices[first].op {
			next++
		}
		slices.SortStableFunc(out.slices[first:next], func(a, b asyncSlice) int {
			return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.depth, b.depth))
		})
		first = next
	}
	c.packAsync(&out)
	return out
}

// packAsync groups the tracks by process and name, in order of first
// appearance, and places each operation on a lane of its group, first
// fit: the operations of a group in order of start (ties in order of
// their tracks' first events, then of time), each on the lowest lane
// whose last operation ended by its start, a new lane when none has.
// Lanes are then as many as the most operations of the group open at
// once (an interval graph colours with that many in start order).
func (c *collector) packAsync(r *asyncResult) {
	r.groupOf = make([]int32, len(c.tracks))
	byKey := map[[2]int32]int32{}
	for ti := range c.tracks {
		t := &c.tracks[ti]
		k := [2]int32{t.proc, t.name}
		g, ok := byKey[k]
		if !ok {
			g = int32(len(r.groups))
			r.groups = append(r.groups, asyncGroup{proc: t.proc, name: t.name})
			byKey[k] = g
		}
		r.groupOf[ti] = g
	}
	order := make([]int32, len(r.ops))
	for i := range order {
		order[i] = int32(i)
	}
	// The operations are made in order of track, then time: their index
	// breaks ties of start in that order.
	slices.SortFunc(order, func(a, b int32) int {
		x, y := &r.ops[a], &r.ops[b]
		return cmp.Or(cmp.Compare(r.groupOf[x.track], r.groupOf[y.track]), cmp.Compare(x.start, y.start), cmp.Compare(a, b))
	})
	r.packed = order
	var busy busyLanes
	var free freeLanes
	group := int32(-1)
	for _, i := range order {
		op := &r.ops[i]
		if g := r.groupOf[op.track]; g != group {
			group, busy, free = g, busy[:0], free[:0]
		}
		for len(busy) > 0 && busy[0].end <= op.start {
			heap.Push(&free, heap.Pop(&busy).(busyLane).lane)
		}
		if len(free) > 0 {
			op.lane = heap.Pop(&free).(int32)
		} else {
			op.lane = r.groups[group].lanes
			r.groups[group].lanes++
		}
		heap.Push(&busy, busyLane{op.end, op.lane})
	}
}

// busyLane is a lane and the end of its last operation.
type busyLane struct {
	end  trace.Time
	lane int32
}

// busyLanes is a heap of the lanes in use, the first to end (then the
// lowest) on top.
type busyLanes []busyLane

func (h busyLanes) Len() int { return len(h) }
func (h busyLanes) Less(i, j int) bool {
	return h[i].end < h[j].end || h[i].end == h[j].end && h[i].lane < h[j].lane
}
func (h busyLanes) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *busyLanes) Push(x any)   { *h = append(*h, x.(busyLane)) }
func (h *busyLanes) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// freeLanes is a heap of the lanes free at the current start, the lowest
// on top.
type freeLanes []int32

func (h freeLanes) Len() int           { return len(h) }
func (h freeLanes) Less(i, j int) bool { return h[i] < h[j] }
func (h freeLanes) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *freeLanes) Push(x any)        { *h = append(*h, x.(int32)) }
func (h *freeLanes) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// opCont returns the container of operation op: its lane of its group.
func (e *emitter) opCont(r *asyncResult, op int32) int32 {
	o := &r.ops[op]
	return e.groupCont[r.groupOf[o.track]] + o.lane
}

// lanesInOrder returns the operations lane by lane, in the order of the
// lanes' containers, each lane's in order of packing (a counting sort of
// r.packed by container), with where each operation's slices and events
// begin in r.slices and r.events.
func (e *emitter) lanesInOrder(r *asyncResult) (ops, firstSlice, firstEvent []int32) {
	at := make([]int32, e.nConts+2)
	for _, op := range r.packed {
		at[e.opCont(r, op)+1]++
	}
	for i := 1; i < len(at); i++ {
		at[i] += at[i-1]
	}
	ops = make([]int32, len(r.ops))
	for _, op := range r.packed {
		c := e.opCont(r, op)
		ops[at[c]] = op
		at[c]++
	}
	// Slices and events are in order of operation: each operation's
	// begin where the count of those before it ends.
	firstSlice, firstEvent = make([]int32, len(r.ops)+1), make([]int32, len(r.ops)+1)
	for _, s := range r.slices {
		firstSlice[s.op+1]++
	}
	for _, p := range r.events {
		firstEvent[p.op+1]++
	}
	for i := 1; i <= len(r.ops); i++ {
		firstSlice[i] += firstSlice[i-1]
		firstEvent[i] += firstEvent[i-1]
	}
	return ops, firstSlice, firstEvent
}

// asyncStates emits the async slices lane by lane, each lane's operations
// in order, each operation's slices by start, outer first, as the states
// of threads.
func (e *emitter) asyncStates(r *asyncResult, ops, first []int32) {
	for _, op := range ops {
		cont, track := e.opCont(r, op), r.ops[op].track
		for _, s := range r.slices[first[op]:first[op+1]] {
			e.emitState(trace.State{Container: cont, Type: e.asyncSlice,
				Value: e.value(e.asyncSlice, s.name, s.cat), Start: s.start, End: s.end, Depth: s.depth}, none)
			e.giveAsyncArgs(trace.KindState, e.nStates-1, s.args, track)
		}
	}
}

// asyncEvents emits async instants (n) and steps (T, p) lane by lane, in
// time order (as the operations of a lane follow one another).
func (e *emitter) asyncEvents(r *asyncResult, ops, first []int32) {
	for _, op := range ops {
		cont, track := e.opCont(r, op), r.ops[op].track
		for _, p := range r.events[first[op]:first[op+1]] {
			typ := e.asyncInstant
			if p.phase != 'n' {
				typ = e.asyncStep
			}
			e.emitEvent(trace.Event{Container: cont, Type: typ, Value: e.value(typ, p.name, p.cat), Time: p.ts}, none)
			e.giveAsyncArgs(trace.KindEvent, e.nEvents-1, p.args, track)
		}
	}
}

// giveAsyncArgs delivers the arguments of an async slice or event with
// its track's id first, {"id":"<id>",...}, as a lane holds many ids:
// the id is where a user finds which operation a slice belongs to.
// Arguments that are not an object are delivered as they are.
func (e *emitter) giveAsyncArgs(kind trace.Kind, index int, args, track int32) {
	if e.args == nil {
		return
	}
	id, _ := json.Marshal(e.c.strs.str(e.c.tracks[track].id))
	text := `{"id":` + string(id) + `}`
	if args != none {
		r := e.c.argsRefs[args]
		raw := e.c.argsArena[r.off : r.off+r.n]
		if a := bytes.TrimSpace(raw); len(a) < 2 || a[0] != '{' || a[len(a)-1] != '}' {
			text = string(raw)
		} else {
			text = `{"id":` + string(id) + `,` + string(a[1:])
		}
	}
	e.args.Args(kind, index, text)
}
