package perfetto

import (
	"sort"

	"github.com/macroscope-hpc/macroscope/core/readers/pbwalk"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"google.golang.org/protobuf/encoding/protowire"
)

// The second pass: packets become containers, states, events, variables
// and links as they come.

// sequence is the incremental state of a packet sequence (one writer,
// trusted_packet_sequence_id): interned names, defaults, clocks.
type sequence struct {
	valid        bool // an SEQ_INCREMENTAL_STATE_CLEARED packet came, and no loss since
	names        map[uint64]string
	hasDefTrack  bool
	defTrack     uint64
	defExtra     []uint64 // default extra_counter_track_uuids
	defExtraDbl  []uint64 // default extra_double_counter_track_uuids
	defClock     uint32
	clocks       map[uint32]*clock // sequence-scoped clocks (ids >= 64)
	counters     map[uint64]float64
	legacyThread bool // a ThreadDescriptor packet gave the sequence's thread
	pid, tid     int32
	refUS        int64 // legacy delta timestamps accumulate from here
}

// reset forgets the incremental state, as SEQ_INCREMENTAL_STATE_CLEARED
// asks.
func (s *sequence) reset() {
	s.names = map[uint64]string{}
	s.hasDefTrack, s.defTrack, s.defExtra, s.defExtraDbl, s.defClock = false, 0, nil, nil, 0
	s.clocks = map[uint32]*clock{}
	s.counters = map[uint64]float64{}
}

// packetHead holds the fields of a TracePacket other than its data.
type packetHead struct {
	ts                 uint64
	hasTS              bool
	clock              uint32
	hasClock           bool
	seq                uint32
	flags              uint64
	cleared, dropped   bool
	interned, defaults field
	hasInterned        bool
	hasDefaults        bool
	data               field
	hasData            bool
	extra              int // further data fields (a oneof holds one)
}

// decoder is the second pass: it keeps the state of each sequence and what
// is open (slices, counter values, flows, running threads) until it ends.
type decoder struct {
	inflate *inflater
	names   *interner // names of the events of compressed packets
	opt     trace.ReadOptions
	cat     *catalog
	m       *model
	conts   *containers
	seqs    map[uint32]*sequence

	first, last trace.Time
	timed       bool

	stacks   map[int32]*stack
	stackIDs []int32 // containers with a stack, in creation order
	// lastStack is the stack of the last slice event: a track's events
	// mostly come in runs (a thread's sequence of packets), and these
	// find their stack without a map lookup.
	lastStack *stack
	// lastTrack and lastSeq are the catalog's record of the last track
	// looked up and the last sequence, for the same reason.
	lastTrack lastTrack
	lastSeq   *sequence
	lastSeqID uint32
	counters  map[uint64]*counterTrack
	ctrOrder  []uint64
	ctrNames  map[[2]int32]uint64 // (container, variable type) -> counter track using it
	flows     map[uint64]*flowPoint
	asyncs    map[asyncKey]int32 // tracks of legacy async events
	flowsV1   map[flowV1Key]*flowPoint

	// states are the state tracks met; stateOrder, in the order of their
	// first event, is the order their last states are delivered in.
	states     map[uint64]*stateTrack
	stateOrder []uint64

	// atrace holds the atrace events of ftrace print events until the end,
	// when they are applied in time order on stacks of their own.
	atrace         []atraceEvent
	atraceStacks   map[int32]*stack
	atraceIDs      []int32
	binderStacks   map[int32]*stack     // binder states of each thread (binder.go)
	binderIDs      []int32              // their threads, in order of first use
	binderSent     map[int64]binderSent // binder transactions sent, not yet received, by debug id
	atraceGroups   map[atraceGroupKey]*atraceGroup
	frameCookies   map[int64]atraceGroupKey // the frame timeline starts not ended yet, by cookie
	atraceCtrs     map[atraceCounter]*counterTrack
	atraceCtrOrder []atraceCounter
	pending        map[int32][]flowV1Key // flow (v1) ends waiting for the next slice of their container
	// ftraceShift turns the times of the ftrace bundle being read into
	// boot time (see ftraceClock).
	ftraceShift trace.Time
	cpus        map[uint32]*cpuState
	cpuOrder    []uint32
	freqs       map[freqKey]*counterTrack // CPUs' and GPUs' clock frequencies
	freqOrder   []freqKey

	global       map[uint32]*clock // builtin clocks' latest relation to boot time
	unconverted  map[uint32]int64  // packets on clocks with no relation to boot time
	notes        map[string]int64  // what is skipped, by kind
	noteOrder    []string
	unterminated trace.Unended // slices open at the end of the trace, by container
	truncated    int64         // open slices ended at the end of a complete slice enclosing them
}

func newDecoder(sink trace.Sink, opt trace.ReadOptions, cat *catalog) *decoder {
	start := trace.Time(0)
	if cat.hasFirst {
		start = trace.Time(cat.first)
	}
	m := newModel(sink, start)
	return &decoder{inflate: newInflater(), names: newInterner(), opt: opt, cat: cat, m: m, conts: newContainers(m, cat),
		seqs: map[uint32]*sequence{}, stacks: map[int32]*stack{}, counters: map[uint64]*counterTrack{}, states: map[uint64]*stateTrack{},
		ctrNames: map[[2]int32]uint64{}, flows: map[uint64]*flowPoint{}, asyncs: map[asyncKey]int32{}, flowsV1: map[flowV1Key]*flowPoint{}, atraceStacks: map[int32]*stack{}, binderStacks: map[int32]*stack{}, binderSent: map[int64]binderSent{}, atraceGroups: map[atraceGroupKey]*atraceGroup{}, atraceCtrs: map[atraceCounter]*counterTrack{}, pending: map[int32][]flowV1Key{}, cpus: map[uint32]*cpuState{}, freqs: map[freqKey]*counterTrack{},
		global: map[uint32]*clock{}, unconverted: map[uint32]int64{}, notes: map[string]int64{}}
}

// skip counts n things of a kind the reader does not model; the counts go
// to the notes at the end, so that the hot path costs a map update.
func (d *decoder) skip(what string, n int64) {
	if _, ok := d.notes[what]; !ok {
		d.noteOrder = append(d.noteOrder, what)
	}
	d.notes[what] += n
}

// saw extends the trace's span to t.
func (d *decoder) saw(t trace.Time) {
	if !d.timed {
		d.first, d.last, d.timed = t, t, true
		return
	}
	if t < d.first {
		d.first = t
	}
	if t > d.last {
		d.last = t
	}
}

// lastTrack is a track's record in the catalog, nil when it has none,
// and its container once made.
type lastTrack struct {
	uuid    uint64
	info    *trackInfo
	valid   bool
	cont    int32
	hasCont bool
}

// track is the catalog's record of track uuid, nil if none: the catalog
// does not change while the events are read.
func (d *decoder) track(uuid uint64) *trackInfo {
	if c := &d.lastTrack; c.valid && c.uuid == uuid {
		return c.info
	}
	t := d.cat.tracks[uuid]
	d.lastTrack = lastTrack{uuid: uuid, info: t, valid: true}
	return t
}

// trackContainer is conts.track(uuid), the container of a track made on
// first use, remembered for the last track.
func (d *decoder) trackContainer(uuid uint64) int32 {
	if c := &d.lastTrack; c.valid && c.uuid == uuid && c.hasCont {
		return c.cont
	}
	cont := d.conts.track(uuid)
	d.lastTrack = lastTrack{uuid: uuid, info: d.cat.tracks[uuid], valid: true, cont: cont, hasCont: true}
	return cont
}

func (d *decoder) sequence(id uint32) *sequence {
	if s := d.lastSeq; s != nil && d.lastSeqID == id {
		return s
	}
	s := d.seqs[id]
	if s == nil {
		s = &sequence{}
		s.reset()
		d.seqs[id] = s
	}
	d.lastSeq, d.lastSeqID = s, id
	return s
}

// parsedPacket is what a packet says by itself: its fields and, for a
// track event, the event's. It is made on the reading goroutine.
type parsedPacket struct {
	head  packetHead
	err   error // a malformed field of the packet
	ev    trackEvent
	evErr error // a malformed field of the track event
}

// parse fills p with packet b, at input offset off; in interns the names
// of events.
func (p *parsedPacket) parse(b []byte, off int64, in *interner) {
	if p.parseCommon(b, off, in) {
		return
	}
	p.parseAll(b, off, in)
}

// parseAll is parse for packets of any encoding.
func (p *parsedPacket) parseAll(b []byte, off int64, in *interner) {
	p.err, p.evErr = p.head.parse(b, off), nil
	if p.err == nil && p.head.hasData && p.head.data.Num == pktTrackEvent {
		p.evErr = p.ev.parse(p.head.data, in)
	}
}

// parseCommon is parse for the packets most traces are made of: a
// timestamp, the sequence's id and flags, and a track event of a type, a
// track, a name or interned name and categories, each tag of one byte
// (two for the name). False when a packet holds more, or is malformed,
// and parseAll reads it.
func (p *parsedPacket) parseCommon(b []byte, off int64, in *interner) bool {
	h := &p.head
	*h = packetHead{}
	p.err, p.evErr = nil, nil
	var ev []byte
	evAt := -1
	for pos := 0; pos < len(b); {
		c := b[pos]
		pos++
		switch c {
		case pktTimestamp << 3, pktSequenceID << 3, pktSequenceFlags << 3:
			v, next := varintAt(b, pos)
			if next < 0 {
				return false
			}
			pos = next
			switch c >> 3 {
			case pktTimestamp:
				h.ts, h.hasTS = v, true
			case pktSequenceID:
				h.seq = uint32(v)
			default:
				h.flags = v
			}
		case pktTrackEvent<<3 | 2:
			l, next := varintAt(b, pos)
			if next < 0 || l > uint64(len(b)-next) || evAt >= 0 {
				return false
			}
			pos = next + int(l)
			ev, evAt = b[next:pos:pos], next
		default:
			return false
		}
	}
	if evAt < 0 {
		return false
	}
	// The event's head: its tag and a minimal length (the loop keeps no
	// more live variables, which would spill). A longer length, which no
	// writer makes, leaves a byte of it where the tag would be, with the
	// varint's high bit: the general walk reads that packet.
	head := 1 + protowire.SizeVarint(uint64(len(ev)))
	if b[evAt-head] != pktTrackEvent<<3|2 {
		return false
	}
	h.data, h.hasData = field{Num: pktTrackEvent, Typ: protowire.BytesType, B: ev, Off: off + int64(evAt), Head: uint8(head)}, true
	e := &p.ev
	e.reset()
	for pos := 0; pos < len(ev); {
		c := ev[pos]
		pos++
		switch c {
		case teType << 3, teNameIID << 3, teTrackUUID << 3, teCategoryIIDs << 3:
			v, next := varintAt(ev, pos)
			if next < 0 {
				return false
			}
			pos = next
			switch c >> 3 {
			case teType:
				e.typ = v
			case teNameIID:
				e.nameIID, e.hasNameIID = v, true
			case teTrackUUID:
				e.track, e.hasTrack = v, true
			default:
				e.categories = true
			}
		case 0x80 | (teName<<3|2)&0x7f: // the name's tag, two bytes
			if pos == len(ev) || ev[pos] != (teName<<3|2)>>7 {
				return false
			}
			l, next := varintAt(ev, pos+1)
			if next < 0 || l > uint64(len(ev)-next) {
				return false
			}
			pos = next + int(l)
			e.name, e.hasName = in.string(ev[next:pos]), true
		default:
			return false
		}
	}
	return true
}

// parse reads the fields of a TracePacket.
func (p *packetHead) parse(b []byte, off int64) error {
	*p = packetHead{}
	it := pbwalk.NewIter(b, off)
	var f field
	for {
		ok, err := it.Next(&f)
		if !ok {
			return err
		}
		p.field(&f)
	}
}

// field reads one field of a TracePacket.
func (p *packetHead) field(f *field) {
	switch f.Num {
	case pktTimestamp:
		p.ts, p.hasTS = f.U, f.IsVarint()
	case pktClockID:
		p.clock, p.hasClock = uint32(f.U), true
	case pktSequenceID:
		p.seq = uint32(f.U)
	case pktSequenceFlags:
		p.flags = f.U
	case pktIncrementalCleared:
		p.cleared = p.cleared || f.Bool()
	case pktPreviousDropped:
		p.dropped = f.U != 0
	case pktInternedData:
		p.interned, p.hasInterned = *f, true
	case pktDefaults:
		p.defaults, p.hasDefaults = *f, true
	default:
		if isPacketMeta(f.Num) {
			return
		}
		if p.hasData {
			p.extra++
			return
		}
		p.data, p.hasData = *f, true
	}
}

// packet decodes one TracePacket, on the goroutine that applies them (the
// packets held in compressed ones).
func (d *decoder) packet(b []byte, off int64) error {
	var p parsedPacket
	p.parse(b, off, d.names)
	return d.apply(b, off, &p)
}

// apply decodes the packet that p holds, in the state of the packets
// before it.
func (d *decoder) apply(_ []byte, _ int64, pp *parsedPacket) error {
	if pp.err != nil {
		return pp.err
	}
	p := &pp.head
	if p.hasData && (p.data.Num == pktCompressedPackets || p.data.Num == pktZstdCompressed) && p.data.IsBytes() {
		return d.inflate.each(p.data, p.data.Num == pktZstdCompressed, d.packet)
	}
	if p.extra > 0 {
		d.skip("extra data fields in packets (a packet holds one)", int64(p.extra))
	}
	seq := d.sequence(p.seq)
	if p.dropped {
		seq.valid = false
	}
	if p.cleared || p.flags&seqIncrementalCleared != 0 {
		seq.reset()
		seq.valid = true
	}
	if p.flags&seqNeedsIncremental != 0 && !seq.valid {
		d.skip("packets whose sequence's incremental state was lost or never set", 1)
		return nil
	}
	if p.hasInterned {
		if err := d.intern(seq, p.interned); err != nil {
			return err
		}
	}
	if p.hasDefaults {
		if err := d.defaults(seq, p.defaults); err != nil {
			return err
		}
	}
	if p.hasData && p.data.Num == pktClockSnapshot {
		// A snapshot is read before its packet's own timestamp, which
		// may be on a clock the snapshot itself defines (Chrome's first
		// packet of each sequence sets the default clock to an
		// incremental one and relates it in the same packet), as trace
		// processor does.
		return d.clockSnapshot(seq, p.data)
	}
	var ts trace.Time
	timed := false
	if p.hasTS {
		var ok bool
		ts, ok = d.timestamp(seq, p)
		if !ok {
			d.skip("packets on a sequence-scoped clock with no clock snapshot on their sequence", 1)
			return nil
		}
		timed = true
		d.saw(ts)
	}
	if !p.hasData {
		return nil
	}
	f := p.data
	switch f.Num {
	case pktTrackEvent:
		if pp.evErr != nil {
			return pp.evErr
		}
		return d.trackEvent(seq, &pp.ev, ts, timed)
	case pktTrackDescriptor:
		return d.trackDescriptor(f)
	case pktClockSnapshot:
		return d.clockSnapshot(seq, f)
	case pktProcessTree:
		return d.processTree(f)
	case pktFtraceEvents:
		return d.ftrace(f)
	case pktThreadDescriptor:
		pid, tid, _, ref, err := threadDescriptor(f)
		if err != nil {
			return err
		}
		seq.legacyThread, seq.pid, seq.tid, seq.refUS = true, pid, tid, ref
		d.conts.thread(pid, tid)
	case pktFrameTimeline:
		return d.frameTimeline(f, ts, timed)
	case pktProcessDescriptor:
		pid, _, _, err := processDescriptor(f)
		if err != nil {
			return err
		}
		d.conts.process(pid)
	default:
		d.skip(packetKind(f.Num), 1)
	}
	return nil
}

// intern adds a packet's interned event names to its sequence. Categories
// and the other interned data are not kept: the model has no place for
// them.
func (d *decoder) intern(seq *sequence, f field) error {
	return pbwalk.Each(f.B, f.Off, func(g field) error {
		if g.Num != idEventNames || !g.IsBytes() {
			return nil
		}
		var iid uint64
		var name string
		err := pbwalk.Each(g.B, g.Off, func(h field) error {
			switch h.Num {
			case internIID:
				iid = h.U
			case internName:
				name = h.String()
			}
			return nil
		})
		seq.names[iid] = name
		return err
	})
}

// defaults reads a TracePacketDefaults: the default clock and the
// default track and extra counter tracks of track events.
func (d *decoder) defaults(seq *sequence, f field) error {
	return pbwalk.Each(f.B, f.Off, func(g field) error {
		switch g.Num {
		case defaultsClockID:
			seq.defClock = uint32(g.U)
		case defaultsTrackEvent:
			seq.defExtra, seq.defExtraDbl = nil, nil
			return pbwalk.Each(g.B, g.Off, func(h field) error {
				switch h.Num {
				case teTrackUUID:
					seq.hasDefTrack, seq.defTrack = true, h.U
				case teExtraCounterUUIDs:
					return uints(h, false, func(v uint64) { seq.defExtra = append(seq.defExtra, v) })
				case teExtraDoubleUUIDs:
					return uints(h, false, func(v uint64) { seq.defExtraDbl = append(seq.defExtraDbl, v) })
				}
				return nil
			})
		}
		return nil
	})
}

// trackDescriptor creates the container of a track where it is described,
// so that tracks without events appear too. Counter tracks hold variables,
// not states: they get no container.
func (d *decoder) trackDescriptor(f field) error {
	var uuid uint64
	err := pbwalk.Each(f.B, f.Off, func(g field) error {
		if g.Num == tdUUID {
			uuid = g.U
		}
		return nil
	})
	if err != nil {
		return err
	}
	if t := d.cat.tracks[uuid]; t != nil && t.kind == trackCounter {
		return nil
	}
	d.conts.track(uuid)
	return nil
}

// processTree creates the containers of the processes and threads listed.
func (d *decoder) processTree(f field) error {
	return pbwalk.Each(f.B, f.Off, func(g field) error {
		switch g.Num {
		case ptProcesses:
			pid, _, err := treeProcess(g)
			if err == nil {
				d.conts.process(pid)
			}
			return err
		case ptThreads:
			tid, tgid, _, err := treeThread(g)
			if err == nil {
				d.conts.thread(tgid, tid)
			}
			return err
		}
		return nil
	})
}

// finish closes what is still open at the end of the trace and reports
// the notes.
func (d *decoder) finish() {
	if d.cat.hasFirst { // containers start there
		d.saw(trace.Time(d.cat.first))
	}
	d.applyAtrace()
	end := d.last
	for _, id := range d.stackIDs {
		d.closeAll(id, end)
	}
	for _, id := range d.atraceIDs {
		st := d.atraceStacks[id]
		for len(st.open) > 0 {
			d.unterminated.Add(id, 1)
			st.emit(d, end)
		}
	}
	for _, id := range d.binderIDs {
		st := d.binderStacks[id]
		for len(st.open) > 0 {
			d.unterminated.Add(id, 1)
			st.emit(d, end)
		}
	}
	for _, uuid := range d.stateOrder {
		d.states[uuid].end(d.m.sink, end)
	}
	for _, uuid := range d.ctrOrder {
		d.counters[uuid].flush(d, end)
	}
	for _, k := range d.atraceCtrOrder {
		d.atraceCtrs[k].flush(d, end)
	}
	for _, n := range d.cpuOrder {
		d.cpus[n].end(d.m.sink, end)
	}
	for _, k := range d.freqOrder {
		d.freqs[k].flush(d, end)
	}
	lone := int64(0)
	for _, fp := range d.flows {
		if !fp.linked {
			lone++
		}
	}
	for _, fp := range d.flowsV1 {
		if !fp.linked {
			lone++
		}
	}
	for _, ks := range d.pending {
		d.skip("legacy flow ends (v1) with no slice after them to bind to", int64(len(ks)))
	}
	if lone > 0 {
		d.skip("flow points no other event continues (flows of one event)", lone)
	}
	if d.truncated > 0 {
		d.opt.Warn("%d slices were still open when the complete slice enclosing them ended: they end with it", d.truncated)
	}
	d.unterminated.Report(d.opt, "slices", "tracks", "they end with it, at "+end.String()+" s")
	if d.conts.undescribed > 0 {
		d.opt.Warn("%d tracks are used without a track descriptor: they are containers named by their uuid under the root", d.conts.undescribed)
	}
	if d.conts.cycles > 0 {
		d.opt.Warn("%d tracks have parents that loop or nest more than %d deep: they are placed under the root", d.conts.cycles, maxTrackDepth)
	}
	clocks := make([]uint32, 0, len(d.unconverted))
	for c := range d.unconverted {
		clocks = append(clocks, c)
	}
	sort.Slice(clocks, func(i, j int) bool { return clocks[i] < clocks[j] })
	for _, c := range clocks {
		d.opt.Warn("%d packets have timestamps on clock %d, which no clock snapshot relates to boot time: they are used as they are", d.unconverted[c], c)
	}
	for _, what := range d.noteOrder {
		d.opt.Skip(what, d.notes[what])
	}
	d.m.sink.Finish(d.first, d.last)
}
