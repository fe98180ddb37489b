package perfetto

import (
	"strconv"

	"github.com/macroscope-hpc/macroscope/core/readers/pbwalk"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// trackEvent is what the reader uses of a TrackEvent: the fields most
// events have, and those few have, kept apart so that making ready for
// the next event clears the second part only when an event used it.
type trackEvent struct {
	eventCommon
	eventRare
	rare bool // a field of eventRare is set
}

type eventCommon struct {
	typ        uint64
	name       string
	hasName    bool
	nameIID    uint64
	hasNameIID bool
	track      uint64
	hasTrack   bool
	counter    float64
	hasCounter bool
	categories bool // categories, not kept
	args       bool // arguments (debug annotations, typed fields), not kept
}

type eventRare struct {
	extraUUIDs           []uint64
	extraValues          []int64
	extraDblUUIDs        []uint64
	extraDblValues       []float64
	flows, terminating   []uint64
	legacy               bool
	phase                int64
	bindID               uint64 // legacy flow (v2): bind_id and flow_direction
	hasBindID            bool
	flowDir              uint64
	asyncID              uint64 // legacy async events: unscoped, global or local id
	hasAsyncID, localID  bool
	idScope              string
	bindEnclosing        bool // flow v1 end ('f'): bind to the enclosing slice, not the next one
	pidOverride          int32
	durUS                int64
	absUS, deltaUS       int64
	hasAbsUS, hasDeltaUS bool
}

// reset makes e ready for the next event, keeping its slices' arrays.
func (e *trackEvent) reset() {
	e.eventCommon = eventCommon{}
	if e.rare {
		e.eventRare = eventRare{extraUUIDs: e.extraUUIDs[:0], extraValues: e.extraValues[:0],
			extraDblUUIDs: e.extraDblUUIDs[:0], extraDblValues: e.extraDblValues[:0],
			flows: e.flows[:0], terminating: e.terminating[:0]}
		e.rare = false
	}
}

// Legacy (JSON-like) phases of TrackEvent.LegacyEvent.
const (
	phaseBegin    = 'B'
	phaseEnd      = 'E'
	phaseComplete = 'X'
)

// parse reads the TrackEvent f into e, whose slices it reuses; in interns
// the names.
func (e *trackEvent) parse(f field, in *interner) error {
	e.reset()
	it := pbwalk.NewIter(f.B, f.Off)
	var g field
	for {
		ok, err := it.Next(&g)
		if !ok {
			return err
		}
		if err := e.field(&g, in); err != nil {
			return err
		}
	}
}

// field reads one field of a TrackEvent.
func (e *trackEvent) field(g *field, in *interner) error {
	switch g.Num {
	case teType:
		e.typ = g.U
	case teName:
		e.name, e.hasName = in.string(g.B), true
	case teNameIID:
		e.nameIID, e.hasNameIID = g.U, true
	case teTrackUUID:
		e.track, e.hasTrack = g.U, true
	case teCounterValue:
		e.counter, e.hasCounter = float64(g.Int64()), true
	case teDoubleCounterValue:
		e.counter, e.hasCounter = g.Double(), true
	case teExtraCounterUUIDs:
		e.rare = true
		return uints(*g, false, func(v uint64) { e.extraUUIDs = append(e.extraUUIDs, v) })
	case teExtraCounterValues:
		e.rare = true
		return uints(*g, false, func(v uint64) { e.extraValues = append(e.extraValues, int64(v)) })
	case teExtraDoubleUUIDs:
		e.rare = true
		return uints(*g, false, func(v uint64) { e.extraDblUUIDs = append(e.extraDblUUIDs, v) })
	case teExtraDoubleValues:
		e.rare = true
		return uints(*g, true, func(v uint64) { e.extraDblValues = append(e.extraDblValues, field{U: v}.Double()) })
	case teFlowIDs, teFlowIDsOld:
		e.rare = true
		return uints(*g, g.Num == teFlowIDs, func(v uint64) { e.flows = append(e.flows, v) })
	case teTerminatingFlowIDs, teTerminatingOld:
		e.rare = true
		return uints(*g, g.Num == teTerminatingFlowIDs, func(v uint64) { e.terminating = append(e.terminating, v) })
	case teTimestampAbsUS:
		e.absUS, e.hasAbsUS, e.rare = g.Int64(), true, true
	case teTimestampDeltaUS:
		e.deltaUS, e.hasDeltaUS, e.rare = g.Int64(), true, true
	case teCategoryIIDs, teCategories:
		e.categories = true
	case teThreadTimeDeltaUS, teThreadTimeAbsUS, teInstrDelta, teInstrAbs:
		// Thread time and instruction counts of old writers: the
		// extra counter values replaced them.
		e.args = true
	case teLegacyEvent:
		e.legacy, e.rare = true, true
		return e.parseLegacy(*g)
	default:
		e.args = true
	}
	return nil
}

// parseLegacy reads a TrackEvent.LegacyEvent into e.
func (e *trackEvent) parseLegacy(g field) error {
	return pbwalk.Each(g.B, g.Off, func(h field) error {
		switch h.Num {
		case legacyNameIID:
			if !e.hasNameIID {
				e.nameIID, e.hasNameIID = h.U, true
			}
		case legacyPhase:
			e.phase = h.Int64()
		case legacyDurationUS:
			e.durUS = h.Int64()
		case legacyUnscopedID, legacyGlobalID:
			e.asyncID, e.hasAsyncID, e.localID = h.U, true, false
		case legacyLocalID:
			e.asyncID, e.hasAsyncID, e.localID = h.U, true, true
		case legacyBindEnclosing:
			e.bindEnclosing = h.U != 0
		case legacyIDScope:
			e.idScope = h.String()
		case legacyPIDOverride:
			e.pidOverride = int32(h.U)
		case legacyBindID:
			e.bindID, e.hasBindID = h.U, true
		case legacyFlowDirection:
			e.flowDir = h.U
		}
		return nil
	})
}

// interner keeps one copy of each name met, so that the names events
// repeat cost no allocation; it forgets them all past maxInterned. The
// names met last are found without hashing them.
type interner struct {
	names  map[string]string
	recent [32]string
}

const maxInterned = 1 << 16

func newInterner() *interner { return &interner{names: map[string]string{}} }

func (in *interner) string(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	slot := &in.recent[(len(b)*31+int(b[0])*7+int(b[len(b)-1]))&(len(in.recent)-1)]
	if *slot == string(b) {
		return *slot
	}
	s, ok := in.names[string(b)]
	if !ok {
		if len(in.names) >= maxInterned {
			clear(in.names)
		}
		s = string(b)
		in.names[s] = s
	}
	*slot = s
	return s
}

// trackEvent turns a TrackEvent into a slice boundary, an instant, a
// counter sample or a state change, and flow points.
func (d *decoder) trackEvent(seq *sequence, e *trackEvent, ts trace.Time, timed bool) error {
	// Events of old writers carry their time in microseconds (absolute, or
	// deltas from the sequence's ThreadDescriptor).
	switch {
	case timed:
	case e.hasAbsUS:
		ts, timed = trace.Time(e.absUS)*1000, true
	case e.hasDeltaUS && seq.legacyThread:
		seq.refUS += e.deltaUS
		ts, timed = trace.Time(seq.refUS)*1000, true
	}
	if !timed {
		d.skip("track events without a timestamp", 1)
		return nil
	}
	d.saw(ts)

	kind := e.typ
	var dur trace.Time
	if kind == 0 && e.legacy {
		switch e.phase {
		case phaseBegin:
			kind = typeSliceBegin
		case phaseEnd:
			kind = typeSliceEnd
		case phaseComplete:
			kind, dur = typeSliceBegin, trace.Time(e.durUS)*1000
			if dur < 0 {
				dur = 0
			}
		case 'I', 'i', 'R':
			kind = typeInstant
		case 'b', 'e', 'n', 'S', 'F', 'T', 'p':
			kind = kindAsync
		case 's', 't', 'f':
			kind = kindFlowV1
		default:
			d.skip("legacy track events of phase '"+string(rune(e.phase))+"'", 1)
			return nil
		}
	}

	name := e.name
	if !e.hasName && e.hasNameIID {
		n, ok := seq.names[e.nameIID]
		if !ok {
			d.skip("event names whose interned id is unknown on their sequence (named by the id)", 1)
			n = "iid " + strconv.FormatUint(e.nameIID, 10)
		}
		name = n
	}

	uuid, hasTrack := e.track, e.hasTrack
	if !hasTrack && seq.hasDefTrack {
		uuid, hasTrack = seq.defTrack, true
	}
	var cont int32
	var lanes *laneGroup // the track's lanes, when it shares its name
	if kind != typeCounter && kind != typeState {
		t := d.track(uuid)
		if hasTrack && t != nil && t.kind == trackCounter {
			d.skip("track events other than counters on counter tracks", 1)
			return nil
		}
		switch {
		case kind == kindAsync:
			if !e.hasAsyncID {
				d.skip("legacy async events without an id", 1)
				return nil
			}
			cont = d.asyncTrack(d.eventPID(seq, uuid, hasTrack, e), e, name)
		case hasTrack && t != nil && t.lanes != nil:
			lanes = t.lanes
			cont = d.conts.laneFor(uuid, lanes, ts)
		case hasTrack:
			cont = d.trackContainer(uuid)
		case seq.legacyThread:
			cont = d.conts.thread(seq.pid, seq.tid)
		default:
			cont = d.conts.track(0)
		}
	}

	switch kind {
	case typeSliceBegin:
		st := d.stack(cont)
		st.expire(d, ts)
		end := open
		if e.legacy && e.phase == phaseComplete {
			end = ts + dur
			if st.overlaps(ts, end) {
				d.skip("complete slices that overlap an enclosing complete slice without nesting in it (dropped, as the trace processor does)", 1)
				return nil
			}
			d.saw(end)
		}
		st.push(slice{start: ts, end: end, value: d.m.value(st.typ, nameOr(name)), order: st.order, name: name})
		st.order++
		d.bindPending(cont, ts, name)
	case typeSliceEnd:
		st := d.stack(cont)
		st.expire(d, ts)
		if !st.pop(d, ts) {
			d.skip("slice ends with no open slice on their track", 1)
		}
	case typeInstant:
		d.stack(cont).expire(d, ts)
		typ := d.m.typ(trace.KindEvent, "Instant", d.m.contType[cont])
		d.m.sink.Event(trace.Event{Container: cont, Type: typ, Value: d.m.value(typ, nameOr(name)), Time: ts})
		d.bindPending(cont, ts, name) // instants are slices of no duration to the trace processor
	case typeCounter:
		if !e.hasCounter {
			d.skip("counter events without a value", 1)
		} else if !hasTrack {
			d.skip("counter events without a track", 1)
		} else {
			d.sample(seq, uuid, ts, e.counter)
		}
	case typeState:
		d.stateEvent(uuid, hasTrack, ts, name)
	case kindFlowV1:
		if !e.hasAsyncID {
			d.skip("legacy flow events (v1) without an id", 1)
			return nil
		}
		d.flowV1(cont, ts, byte(e.phase), flowV1Key{id: e.asyncID, name: name}, e.bindEnclosing)
	case kindAsync:
		st := d.stack(cont)
		st.expire(d, ts)
		switch e.phase {
		case 'b', 'S':
			st.push(slice{start: ts, end: open, value: d.m.value(st.typ, nameOr(name)), order: st.order, name: name})
			st.order++
			d.bindPending(cont, ts, name)
		case 'e', 'F':
			if !st.pop(d, ts) {
				d.skip("legacy async slice ends with no open slice of their id", 1)
			}
		default: // 'n', and the steps 'T' and 'p' of old async slices
			typ := d.m.typ(trace.KindEvent, "Instant", d.m.contType[cont])
			d.m.sink.Event(trace.Event{Container: cont, Type: typ, Value: d.m.value(typ, nameOr(name)), Time: ts})
			d.bindPending(cont, ts, name)
		}
	default:
		d.skip("track events of unknown type "+strconv.FormatUint(kind, 10), 1)
		return nil
	}

	if lanes != nil {
		d.conts.release(uuid, lanes, d.stacks[cont], ts)
	}
	if e.categories {
		d.skip("categories of track events (not kept)", 1)
	}
	if e.args {
		d.skip("arguments of track events (debug annotations, typed fields: not kept)", 1)
	}
	d.extraCounters(seq, e, ts)
	if kind != typeCounter && kind != typeState {
		if e.hasBindID {
			d.legacyFlow(e.bindID, e.flowDir, cont, ts, name)
		}
		for _, id := range e.flows {
			d.flow(id, cont, ts, name, false)
		}
		for _, id := range e.terminating {
			d.flow(id, cont, ts, name, true)
		}
	}
	return nil
}

func nameOr(name string) string {
	if name == "" {
		return "(unnamed)"
	}
	return name
}

// extraCounters records the counter values an event carries for other
// tracks (thread time, instruction counts...).
func (d *decoder) extraCounters(seq *sequence, e *trackEvent, ts trace.Time) {
	uuids := e.extraUUIDs
	if len(uuids) == 0 {
		uuids = seq.defExtra
	}
	for i, v := range e.extraValues {
		if i >= len(uuids) {
			d.skip("extra counter values without a counter track", int64(len(e.extraValues)-i))
			break
		}
		d.sample(seq, uuids[i], ts, float64(v))
	}
	uuids = e.extraDblUUIDs
	if len(uuids) == 0 {
		uuids = seq.defExtraDbl
	}
	for i, v := range e.extraDblValues {
		if i >= len(uuids) {
			d.skip("extra counter values without a counter track", int64(len(e.extraDblValues)-i))
			break
		}
		d.sample(seq, uuids[i], ts, v)
	}
}

// open is the end of a slice whose end is not known yet.
const open trace.Time = -1 << 63

// slice is an open slice on a stack.
type slice struct {
	start, end trace.Time // end: open, or the end of a complete (legacy X) slice
	value      int32
	order      int32
	name       string // for the flows (v1) bound to the slice
}

// stack holds the open slices of a container: slices nest per container,
// so thread tracks of one thread share a stack.
type stack struct {
	cont, typ int32
	open      []slice
	order     int32 // begins so far: the Order of the next state
}

func (d *decoder) stack(cont int32) *stack {
	if st := d.lastStack; st != nil && st.cont == cont {
		return st
	}
	st := d.stacks[cont]
	if st == nil {
		st = &stack{cont: cont, typ: d.m.typ(trace.KindState, "Slice", d.m.contType[cont])}
		d.stacks[cont] = st
		d.stackIDs = append(d.stackIDs, cont)
	}
	d.lastStack = st
	return st
}

func (st *stack) push(s slice) { st.open = append(st.open, s) }

// emit delivers the top slice, ended at end.
func (st *stack) emit(d *decoder, end trace.Time) {
	top := st.open[len(st.open)-1]
	st.open = st.open[:len(st.open)-1]
	if end < top.start {
		d.skip("slices ending before they begin (made empty)", 1)
		end = top.start
	}
	d.m.sink.State(trace.State{Container: st.cont, Type: st.typ, Value: top.value,
		Start: top.start, End: end, Depth: int32(len(st.open)), Order: top.order})
}

// expire delivers the complete slices that end at or before t. A
// complete slice that ended before t while slices begun inside it are
// still open ends them too, at its own end, as Perfetto's trace processor
// truncates them: slices nest, and an end event that comes later has
// nothing left to close.
func (st *stack) expire(d *decoder, t trace.Time) {
	for len(st.open) > 0 {
		top := st.open[len(st.open)-1]
		if top.end != open {
			if top.end > t {
				return
			}
			st.emit(d, top.end)
			continue
		}
		i := st.enclosingComplete()
		if i < 0 || st.open[i].end >= t {
			return
		}
		st.truncate(d, i)
	}
}

// enclosingComplete is the index of the innermost complete slice of the
// stack, -1 if none.
func (st *stack) enclosingComplete() int {
	for i := len(st.open) - 1; i >= 0; i-- {
		if st.open[i].end != open {
			return i
		}
	}
	return -1
}

// truncate ends the open slices above the complete slice i at its end,
// then slice i.
func (st *stack) truncate(d *decoder, i int) {
	end := st.open[i].end
	for len(st.open) > i+1 {
		d.truncated++
		st.emit(d, end)
	}
	st.emit(d, end)
}

// overlaps reports whether a complete slice [start, end) begins inside a
// complete slice of the stack and ends after it: such a slice would not
// nest, and the trace processor drops it. Only the complete slices above
// the innermost open one are compared, as the trace processor does.
func (st *stack) overlaps(start, end trace.Time) bool {
	for i := len(st.open) - 1; i >= 0; i-- {
		s := st.open[i]
		if s.end == open {
			return false
		}
		if start < s.end && end > s.end {
			return true
		}
	}
	return false
}

// pop ends the innermost open slice at t; false if there is none.
func (st *stack) pop(d *decoder, t trace.Time) bool {
	if len(st.open) == 0 {
		return false
	}
	end := t
	if top := st.open[len(st.open)-1]; top.end != open {
		end = top.end
	}
	st.emit(d, end)
	return true
}

// closeAll ends what is still open on container id at the end of the
// trace.
func (d *decoder) closeAll(id int32, end trace.Time) {
	st := d.stacks[id]
	for len(st.open) > 0 {
		top := st.open[len(st.open)-1]
		if top.end != open {
			st.emit(d, top.end)
			continue
		}
		if i := st.enclosingComplete(); i >= 0 {
			// Open slices inside a complete one end with it.
			st.truncate(d, i)
			continue
		}
		d.unterminated.Add(id, 1)
		st.emit(d, end)
	}
}

// sample records a value of counter track uuid at t.
func (d *decoder) sample(seq *sequence, uuid uint64, t trace.Time, v float64) {
	info := d.track(uuid)
	if info == nil || info.kind != trackCounter {
		d.skip("counter values for tracks that are not counter tracks", 1)
		return
	}
	if info.mult != 0 {
		v *= float64(info.mult)
	}
	if info.increment {
		v += seq.counters[uuid]
		seq.counters[uuid] = v
	}
	c := d.counters[uuid]
	if c == nil {
		c = d.counterTrack(uuid, info)
	}
	if !c.add(d, t, v) {
		d.skip("counter values earlier than values of their track already placed", 1)
	}
}

// counterTrack places a counter track: a variable named by the track in
// its parent track's container. Two counters of one name in one container
// are told apart by their uuid.
func (d *decoder) counterTrack(uuid uint64, info *trackInfo) *counterTrack {
	cont := d.conts.counterParent(info, uuid)
	s := strconv.FormatUint(uuid, 10)
	name := info.name
	if name == "" {
		name = "Counter " + s
	}
	typ := d.m.typ(trace.KindVariable, name, d.m.contType[cont])
	if other, ok := d.ctrNames[[2]int32{cont, typ}]; ok && other != uuid {
		typ = d.m.typ(trace.KindVariable, name+" "+s, d.m.contType[cont])
	}
	d.ctrNames[[2]int32{cont, typ}] = uuid
	c := &counterTrack{cont: cont, typ: typ}
	d.counters[uuid] = c
	d.ctrOrder = append(d.ctrOrder, uuid)
	return c
}

// kindAsync marks the legacy async phases: nestable ('b', 'e', 'n') and
// old async ('S', 'F', steps 'T' and 'p') slices and instants, on tracks
// of their own.
const kindAsync = 1 << 32

// asyncKey identifies the track of legacy async events, as the trace
// processor groups them: by process (for local ids), id and scope, the
// scope being the event's name for the old async phases ('S', 'F') and
// the id_scope field when given. Unlike the trace processor, nestable
// events of one id but different categories share a track, as categories
// are not kept.
type asyncKey struct {
	pid   int32
	id    uint64
	local bool
	old   bool
	scope string
}

// eventPID is the process of an event: the process of its track, the
// sequence's legacy thread, or the event's pid_override.
func (d *decoder) eventPID(seq *sequence, uuid uint64, hasTrack bool, e *trackEvent) int32 {
	if e.pidOverride != 0 {
		return e.pidOverride
	}
	if t := d.track(uuid); hasTrack && t != nil && (t.kind == trackThread || t.kind == trackProcess) {
		if t.pid == 0 && t.kind == trackThread {
			return d.cat.threadPID[t.tid]
		}
		return t.pid
	}
	if seq.legacyThread {
		return seq.pid
	}
	return 0
}

// asyncTrack returns the container of the legacy async events of e: a
// track under its process (under the root without one) named after the
// first event on it.
func (d *decoder) asyncTrack(pid int32, e *trackEvent, name string) int32 {
	old := e.phase == 'S' || e.phase == 'F' || e.phase == 'T' || e.phase == 'p'
	k := asyncKey{pid: pid, id: e.asyncID, local: e.localID, old: old, scope: e.idScope}
	if old && e.idScope == "" {
		k.scope = name
	}
	if c, ok := d.asyncs[k]; ok {
		return c
	}
	parent := int32(0)
	if pid != 0 {
		parent = d.conts.process(pid)
	}
	id := strconv.FormatUint(e.asyncID, 10)
	c := d.m.container("Track", nameOr(name)+" (async "+id+")", id, parent)
	d.asyncs[k] = c
	return c
}

// kindFlowV1 marks the legacy flow phases 's', 't', 'f' (flows v1).
const kindFlowV1 = 1<<32 + 1

// flowV1Key identifies a flow of the v1 kind, as the trace processor
// does: by id, category and name (categories are not kept here).
type flowV1Key struct {
	id   uint64
	name string
}

// flowV1 binds a legacy flow event ('s' begin, 't' step, 'f' end) to the
// slice that encloses it on its container, as the trace processor does:
// an end not bound to the enclosing slice binds to the next slice that
// begins on the container. The points of these flows are the slices'
// beginnings.
func (d *decoder) flowV1(cont int32, ts trace.Time, phase byte, k flowV1Key, enclosing bool) {
	if phase == 'f' && !enclosing {
		d.pending[cont] = append(d.pending[cont], k)
		return
	}
	st := d.stack(cont)
	st.expire(d, ts)
	if len(st.open) == 0 {
		d.skip("legacy flow events (v1) with no enclosing slice", 1)
		return
	}
	top := st.open[len(st.open)-1]
	d.flowV1At(k, phase, &flowPoint{cont: cont, at: top.start, name: top.name})
}

// bindPending ends, on the slice that just began on container cont, the
// flows (v1) whose end waited for it.
func (d *decoder) bindPending(cont int32, ts trace.Time, name string) {
	if len(d.pending) == 0 || len(d.pending[cont]) == 0 {
		return
	}
	for _, k := range d.pending[cont] {
		d.flowV1At(k, 'f', &flowPoint{cont: cont, at: ts, name: name})
	}
	delete(d.pending, cont)
}

func (d *decoder) flowV1At(k flowV1Key, phase byte, p *flowPoint) {
	prev := d.flowsV1[k]
	if phase == 's' {
		if prev != nil {
			d.skip("legacy flow starts of an id already active (ignored)", 1)
			return
		}
		d.flowsV1[k] = p
		return
	}
	if prev == nil {
		d.skip("legacy flow steps and ends with no flow started", 1)
		return
	}
	d.link(k.id, prev, p)
	prev.linked = true
	if phase == 't' {
		p.linked = true
		d.flowsV1[k] = p
	}
}

// legacyFlow adds an event to a flow of the legacy (v2) kind, the
// bind_id of a LegacyEvent, as the trace processor does: FLOW_OUT starts
// the flow (a second start of an active id is ignored), FLOW_INOUT joins
// the flow's latest event to this one, which becomes the latest, FLOW_IN
// joins the latest event to this one and leaves the flow open, so that
// several events may end the same flow. The ids share the space of the
// TrackEvent flow ids.
func (d *decoder) legacyFlow(id, dir uint64, cont int32, t trace.Time, name string) {
	prev := d.flows[id]
	switch dir {
	case flowOut:
		if prev != nil {
			d.skip("legacy flow starts of an id already active (ignored)", 1)
			return
		}
		d.flows[id] = &flowPoint{cont: cont, at: t, name: name}
	case flowInOut, flowIn:
		if prev == nil {
			d.skip("legacy flow steps and ends with no flow started", 1)
			return
		}
		d.link(id, prev, &flowPoint{cont: cont, at: t, name: name})
		prev.linked = true
		if dir == flowInOut {
			d.flows[id] = &flowPoint{cont: cont, at: t, name: name, linked: true}
		}
	default:
		d.skip("legacy flow events without a direction", 1)
	}
}

// link joins two events of flow id, the earlier of the two being the
// source.
func (d *decoder) link(id uint64, a, b *flowPoint) {
	from, to := a, b
	if b.at < a.at {
		from, to = b, a
	}
	typ := d.m.linkType(d.m.contType[from.cont], d.m.contType[to.cont])
	d.m.sink.Link(trace.Link{Container: 0, Type: typ, Value: d.m.value(typ, nameOr(from.name)),
		Start: from.at, End: to.at, From: from.cont, To: to.cont,
		Key: strconv.FormatUint(id, 10), Size: nan})
}

// flowPoint is the latest event of a flow.
type flowPoint struct {
	cont   int32
	at     trace.Time
	name   string
	linked bool
}

// flow adds an event to flow id: a link joins it to the flow's previous
// event, the earlier of the two being the source. A terminating id ends
// the flow, so that the id may start another.
func (d *decoder) flow(id uint64, cont int32, t trace.Time, name string, terminate bool) {
	prev := d.flows[id]
	if prev == nil && terminate {
		d.skip("flow points no other event continues (flows of one event)", 1)
		return
	}
	if prev != nil {
		d.link(id, prev, &flowPoint{cont: cont, at: t, name: name})
	}
	if terminate {
		delete(d.flows, id)
		return
	}
	d.flows[id] = &flowPoint{cont: cont, at: t, name: name, linked: prev != nil}
}
