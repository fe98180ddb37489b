package otf2

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Names of the types the reader derives (see the package documentation).
const (
	regionType      = "Region"
	messageType     = "MPI message"
	collectiveType  = "MPI collective"
	programType     = "Program"
	measurementType = "Measurement"
	parameterType   = "Parameter"
	otherType       = "Other"
	unmatchedType   = "Unmatched MPI message"
)

// simulator turns the merged records into states, links, variables and
// events. It only keeps what is still open: the region stack of each
// location, the latest sample of each metric series and the messages whose
// other end has not been seen yet.
type simulator struct {
	// subset: only some location groups are read (readGroups).
	subset bool
	opt    trace.ReadOptions

	a     *anchor
	defs  *definitions
	h     *hierarchy
	sym   *symbols
	sink  trace.Sink
	locs  []locationState
	comms map[uint32]*commRanks
	// endedOpen counts the regions still entered when their thread's
	// ThreadEnd came, which closed them (see threadEnd).
	endedOpen int64
	// misnamed counts the Leaves that named another region than the
	// innermost one entered, and on which locations (see leave).
	misnamed     int64
	misnamedLocs map[int]struct{}
	// unended counts the regions still entered at the end of the trace.
	unended trace.Unended
	// commNames counts the communicator definitions of each name, made
	// when a communicator is first resolved: a name several definitions
	// share is told apart by the definition's ID.
	commNames map[string]int

	regionValues map[regionUse]int32    // state value of a region on a state type
	metricSeries map[metricUse][]series // series a metric's samples feed
	series       map[seriesKey]*sample
	seriesOrder  []seriesKey // creation order, for a deterministic end

	pending  map[messageKey]*messageQueue
	lastLink lastLink // see linkTypeValue

	started     bool
	first, last trace.Time
}

type locationState struct {
	stack  []openRegion
	begun  int32 // states begun on the location, for State.Order
	region int32 // the location's region state type, None until needed
	// values caches regionValues for the location's state type: the state
	// value of region r plus one at values[r], 0 when not looked up yet.
	values []int32
}

// maxCachedRegion bounds the region IDs cached per location: IDs are
// dense in practice, a sparse one past this takes the map.
const maxCachedRegion = 1 << 16

type openRegion struct {
	value int32
	ref   uint32 // the region's definition, to match a Leave
	start trace.Time
	order int32
}

type regionUse struct {
	typ    int32
	region uint32
}

// metricUse is a metric recorded by a location: its samples feed one series
// per member, in the recorder's container or in the metric's scope.
type metricUse struct {
	metric uint32
	loc    int
}

type seriesKey struct {
	container, typ int32
}

type series struct {
	key    seriesKey
	latest *sample
}

// sample is the latest sample of a series, which holds until the next one.
type sample struct {
	value float64
	start trace.Time
	valid bool // a sample was seen
}

// messageKey is what matches a send with its receive: MPI delivers the
// messages of one sender to one receiver, communicator and tag in order.
type messageKey struct {
	from, to  int32 // location indexes
	comm, tag uint32
}

// messageQueue holds the sends (or the receives) of one key waiting for
// their other end, oldest first.
type messageQueue struct {
	sends bool
	ends  []messageEnd
}

type messageEnd struct {
	time   trace.Time
	size   uint64
	loc    int32
	offset int64
}

func newSimulator(a *anchor, defs *definitions, h *hierarchy) *simulator {
	s := &simulator{
		a: a, defs: defs, h: h, sym: h.sym, sink: h.sym.sink,
		locs:         make([]locationState, len(h.locations)),
		comms:        map[uint32]*commRanks{},
		regionValues: map[regionUse]int32{},
		metricSeries: map[metricUse][]series{},
		series:       map[seriesKey]*sample{},
		pending:      map[messageKey]*messageQueue{},
	}
	for i := range s.locs {
		s.locs[i].region = trace.None
	}
	return s
}

func (s *simulator) fail(loc int, r *record, format string, args ...any) error {
	return &errs.FormatError{File: s.a.eventsPath(s.defs.locations[loc].id), AtOffset: true, Offset: r.offset, Err: fmt.Errorf(format, args...)}
}

func (s *simulator) failDecode(e *decodeError) error {
	return &errs.FormatError{File: s.a.globalDefsPath(), AtOffset: true, Offset: e.offset, Err: errorString(e.msg)}
}

// handle processes one record of location loc.
func (s *simulator) handle(loc int, r *record, values []float64) error {
	if !s.started {
		s.first, s.started = r.time, true
	}
	s.last = r.time
	switch r.kind {
	case evEnter:
		return s.enter(loc, r)
	case evLeave:
		return s.leave(loc, r)
	case evMpiSend, evMpiIsend:
		return s.message(loc, r, true)
	case evMpiRecv, evMpiIrecv:
		return s.message(loc, r, false)
	case evMetric:
		return s.metric(loc, r, values[r.first:r.first+uint32(r.n)])
	case evMpiCollectiveEnd:
		return s.collective(loc, r)
	case evProgramBegin, evProgramEnd:
		return s.event(loc, r, programType, recordName(r.kind))
	case evMeasurementOnOff:
		mode := "MeasurementOn"
		if r.tag != 1 {
			mode = "MeasurementOff"
		}
		return s.event(loc, r, measurementType, mode)
	case evBufferFlush:
		return s.event(loc, r, measurementType, "BufferFlush")
	case evParameterString, evParameterInt, evParameterUnsignedInt:
		p, ok := s.defs.parameters[r.ref]
		if !ok {
			return s.fail(loc, r, "%s refers to Parameter %d, which is not defined", recordName(r.kind), r.ref)
		}
		name, derr := s.defs.str(p.name, "name of parameter "+itoa(uint64(r.ref)), p.at)
		if derr != nil {
			return s.failDecode(derr)
		}
		return s.event(loc, r, parameterType, name)
	case evThreadEnd:
		s.threadEnd(loc, r)
		return s.event(loc, r, otherType, recordName(r.kind))
	case evMpiIsendComplete, evMpiIrecvRequest, evMpiRequestTest, evMpiRequestCancelled, evMpiCollectiveBegin:
		// Bookkeeping of requests and collectives: the matching records
		// above carry what the trace model needs.
		return nil
	}
	if name := recordName(r.kind); name != "" {
		return s.event(loc, r, otherType, name)
	}
	return nil // a record type from a later OTF2 version, skipped
}

func (s *simulator) enter(loc int, r *record) error {
	st := &s.locs[loc]
	if st.region == trace.None {
		st.region = s.sym.entityType(trace.KindState, regionType, s.h.locations[loc].typ)
	}
	if r.ref < uint32(len(st.values)) && st.values[r.ref] > 0 {
		st.stack = append(st.stack, openRegion{value: st.values[r.ref] - 1, ref: r.ref, start: r.time, order: st.begun})
		st.begun++
		return nil
	}
	value, ok := s.regionValues[regionUse{st.region, r.ref}]
	if !ok {
		reg, ok := s.defs.regions[r.ref]
		if !ok {
			return s.fail(loc, r, "Enter refers to Region %d, which is not defined", r.ref)
		}
		name, derr := s.defs.str(reg.name, "name of region "+itoa(uint64(r.ref)), reg.at)
		if derr != nil {
			return s.failDecode(derr)
		}
		value = s.sym.region(st.region, name, paradigmName(reg.paradigm))
		s.regionValues[regionUse{st.region, r.ref}] = value
	}
	if r.ref < maxCachedRegion {
		for uint32(len(st.values)) <= r.ref {
			st.values = append(st.values, 0)
		}
		st.values[r.ref] = value + 1
	}
	st.stack = append(st.stack, openRegion{value: value, ref: r.ref, start: r.time, order: st.begun})
	st.begun++
	return nil
}

// leave closes the innermost open region. Hand-instrumented programs leave
// regions out of order at times (the stencil4d traces do), and EZTrace 2.0's
// OMPT module leaves a pool thread's "Working" over its last implicit task
// and barrier; the innermost region is closed anyway, so that the nesting
// stays a stack, as Score-P's own analysis (Scalasca's PEARL pops its call
// path at any Leave) and ViTE (a Leave pops the container's innermost
// state) read them; pipit alone matches a Leave by name and leaves the
// regions above it open. Such Leaves are counted in a warning.
//
// Regions entered at the same time have no order between them, though: a
// writer may put the Enter of the outer one second (chrome2otf2 does, for
// the calls rocprof timestamps alike). When the Leave names one of the
// regions entered at the innermost one's time, that one is the inner of
// them and is closed, as the timestamps allow.
func (s *simulator) leave(loc int, r *record) error {
	st := &s.locs[loc]
	if len(st.stack) == 0 {
		return s.fail(loc, r, "Leave of region %d while no region is entered", r.ref)
	}
	top := len(st.stack) - 1
	if st.stack[top].ref != r.ref {
		tie := false
		for d := top - 1; d >= 0 && st.stack[d].start == st.stack[top].start; d-- {
			if st.stack[d].ref == r.ref {
				// Swap what they are, not when or in which order they
				// began: those are the same but for the tie.
				a, b := &st.stack[d], &st.stack[top]
				a.value, b.value = b.value, a.value
				a.ref, b.ref = b.ref, a.ref
				tie = true
				break
			}
		}
		if !tie {
			s.misnamed++
			if s.misnamedLocs == nil {
				s.misnamedLocs = map[int]struct{}{}
			}
			s.misnamedLocs[loc] = struct{}{}
		}
	}
	s.closeRegions(loc, top, r.time)
	return nil
}

// threadEnd closes the regions still entered on loc when its thread ends:
// nothing runs on a thread past its end. EZTrace 2.0's OMPT module leaves
// the OpenMP pool threads' last implicit task and barrier so (the runtime
// tells no end of them), and they would otherwise last to the end of the
// trace. Score-P leaves every region before ThreadEnd.
func (s *simulator) threadEnd(loc int, r *record) {
	if n := len(s.locs[loc].stack); n > 0 {
		s.endedOpen += int64(n)
		s.closeRegions(loc, 0, r.time)
	}
}

// closeRegions ends the regions of loc from the innermost down to depth.
func (s *simulator) closeRegions(loc, depth int, at trace.Time) {
	st := &s.locs[loc]
	c := s.h.locations[loc].container
	for d := len(st.stack) - 1; d >= depth; d-- {
		o := st.stack[d]
		s.sink.State(trace.State{Container: c, Type: st.region, Value: o.value, Start: o.start, End: at, Depth: int32(d), Order: o.order})
	}
	st.stack = st.stack[:depth]
}

func (s *simulator) event(loc int, r *record, typeName, value string) error {
	p := s.h.locations[loc]
	typ := s.sym.entityType(trace.KindEvent, typeName, p.typ)
	s.sink.Event(trace.Event{Container: p.container, Type: typ, Value: s.sym.value(typ, value), Time: r.time})
	return nil
}

// collectiveRootAlias marks the root's "MPI collective" events, whose
// values have the role trace.RoleRoot.
const collectiveRootAlias = "root"

// collective records the end of a collective operation as an event
// valued by the operation, its category naming the communicator, so that
// the calls of one communicator can be told from another's (a self
// communicator's with the location's ID: "MPI_COMM_SELF of location 3"). On the root
// of a rooted operation (MPI_Reduce, MPI_Bcast...) the value has the
// alias collectiveRootAlias: who waits for whom depends on it.
func (s *simulator) collective(loc int, r *record) error {
	// A communicator the definitions do not resolve (an undefined one, an
	// inter-communicator) is named by its ID: the event is kept.
	var comm, alias string
	if c, err := s.comm(r.ref); err != nil {
		comm = s.idName(r.ref, "unresolved")
	} else {
		comm = c.name
		if c.self {
			// Each location's self communicator (MPI_COMM_SELF) holds it
			// alone: named apart, so that the calls of several locations
			// on the one definition are not taken for one collective.
			comm += " of location " + itoa(s.defs.locations[loc].id)
		}
		if c.isRank(r.peer, int32(loc)) {
			alias = collectiveRootAlias
		}
	}
	p := s.h.locations[loc]
	typ := s.sym.entityType(trace.KindEvent, collectiveType, p.typ)
	s.sink.Event(trace.Event{Container: p.container, Type: typ, Value: s.sym.aliased(typ, collectiveName(r.tag), comm, alias), Time: r.time})
	return nil
}

// metric records one sample of each member of the metric. A sample holds
// until the next sample of the same series.
func (s *simulator) metric(loc int, r *record, values []float64) error {
	use := metricUse{r.ref, loc}
	targets, ok := s.metricSeries[use]
	if !ok {
		var err error
		if targets, err = s.resolveMetric(loc, r); err != nil {
			return err
		}
		s.metricSeries[use] = targets
	}
	if len(values) != len(targets) {
		return s.fail(loc, r, "Metric has %d values, metric %d has %d members", len(values), r.ref, len(targets))
	}
	for i, t := range targets {
		if prev := t.latest; prev.valid {
			s.sink.Variable(trace.Variable{Container: t.key.container, Type: t.key.typ, Start: prev.start, End: r.time, Value: prev.value})
		}
		*t.latest = sample{value: values[i], start: r.time, valid: true}
	}
	return nil
}

// resolveMetric finds the series a metric recorded by loc feeds, defining
// their variable types.
func (s *simulator) resolveMetric(loc int, r *record) ([]series, error) {
	m, ok := s.defs.metrics[r.ref]
	if !ok {
		return nil, s.fail(loc, r, "Metric refers to metric %d, which is not defined", r.ref)
	}
	where := s.h.locations[loc]
	members := m.members
	if m.instance {
		class, ok := s.defs.metrics[m.class]
		if !ok || class.instance {
			return nil, s.fail(loc, r, "metric instance %d refers to metric class %d, which is not defined", r.ref, m.class)
		}
		members = class.members
		if m.scopeKind != scopeGroup { // a group has no container: keep the recorder
			if where, ok = s.h.scope(m.scopeKind, m.scope); !ok {
				return nil, s.fail(loc, r, "metric instance %d reports on scope %d of kind %d, which is not defined", r.ref, m.scope, m.scopeKind)
			}
		}
	}
	targets := make([]series, len(members))
	for i, id := range members {
		mem, ok := s.defs.members[id]
		if !ok {
			return nil, s.fail(loc, r, "metric %d has member %d, which is not defined", r.ref, id)
		}
		name, derr := s.defs.str(mem.name, "name of metric member "+itoa(uint64(id)), mem.at)
		if derr != nil {
			return nil, s.failDecode(derr)
		}
		k := seriesKey{where.container, s.sym.entityType(trace.KindVariable, name, where.typ)}
		latest := s.series[k]
		if latest == nil {
			latest = &sample{}
			s.series[k] = latest
			s.seriesOrder = append(s.seriesOrder, k)
		}
		targets[i] = series{k, latest}
	}
	return targets, nil
}

// message pairs the sends and receives of point-to-point messages into
// links from the sender's location to the receiver's.
func (s *simulator) message(loc int, r *record, send bool) error {
	peer, err := s.rankLocation(loc, r)
	if err != nil {
		return err
	}
	k := messageKey{from: int32(loc), to: peer, comm: r.ref, tag: r.tag}
	if !send {
		k.from, k.to = peer, int32(loc)
	}
	end := messageEnd{time: r.time, size: r.size, loc: int32(loc), offset: r.offset}
	q := s.pending[k]
	if q == nil || q.sends == send {
		if q == nil {
			q = &messageQueue{sends: send}
			s.pending[k] = q
		}
		q.ends = append(q.ends, end)
		return nil
	}
	other := q.ends[0]
	q.ends = q.ends[1:]
	if len(q.ends) == 0 {
		delete(s.pending, k)
	}
	sender, receiver := other, end
	if send {
		sender, receiver = end, other
	}
	s.link(k, sender, receiver)
	return nil
}

func (s *simulator) link(k messageKey, sender, receiver messageEnd) {
	from, to := s.h.locations[k.from], s.h.locations[k.to]
	typ, value := s.linkTypeValue(from.typ, to.typ, s.comms[k.comm])
	s.sink.Link(trace.Link{
		Container: 0, Type: typ, Value: value,
		Start: sender.time, End: receiver.time, From: from.container, To: to.container,
		Key: itoa(uint64(k.tag)), Size: float64(sender.size),
	})
}

// lastLink is the link type and value linkTypeValue looked up last, and
// what for: the location types of the ends and the communicator.
type lastLink struct {
	from, to   int32
	comm       *commRanks
	typ, value int32
	set        bool
}

// linkTypeValue returns the type of the links between locations of types
// from and to, and the value of a message on comm, defining them on
// first use. The last answer is kept: a run's messages mostly join
// locations of one type on few communicators, and the symbols' lookups
// hash the type's and the value's names (3-6% of the read of an archive
// of point-to-point messages).
func (s *simulator) linkTypeValue(from, to int32, comm *commRanks) (int32, int32) {
	last := &s.lastLink
	if !last.set || last.comm != comm || last.from != from || last.to != to {
		typ := s.sym.typ(typeKey{kind: trace.KindLink, name: messageType, parent: trace.None, from: from, to: to})
		*last = lastLink{from: from, to: to, comm: comm, typ: typ, value: s.sym.value(typ, comm.name), set: true}
	}
	return last.typ, last.value
}

// finish ends everything still open at the end of the trace, reports the
// messages whose other end never came as events, and finishes the sink.
func (s *simulator) finish() {
	start, end := trace.Time(0), trace.Time(0)
	if s.started {
		start, end = min(start, s.first), s.last
	}
	// The clock properties give the trace's length: it ends there unless
	// clock corrections moved records beyond.
	if clk := s.defs.clock; clk.length <= math.MaxUint64-clk.offset {
		if t, ok := (timeBase{clk.offset, clk.resolution}).toTime(clk.offset + clk.length); ok {
			end = max(end, t)
		}
	}
	if s.endedOpen > 0 {
		s.opt.Warn("%d region(s) were still entered when their thread ended (ThreadEnd, without their Leave): they end with their thread", s.endedOpen)
	}
	if s.misnamed > 0 {
		s.opt.Warn("%d Leave record(s) named another region than the innermost one entered, on %d location(s): each closed the innermost one, as Scalasca and ViTE read them", s.misnamed, len(s.misnamedLocs))
	}
	for loc := range s.locs {
		s.unended.Add(int32(loc), int64(len(s.locs[loc].stack)))
		s.closeRegions(loc, 0, end)
	}
	s.unended.Report(s.opt, "region(s) (Enter without Leave or ThreadEnd)", "location(s)", "they end with it, at "+end.String()+" s")
	for _, k := range s.seriesOrder {
		v := s.series[k]
		if !v.valid {
			continue
		}
		s.sink.Variable(trace.Variable{Container: k.container, Type: k.typ, Start: v.start, End: end, Value: v.value})
	}
	if keeper, ok := s.sink.(ingest.EndsKeeper); ok && s.subset {
		keeper.KeepEnds(keptMessages(s.pending))
		s.pending = nil
	}
	var lost []messageEnd
	var sends []bool
	for _, q := range s.pending {
		if s.subset {
			// The other end may be in a location group not read.
			s.opt.Skip("message ends without their other end in the location groups read", int64(len(q.ends)))
			continue
		}
		for _, e := range q.ends {
			lost = append(lost, e)
			sends = append(sends, q.sends)
		}
	}
	order := make([]int, len(lost))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(i, j int) int {
		a, b := lost[i], lost[j]
		return cmp.Or(cmp.Compare(a.time, b.time), cmp.Compare(a.loc, b.loc), cmp.Compare(a.offset, b.offset))
	})
	for _, i := range order {
		e, value := lost[i], "receive"
		if sends[i] {
			value = "send"
		}
		p := s.h.locations[e.loc]
		typ := s.sym.entityType(trace.KindEvent, unmatchedType, p.typ)
		s.sink.Event(trace.Event{Container: p.container, Type: typ, Value: s.sym.value(typ, value), Time: e.time})
	}
	s.sink.Finish(start, end)
}
