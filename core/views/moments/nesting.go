package moments

import "github.com/macroscope-hpc/macroscope/core/trace"

// stream follows the states of one selected state type on one container.
//
// States arrive when they complete, so the states nested in a state arrive
// before it, and until it arrives nobody knows whether it counts or which
// value it has. Each nesting level keeps what its completed states leave
// for their enclosing state to settle: where they start and end and the
// gaps between them (Innermost), or the busy time they cover (Union).
type stream struct {
	typ     int32
	lastEnd trace.Time // end of the latest depth-0 state; the container's start before
	leadEnd trace.Time // root only: end of the leading gap, placed at Finish
	hasLead bool
	levels  []level // levels[d]: completed depth-d states whose enclosing state is open

	// busy holds the sums of the stream's busy function. run is the
	// latest busy interval not yet added to them: an interval that starts
	// where it ends extends it, so that a resource going from busy state
	// to busy state costs one Sums.Add per busy period rather than one
	// per state (the sums are those of the same busy function).
	busy       Sums
	run        bool
	runA, runB trace.Time
}

// flushRun adds the pending run to the busy sums.
func (st *stream) flushRun() {
	if st.run {
		st.busy.Add(st.runA, st.runB)
		st.run = false
	}
}

type level struct {
	n           int        // states completed at this depth since the enclosing one opened
	first, last trace.Time // start of the first of them, end of the last
	gaps        Sums       // Innermost: time between them, the enclosing state's own
	pending     []valueSums
	// ivs: Union across types, the busy intervals pending holds.
	ivs [][2]trace.Time
}

// valueSums is Union's busy time covered by completed states, by value.
// Without ByState a single entry with value trace.None holds it all.
type valueSums struct {
	value int32
	sums  Sums
}

func (l *level) reset() {
	l.n = 0
	l.gaps = Sums{}
	l.pending = l.pending[:0]
	l.ivs = l.ivs[:0]
}

func (l *level) addPending(v int32, s Sums) {
	if s.Empty() {
		return
	}
	for i := range l.pending {
		if l.pending[i].value == v {
			l.pending[i].sums.Merge(s)
			return
		}
	}
	l.pending = append(l.pending, valueSums{v, s})
}

// stream returns the stream of state type typ on c, creating it.
func (a *Accumulator) stream(c *container, typ int32) *stream {
	for i := range c.streams {
		if c.streams[i].typ == typ {
			return &c.streams[i]
		}
	}
	c.streams = append(c.streams, stream{typ: typ, lastEnd: c.start})
	return &c.streams[len(c.streams)-1]
}

// state accounts for a validated state of a selected type on c.
func (a *Accumulator) state(s trace.State, c *container) {
	id, v := s.Container, s.Value
	st := a.stream(c, s.Type)
	d := int(s.Depth)
	if d == 0 {
		if st.lastEnd != unknownStart && s.Start < st.lastEnd {
			a.fail("state %q on container %q starts at %s, before the previous state ends or the container starts (%s)",
				a.values[v].name, c.name, s.Start, st.lastEnd)
			return
		}
		if a.opt.Gaps {
			a.gap(id, st, s.Start)
		}
		st.lastEnd = s.End
	}
	if a.fast {
		a.emit(id, st, v, s.Start, s.End)
		return
	}
	for len(st.levels) < d+2 {
		st.levels = append(st.levels, level{})
	}
	inner := &st.levels[d+1]
	if inner.n > 0 && (inner.first < s.Start || inner.last > s.End) {
		a.fail("state %q on container %q [%s, %s] does not enclose the states nested in it [%s, %s]",
			a.values[v].name, c.name, s.Start, s.End, inner.first, inner.last)
		return
	}
	if d+2 < len(st.levels) && st.levels[d+2].n > 0 {
		a.fail("container %q: a state at depth %d completed without the state enclosing it", c.name, d+2)
		return
	}
	counted := a.values[v].counted
	key := v
	if !a.opt.ByState {
		key = trace.None
	}
	switch a.opt.Nesting {
	case Innermost:
		if counted {
			if inner.n == 0 {
				a.emit(id, st, v, s.Start, s.End)
			} else {
				a.emit(id, st, v, s.Start, inner.first)
				a.emitSums(id, st, v, inner.gaps)
				a.emit(id, st, v, inner.last, s.End)
			}
		}
	case Union:
		// Across types, the busy intervals go along with their sums.
		across := a.acrossTypes(c)
		switch {
		case counted && d == 0:
			a.emit(id, st, v, s.Start, s.End)
		case counted:
			var own Sums
			a.clipAdd(&own, s.Start, s.End)
			st.levels[d].addPending(key, own)
			if x, y := max(s.Start, a.lo), min(s.End, a.hi); across && y > x {
				st.levels[d].ivs = append(st.levels[d].ivs, [2]trace.Time{x, y})
			}
		case d == 0:
			for _, p := range inner.pending {
				a.emitSums(id, st, p.value, p.sums)
			}
			for _, iv := range inner.ivs {
				c.union.add(iv[0], iv[1])
			}
		default:
			for _, p := range inner.pending {
				st.levels[d].addPending(p.value, p.sums)
			}
			st.levels[d].ivs = append(st.levels[d].ivs, inner.ivs...)
		}
	}
	inner.reset()
	if d > 0 {
		l := &st.levels[d]
		if l.n > 0 {
			if s.Start < l.last {
				a.fail("state %q on container %q starts at %s, before the previous state at depth %d ends (%s)",
					a.values[v].name, c.name, s.Start, d, l.last)
				return
			}
			if a.opt.Nesting == Innermost {
				a.clipAdd(&l.gaps, l.last, s.Start)
			}
		} else {
			l.first = s.Start
		}
		l.last = s.End
		l.n++
	}
}

// gap counts the time from the end of st's latest depth-0 state to at as
// busy time in no state.
func (a *Accumulator) gap(id int32, st *stream, at trace.Time) {
	if st.lastEnd == unknownStart {
		// The root's life starts with the trace, which Finish tells.
		if !st.hasLead {
			st.leadEnd, st.hasLead = at, true
		}
		return
	}
	a.emit(id, st, trace.None, st.lastEnd, at)
}

// resolveLead places the root's leading gap once the trace start is known.
func (a *Accumulator) resolveLead(id int32, st *stream, start trace.Time) {
	if st.hasLead {
		a.emit(id, st, trace.None, start, st.leadEnd)
		st.hasLead = false
	}
	if st.lastEnd == unknownStart {
		st.lastEnd = start
	}
}
