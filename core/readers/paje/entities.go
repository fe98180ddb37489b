package paje

import (
	"fmt"
	"math"
	"sort"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// target resolves the Container and Type fields of a state, variable or
// event, in PajeNG's order of checks.
func (s *simulator) target(f *eventFields, kind trace.Kind) (int32, *container, int32, error) {
	contKey, h := f.key(roleContainer)
	cont, ok := s.contIDs.getHashed(contKey, h)
	if !ok {
		return 0, nil, 0, s.failSim("PajeContainerException", "Unknown container '"+string(contKey)+"'")
	}
	if s.zero > 0 && cont == 0 {
		// The type decides between the root and a container named "0".
		if typ, ok := s.typeIDs.get(f.get(roleType)); ok && typ != trace.None {
			cont = s.resolveZero(cont, s.types[typ].parent)
		}
	}
	typ, err := s.entityType(f, kind, cont)
	return cont, s.containers[cont], typ, err
}

func (s *simulator) entityType(f *eventFields, kind trace.Kind, cont int32) (int32, error) {
	typeKey, h := f.key(roleType)
	typ, ok := s.typeIDs.getHashed(typeKey, h)
	if !ok {
		return 0, s.failSim("PajeTypeException", "Unknown type '"+string(typeKey)+"'")
	}
	if got := s.kindOf(typ); got != kind {
		return 0, s.failf("type %s is a %s type, not a %s type", errs.QuoteBytes(typeKey), got, kind)
	}
	if s.types[typ].parent != s.containers[cont].typ {
		return 0, s.failf("type %s does not belong in containers of the type of %s", errs.QuoteBytes(typeKey), errs.QuoteBytes(f.get(roleContainer)))
	}
	return typ, nil
}

// slot returns the entities of type typ in container c. Containers hold
// few types: a look through their slots beats a map.
func (s *simulator) slot(cont int32, c *container, typ int32) *slot {
	if sl := c.used; sl != nil && sl.typ == typ {
		return sl
	}
	for _, sl := range c.slots {
		if sl.typ == typ {
			c.used = sl
			return sl
		}
	}
	sl := &c.own
	if len(c.slots) > 0 {
		sl = &slot{}
	}
	sl.typ = typ
	c.slots = append(c.slots, sl)
	c.used = sl
	return sl
}

// checkOrder is PajeNG's time-order check: nothing may happen in a slot
// before the start, or the end if it has one, of the last entity recorded
// there.
func (s *simulator) checkOrder(sl *slot, at trace.Time) error {
	if sl.hasLast && (sl.lastStart > at || (!sl.lastOpen && sl.lastEnd > at)) {
		last := sl.lastStart
		if !sl.lastOpen {
			last = max(last, sl.lastEnd)
		}
		err := simulationError("PajeSimulationException", "Illegal, trace is not time-ordered", s.line, fieldList(s.buf, s.spans))
		// pj_dump's text stays; the message says more.
		err.Msg = fmt.Sprintf("the trace is not time-ordered: this event at %s s comes after one at %s s in the same container and type "+
			"(raw StarPU FxT conversions are, before starpu_paje_sort, and NGSolve's traces, written in sorted runs); read it anyway with sort=True (Python) or --read sort=true (command line)",
			at, last)
		return s.fail(err)
	}
	return nil
}

func (s *simulator) state(kind eventKind, f *eventFields) error {
	cont, c, typ, err := s.target(f, trace.KindState)
	if err != nil {
		return err
	}
	var val int32
	if kind == evSetState || kind == evPushState {
		val = s.value(typ, f, roleValue)
	}
	if c.destroyed {
		return nil
	}
	at := s.lastKnown
	sl := s.slot(cont, c, typ)
	if err := s.checkOrder(sl, at); err != nil {
		return err
	}
	switch kind {
	case evSetState:
		if sl.depth != 1 {
			s.closeStates(cont, sl, 0, at)
		} else {
			// closeStates for the common stack of one state, inline: a
			// call less for most events (about 5% of the simulation).
			st := &sl.first
			s.sink.State(trace.State{Container: cont, Type: sl.typ, Value: st.value, Start: st.start, End: at,
				Depth: st.depth, Order: st.order})
			if st.order == sl.order-1 {
				sl.lastOpen, sl.lastEnd = false, at
			}
			sl.depth = 0
		}
		s.pushState(sl, val, 0, at)
	case evPushState:
		depth := sl.depth
		if s.opt.NoImbrication && depth > 0 {
			top := sl.state(int(depth - 1))
			top.covered, top.coveredAt = true, at
		}
		s.pushState(sl, val, depth, at)
	case evPopState:
		if sl.depth == 0 {
			return s.failSim("PajeStateException", "Illegal pop event of a state that has no value")
		}
		s.closeStates(cont, sl, int(sl.depth)-1, at)
		if n := sl.depth; s.opt.NoImbrication && n > 0 {
			// The state uncovered ends where it was covered and starts
			// again as a new state.
			top := *sl.state(int(n - 1))
			s.sink.State(trace.State{Container: cont, Type: typ, Value: top.value, Start: top.start,
				End: top.coveredAt, Depth: top.depth, Order: top.order})
			sl.depth = n - 1
			s.pushState(sl, top.value, top.depth, at)
		}
	case evResetState:
		s.closeStates(cont, sl, 0, at)
	}
	c.last = at
	return nil
}

// plainState simulates the most common events, SetState, PushState and
// PopState of a known value in a container, of a type, whose last event
// was of that type, in time order, and without Options.NoImbrication:
// what state does, without its checks' error paths. It reports false,
// having changed nothing, for any other event, which state then
// simulates, and reports.
func (s *simulator) plainState(def *eventDef, buf []byte, fields []span) bool {
	cc, tc := def.column[roleContainer], def.column[roleType]
	if s.zero > 0 || s.opt.NoImbrication || cc < 0 || tc < 0 {
		return false
	}
	cf, tf := &fields[cc], &fields[tc]
	cont, ok := s.contIDs.getHashed(buf[cf.from:cf.to], cf.hash)
	if !ok {
		return false
	}
	typ, ok := s.typeIDs.getHashed(buf[tf.from:tf.to], tf.hash)
	if !ok || typ == trace.None {
		return false
	}
	var val int32
	if def.kind != evPopState {
		vc := def.column[roleValue]
		if vc < 0 {
			return false
		}
		vf := &fields[vc]
		if val, ok = s.types[typ].values.getHashed(buf[vf.from:vf.to], vf.hash); !ok {
			return false
		}
	}
	return s.plainStateOf(def.kind, cont, typ, val)
}

// plainStateOf is plainState once the event's ids are known (val is
// unused by PopState).
func (s *simulator) plainStateOf(kind eventKind, cont, typ, val int32) bool {
	ti, c := &s.types[typ], s.containers[cont]
	// The slot's address is known before c.used is read (most often
	// own): its cache line is fetched alongside the container's.
	sl := &c.own
	if used := c.used; used != sl {
		sl = used
	}
	if ti.kind != trace.KindState || ti.parent != c.typ || c.destroyed || sl == nil || sl.typ != typ {
		return false
	}
	at := s.lastKnown
	if sl.hasLast && (sl.lastStart > at || (!sl.lastOpen && sl.lastEnd > at)) {
		return false // checkOrder fails
	}
	switch kind {
	case evPopState:
		if sl.depth == 0 {
			return false
		}
		s.closeStates(cont, sl, int(sl.depth)-1, at)
	case evSetState:
		if sl.depth != 1 {
			s.closeStates(cont, sl, 0, at)
		} else {
			// closeStates for the common stack of one state, inline: a
			// call less for most events (about 5% of the simulation).
			st := &sl.first
			s.sink.State(trace.State{Container: cont, Type: sl.typ, Value: st.value, Start: st.start, End: at,
				Depth: st.depth, Order: st.order})
			if st.order == sl.order-1 {
				sl.lastOpen, sl.lastEnd = false, at
			}
			sl.depth = 0
		}
		s.pushState(sl, val, 0, at)
	default:
		s.pushState(sl, val, sl.depth, at)
	}
	c.last = at
	return true
}

func (s *simulator) pushState(sl *slot, val, depth int32, at trace.Time) {
	sl.push(openState{value: val, depth: depth, order: sl.order, start: at})
	sl.order++
	sl.hasLast, sl.lastOpen, sl.lastStart = true, true, at
}

// closeStates ends the states of the slot's stack from the top down to
// index from, at instant at.
func (s *simulator) closeStates(cont int32, sl *slot, from int, at trace.Time) {
	for d := int(sl.depth) - 1; d >= from; d-- {
		st := sl.state(d)
		s.sink.State(trace.State{Container: cont, Type: sl.typ, Value: st.value, Start: st.start, End: at,
			Depth: st.depth, Order: st.order})
		if st.order == sl.order-1 {
			sl.lastOpen, sl.lastEnd = false, at
		}
	}
	sl.depth = int32(min(from, int(sl.depth)))
}

func (s *simulator) variable(kind eventKind, f *eventFields) error {
	cont, c, typ, err := s.target(f, trace.KindVariable)
	if err != nil {
		return err
	}
	v, err := parseValue(f.get(roleValue), s.opt.SinglePrecision)
	if err != nil {
		return s.fail(&Error{Msg: err.Error()})
	}
	if c.destroyed {
		return nil
	}
	at := s.lastKnown
	sl := s.slot(cont, c, typ)
	if kind != evSetVariable && !sl.hasLast && s.opt.StrictPajeNG {
		if kind == evAddVariable {
			return s.failSim("PajeVariableException", "Illegal addition to a variable that has no value (yet)")
		}
		return s.failSim("PajeVariableException", "Illegal subtraction from a variable that has no value (yet)")
	}
	c.last = at
	next := v
	if sl.hasLast {
		if err := s.checkOrder(sl, at); err != nil {
			return err
		}
		switch kind {
		case evAddVariable:
			next = sl.varValue + v
		case evSubVariable:
			next = sl.varValue - v
		}
		if sl.varStart == at {
			// A change at the instant of the previous one updates it.
			sl.varValue = next
			return nil
		}
		s.sink.Variable(trace.Variable{Container: cont, Type: typ, Start: sl.varStart, End: at, Value: sl.varValue})
	}
	if !sl.hasLast && kind == evSubVariable {
		next = -v // from an implicit zero, as PajeNG's development version
	}
	sl.hasLast, sl.lastOpen, sl.lastStart = true, true, at
	sl.varStart, sl.varValue = at, next
	return nil
}

func (s *simulator) newEvent(f *eventFields) error {
	cont, c, typ, err := s.target(f, trace.KindEvent)
	if err != nil {
		return err
	}
	val := s.value(typ, f, roleValue)
	if c.destroyed {
		return nil
	}
	at := s.lastKnown
	sl := s.slot(cont, c, typ)
	if err := s.checkOrder(sl, at); err != nil {
		return err
	}
	s.sink.Event(trace.Event{Container: cont, Type: typ, Value: val, Time: at})
	sl.hasLast, sl.lastOpen, sl.lastStart, sl.lastEnd = true, false, at, at
	c.last = at
	return nil
}

func (s *simulator) link(kind eventKind, f *eventFields) error {
	contKey := f.get(roleContainer)
	cont, ok := s.contIDs.get(contKey)
	if !ok {
		return s.failSim("PajeContainerException", "Unknown container '"+string(contKey)+"'")
	}
	endRole, side := roleStartContainer, "start"
	if kind == evEndLink {
		endRole, side = roleEndContainer, "end"
	}
	endKey := f.get(endRole)
	end, ok := s.contIDs.get(endKey)
	if !ok {
		return s.failSim("PajeContainerException", "Unknown "+side+" container '"+string(endKey)+"'")
	}
	if s.zero > 0 && cont == 0 {
		if typ, ok := s.typeIDs.get(f.get(roleType)); ok && typ != trace.None {
			cont = s.resolveZero(cont, s.types[typ].parent)
		}
	}
	typ, err := s.entityType(f, trace.KindLink, cont)
	if err != nil {
		return err
	}
	want := s.types[typ].start
	if kind == evEndLink {
		want = s.types[typ].end
	}
	end = s.resolveZero(end, want)
	if got := s.containers[end].typ; got != want {
		// SimGrid's SMPI with tracing/smpi/group defines an "MPI"
		// container type under the root and one under "HOST", and its
		// MPI_LINK between the former while the ranks are of the
		// latter: a type of the same name is taken, unless as PajeNG.
		if s.opt.StrictPajeNG || got == trace.None || want == trace.None || s.types[got].name != s.types[want].name {
			return s.failf("container %s is not of the type expected at the %s of link type %s", errs.QuoteBytes(endKey), side, errs.Quote(s.types[typ].name))
		}
		s.retyped++
	}
	val := s.value(typ, f, roleValue)
	c := s.containers[cont]
	if c.destroyed {
		return nil
	}
	at := s.lastKnown
	sl := s.slot(cont, c, typ)
	key := f.get(roleKey)
	if _, used := sl.used[string(key)]; used {
		return s.failAround("PajeLinkException", "Illegal event", ", the key was already used for another link")
	}
	c.last = at
	p := sl.pending[string(key)]
	if p == nil {
		p = &pendingLink{line: s.line, file: s.file, link: trace.Link{Container: cont, Type: typ, Value: val,
			From: trace.None, To: trace.None, Key: string(key), Size: math.NaN()}}
		if sl.pending == nil {
			sl.pending = map[string]*pendingLink{}
		}
		sl.pending[p.link.Key] = p
	} else if (kind == evStartLink && p.haveStart) || (kind == evEndLink && p.haveEnd) {
		return s.failf("%s with key %q of type %q is already pending since line %d",
			kindNames[kind], key, s.types[typ].name, p.line)
	}
	if c := f.def.size; c >= 0 {
		sp := f.spans[c]
		if size, err := parseValue(f.buf[sp.from:sp.to], false); err == nil && size >= 0 {
			p.link.Size = size
		}
	}
	if kind == evStartLink {
		p.haveStart, p.link.Start, p.link.From = true, at, end
	} else {
		p.haveEnd, p.link.End, p.link.To = true, at, end
	}
	if !(p.haveStart && p.haveEnd) {
		return nil
	}
	if p.link.Value != val {
		other := "PajeStartLink"
		if kind == evStartLink {
			other = "PajeEndLink"
		}
		return s.failAround("PajeLinkException", "Illegal "+kindNames[kind],
			", value is different from the value of the corresponding "+other+" (which had "+s.valueNames[p.link.Value]+")")
	}
	if err := s.checkOrder(sl, at); err != nil {
		return err
	}
	s.sink.Link(p.link)
	delete(sl.pending, p.link.Key)
	if sl.used == nil {
		sl.used = map[string]struct{}{}
	}
	sl.used[p.link.Key] = struct{}{}
	sl.hasLast, sl.lastOpen, sl.lastStart, sl.lastEnd = true, false, p.link.Start, p.link.End
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
