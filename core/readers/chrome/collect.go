package chrome

import (
	"bytes"
	"fmt"
	"math"
	"unsafe"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// The collector keeps what the trace's entities need until the end of the
// input, because events come in no particular order and metadata naming
// and ordering the containers may come last. Each record is a few
// fixed-size fields with strings interned: 40 bytes per slice, 32 per
// begin/end event, instant or async event, 32 per counter sample, 56 per
// flow point.

type process struct {
	key          int32 // pid, interned text
	name, labels int32
	sortIndex    int64
	hasSortIndex bool
	threads      []int32
}

type thread struct {
	proc         int32
	key          int32 // tid, interned text
	name         int32
	sortIndex    int64
	hasSortIndex bool
	// The slices, reached by index where the build needs them in place
	// (see nestThread), and the B/E events, gathered once read (see
	// matchBeginEnd).
	slices chunks[slice]
	marks  chunks[mark]
	lanes  int32 // containers the slices need: 1 + overlap lanes
	// last is the latest instant seen on the thread (starts and ends of
	// its slices, its B/E events, instants and flow points): where the
	// slices still open when the recording stopped end.
	last  trace.Time
	timed bool
	open  bool // some of its slices end at openEnd
}

// openEnd marks the end of a slice still running when the recording
// stopped (an X event without dur); it becomes the thread's last instant.
const openEnd = trace.Time(math.MinInt64)

// slice is a complete slice (X, or a matched B/E pair). depth and lane are
// set once the thread's slices are sorted.
type slice struct {
	start, end trace.Time
	name, cat  int32
	args       int32
	seq        int32
	depth      int32
	lane       int32
}

// mark is a B or E event, matched into slices once the input is read.
type mark struct {
	ts        trace.Time
	seq       int32
	line      int32
	name, cat int32
	args      int32
	begin     bool
}

// instant is an instant event on a thread, a process or the whole trace.
type instant struct {
	ts        trace.Time
	seq       int32
	owner     int32 // thread or process index; unused for global instants
	name, cat int32
	args      int32
	scope     byte
}

// sample is one value of one counter series.
type sample struct {
	ts    trace.Time
	value float64
	seq   int32
	proc  int32
	typ   int32 // index into collector.counterTypes
}

// flowPoint is an s, t or f event, or the flow end of a complete event
// with flow_in or flow_out. The flow it belongs to is the key (cat, id, and
// pid when the id is process-local).
type flowPoint struct {
	ts        trace.Time
	cat, id   int32
	scope     int32 // pid for a local id, none otherwise
	seq       int32
	thread    int32
	name      int32
	own       int32 // seq of the complete event the point belongs to, 0 for none
	phase     byte
	enclosing bool // binds to the enclosing slice (always, except f without bp "e")

	// Set by the binding: the lane the point attaches to and the time
	// its link starts or ends at.
	lane int32
	at   trace.Time
}

// gpuEvent is a complete event of a Kineto GPU category with a
// correlation id (see rawEvent.correlation), linked once its slice is
// placed (see correlate).
type gpuEvent struct {
	seq, thread int32
	correlation int64
}

// gpuWait is a GPU operation (an index in collector.gpuOps) that waits
// for a CUDA event: the correlation id of the cudaEventRecord call and
// the stream it recorded on.
type gpuWait struct {
	op             int32
	record, stream int64
}

// asyncKey identifies an async track: nestable events (b, e, n) by
// category and id, legacy ones (S, T, p, F) by name and id, as the trace
// viewer does. pid scopes process-local ids (id2.local), none otherwise.
type asyncKey struct {
	legacy    bool
	catOrName int32
	id, pid   int32
}

// asyncTrack is one async track: the events of one async key, shown in
// the group of the process and name of its first event in the file (see
// packAsync).
type asyncTrack struct {
	proc   int32
	name   int32 // name of the first event
	id     int32
	events chunks[asyncEvent] // gathered once read (see matchAsync)
}

// asyncEvent is an async event kept until its track is matched.
type asyncEvent struct {
	ts        trace.Time
	seq       int32
	name, cat int32
	args      int32
	step      int32 // args.step of T and p
	phase     byte
}

type counterKey struct{ name, key int32 }

// argsRef locates the arguments of an event in collector.argsArena.
type argsRef struct{ off, n int64 }

// joinArgs returns the arguments of a begin event joined with those of its
// end, as the trace viewer shows a slice's: one object with the members of
// both, the end's last (a key in both appears twice, the end's second).
func (c *collector) joinArgs(begin, end int32) int32 {
	if begin == none || end == none || len(c.argsRefs) >= math.MaxInt32 {
		if begin == none {
			return end
		}
		return begin
	}
	text := func(i int32) []byte {
		r := c.argsRefs[i]
		return bytes.TrimSpace(c.argsArena[r.off : r.off+r.n])
	}
	b, e := text(begin), text(end)
	isObject := func(t []byte) bool { return len(t) >= 2 && t[0] == '{' && t[len(t)-1] == '}' }
	if !isObject(b) || !isObject(e) {
		return begin // args that are not objects do not join
	}
	from := len(c.argsArena)
	// Both are non-empty objects (see decoder.addArgs): {b...} + {e...}.
	c.argsArena = append(c.argsArena, b[:len(b)-1]...)
	c.argsArena = append(c.argsArena, ',')
	c.argsArena = append(c.argsArena, e[1:]...)
	c.argsRefs = append(c.argsRefs, argsRef{off: int64(from), n: int64(len(c.argsArena) - from)})
	return int32(len(c.argsRefs) - 1)
}

type collector struct {
	strs        *interner
	procs       []process
	procByKey   map[int32]int32
	threads     []thread
	threadByKey map[[2]int32]int32
	// recentThreads caches threads by a hash of (pid, tid): events come
	// in runs on one thread, or interleaved among a few, and a
	// comparison costs less than the map.
	recentThreads [threadSlots]recentThread

	instants     []instant
	samples      []sample
	counterTypes []counterKey
	counterByKey map[counterKey]int32
	flows        chunks[flowPoint]
	// The instants, counter samples and GPU events the events add, gathered
	// into instants, samples, gpuCalls and gpuOps at the build (see gather).
	addedInstants        chunks[instant]
	addedSamples         chunks[sample]
	addedCalls, addedOps chunks[gpuEvent]
	// Kineto's GPU calls and operations with a correlation id, in file
	// order, and the operations that wait for a CUDA event.
	gpuCalls, gpuOps []gpuEvent
	gpuWaits         []gpuWait
	tracks           []asyncTrack
	trackByKey       map[asyncKey]int32
	// recentTracks caches tracks by a hash of their key, as recentThreads
	// caches threads: an async track's events come close together (a
	// DevTools trace holds tens of thousands of two-event tracks), and a
	// comparison costs less than the map.
	recentTracks [trackSlots]recentTrack
	// V8's CPU profiles (Profile and ProfileChunk events), by pid and id.
	profiles     []cpuProfile
	profileByKey map[[2]int32]int32
	// The text of the object form's stackFrames and samples (a sampling
	// profile), read once everything else is (see addSampledStacks).
	stackFramesText, samplesText []byte
	// The nodes, timeDeltas and startTime of a V8 CPU profile file
	// (.cpuprofile: an object of those and samples, no traceEvents).
	cpuProfileFile map[string][]byte

	// The arguments of events, for a sink that keeps them.
	argsArena []byte
	argsRefs  []argsRef

	notes notes

	seq         int32
	first, last trace.Time
	timed       bool
	// lastOff is the latest instant seen on no thread (see seeOff).
	lastOff  trace.Time
	timedOff bool

	// hold weighs what the collector holds against the read's memory
	// budget (trace.ReadOptions.Held), every weighEvery events; held is
	// what it was last told.
	hold func(int64) error
	held int64
}

// weighEvery is how many events pass between two weighings of the
// collector: a few hundred kilobytes at most.
const weighEvery = 4096

// weigh tells hold what the collector holds now, with what its largest
// array takes on its next growth or its gathering and sorting (twice its
// size, see largest; the new array is made while the old is alive), and
// returns its error when the budget is exceeded: weighed without it, an
// array just under the budget grows to three times its size between two
// weighings, past the memory the budget was set from.
func (c *collector) weigh() error {
	if c.hold == nil {
		return nil
	}
	n := c.bytes() + c.largest()*2
	delta := n - c.held
	c.held = n
	return c.hold(delta)
}

// release tells hold that the collector's memory is given back.
func (c *collector) release() {
	if c.hold != nil && c.held != 0 {
		c.hold(-c.held)
		c.held = 0
	}
}

// bytes estimates the memory the collector holds: its slices as
// allocated (capacity) and its strings.
func (c *collector) bytes() int64 {
	n := int64(cap(c.procs))*int64(unsafe.Sizeof(process{})) + int64(cap(c.threads))*int64(unsafe.Sizeof(thread{})) +
		int64(cap(c.instants))*int64(unsafe.Sizeof(instant{})) + int64(cap(c.samples))*int64(unsafe.Sizeof(sample{})) +
		c.flows.bytes + int64(cap(c.tracks))*int64(unsafe.Sizeof(asyncTrack{})) +
		int64(cap(c.gpuCalls)+cap(c.gpuOps))*int64(unsafe.Sizeof(gpuEvent{})) + int64(cap(c.gpuWaits))*int64(unsafe.Sizeof(gpuWait{})) +
		c.addedInstants.bytes + c.addedSamples.bytes + c.addedCalls.bytes + c.addedOps.bytes +
		int64(cap(c.argsArena)) + int64(cap(c.argsRefs))*int64(unsafe.Sizeof(argsRef{})) + c.strs.Bytes()
	for i := range c.threads {
		t := &c.threads[i]
		n += t.slices.bytes + t.marks.bytes
	}
	// CPU profiles: their samples, nodes (a map entry is about twice its
	// key and value), and the text of a sampling profile or profile file
	// kept until the events are read.
	for i := range c.profiles {
		p := &c.profiles[i]
		n += int64(cap(p.times))*int64(unsafe.Sizeof(trace.Time(0))) + int64(cap(p.leaves))*8 +
			int64(len(p.nodes))*2*int64(8+unsafe.Sizeof(profileNode{})) + int64(len(p.depths))*2*16
	}
	n += int64(cap(c.stackFramesText) + cap(c.samplesText))
	for _, text := range c.cpuProfileFile {
		n += int64(cap(text))
	}
	for i := range c.tracks {
		n += c.tracks[i].events.bytes
	}
	for i := range c.procs {
		n += int64(cap(c.procs[i].threads)) * 4
	}
	return n
}

// largest returns the bytes of the collector's largest array, the one
// that asks the most at once: twice its size when a growing array grows
// (append, at most twice), or when the chunks of slices are gathered into
// one array and merged into another (see sortSlices); once its size when
// other chunks are gathered.
func (c *collector) largest() int64 {
	n := max(int64(cap(c.instants))*int64(unsafe.Sizeof(instant{})), int64(cap(c.samples))*int64(unsafe.Sizeof(sample{})),
		c.flows.size(), int64(cap(c.gpuCalls))*int64(unsafe.Sizeof(gpuEvent{})),
		int64(cap(c.gpuOps))*int64(unsafe.Sizeof(gpuEvent{})), int64(cap(c.argsArena)),
		int64(cap(c.argsRefs))*int64(unsafe.Sizeof(argsRef{})),
		c.addedInstants.size(), c.addedSamples.size(), c.addedCalls.size(), c.addedOps.size())
	for i := range c.threads {
		t := &c.threads[i]
		n = max(n, t.slices.size(), t.marks.size())
	}
	for i := range c.tracks {
		n = max(n, c.tracks[i].events.size())
	}
	return n
}

// gather puts the instants, samples and GPU events into the arrays the build
// works on, each copied once (see chunks).
func (c *collector) gather() {
	c.instants = c.addedInstants.gather()
	c.samples = c.addedSamples.gather()
	c.gpuCalls, c.gpuOps = c.addedCalls.gather(), c.addedOps.gather()
}

func newCollector() *collector {
	return &collector{
		strs:         newInterner(),
		procByKey:    map[int32]int32{},
		threadByKey:  map[[2]int32]int32{},
		counterByKey: map[counterKey]int32{},
		trackByKey:   map[asyncKey]int32{},
	}
}

// notes counts what the reader skips or tolerates while it reads; they go
// to trace.ReadOptions once the input is read.
type notes struct {
	skipped map[string]int64
	order   []string
	warned  map[string]int64
	worder  []string
	// unended counts the B events never ended, by thread.
	unended trace.Unended
}

func (n *notes) skip(what string, count int64) {
	if count == 0 {
		return
	}
	if n.skipped == nil {
		n.skipped = map[string]int64{}
	}
	if _, ok := n.skipped[what]; !ok {
		n.order = append(n.order, what)
	}
	n.skipped[what] += count
}

// warn counts a tolerated oddity; format has one %d, the count.
func (n *notes) warn(format string) {
	if n.warned == nil {
		n.warned = map[string]int64{}
	}
	if _, ok := n.warned[format]; !ok {
		n.worder = append(n.worder, format)
	}
	n.warned[format]++
}

func (n *notes) flush(opt trace.ReadOptions) {
	n.unended.Report(opt, "begin events (ph B) without end", "threads", "they end at the last event of their thread, as the trace viewer ends them")
	for _, f := range n.worder {
		opt.Warn(f, n.warned[f])
	}
	for _, what := range n.order {
		opt.Skip(what, n.skipped[what])
	}
}

func (c *collector) process(pid int32) int32 {
	if p, ok := c.procByKey[pid]; ok {
		return p
	}
	p := int32(len(c.procs))
	c.procs = append(c.procs, process{key: pid, name: none, labels: none})
	c.procByKey[pid] = p
	return p
}

const threadSlots = 64

// recentThread is a slot of collector.recentThreads: a thread's key and
// its index plus one, 0 when empty.
type recentThread struct{ pid, tid, index int32 }

const trackSlots = 64

// recentTrack is a slot of collector.recentTracks: a track's key and its
// index plus one, 0 when empty.
type recentTrack struct {
	key   asyncKey
	index int32
}

func (c *collector) thread(pid, tid int32) int32 {
	h := (uint32(pid)*0x9e3779b1 ^ uint32(tid)*0x85ebca6b) * 0xc2b2ae35
	slot := &c.recentThreads[h>>26&(threadSlots-1)]
	if slot.index != 0 && slot.pid == pid && slot.tid == tid {
		return slot.index - 1
	}
	t, ok := c.threadByKey[[2]int32{pid, tid}]
	if !ok {
		t = c.newThread(pid, tid)
	}
	*slot = recentThread{pid, tid, t + 1}
	return t
}

func (c *collector) newThread(pid, tid int32) int32 {
	p := c.process(pid)
	t := int32(len(c.threads))
	c.threads = append(c.threads, thread{proc: p, key: tid, name: none})
	c.threadByKey[[2]int32{pid, tid}] = t
	c.procs[p].threads = append(c.procs[p].threads, t)
	return t
}

func (c *collector) see(t trace.Time) {
	if !c.timed {
		c.first, c.last, c.timed = t, t, true
		return
	}
	c.first = min(c.first, t)
	c.last = max(c.last, t)
}

// seeOff records an instant of no thread (a process's or the trace's
// instant event, a counter value, an async event), and of the trace: the
// latest of them is kept apart, for the end of the trace to be found
// again when whole threads are dropped (dropLLVMTotals).
func (c *collector) seeOff(t trace.Time) {
	if !c.timedOff || t > c.lastOff {
		c.lastOff, c.timedOff = t, true
	}
	c.see(t)
}

// seeOn records an instant of thread t, and of the trace.
func (c *collector) seeOn(t *thread, at trace.Time) {
	if !t.timed || at > t.last {
		t.last, t.timed = at, true
	}
	c.see(at)
}

// The phases the model does not hold, by what the notes call them.
var skippedPhases = map[byte]string{
	'N': "object events (ph N, O, D)",
	'O': "object events (ph N, O, D)",
	'D': "object events (ph N, O, D)",
	'P': "sample events (ph P)",
	'v': "memory dump events (ph v, V)",
	'V': "memory dump events (ph v, V)",
	'c': "clock sync events (ph c)",
	'(': "context events (ph ( and ))",
	')': "context events (ph ( and ))",
}

// add records one event. Events the model cannot hold (unknown phases,
// missing fields) are counted in the notes, never refused.
func (c *collector) add(file string, e *rawEvent) error {
	if c.seq == math.MaxInt32 || e.line > math.MaxInt32 {
		return &errs.FormatError{File: file, Line: e.line, AtOffset: true, Offset: e.offset, Err: fmt.Errorf("too many events")}
	}
	c.seq++
	if c.seq%weighEvery == 0 {
		if err := c.weigh(); err != nil {
			// Placed at the event, for the front end to say
			// (budget.Named).
			return &errs.FormatError{File: file, Line: e.line, AtOffset: true, Offset: e.offset, Err: err}
		}
	}
	if e.ph == 0 {
		if e.badPh != none {
			c.notes.skip(fmt.Sprintf("events of unknown phase %s", errs.Quote(c.strs.str(e.badPh))), 1)
		} else {
			c.notes.skip("entries without ph", 1)
		}
		return nil
	}
	if e.badTime != "" && e.ph != 'M' {
		c.notes.skip(fmt.Sprintf("events whose %s is a string that is not a number", e.badTime), 1)
		return nil
	}
	switch e.ph {
	case 'X':
		if c.lacks(e, true, true, true) {
			return nil
		}
		c.addComplete(e)
	case 'B', 'E':
		if c.lacks(e, true, true, true) {
			return nil
		}
		t := &c.threads[c.thread(e.pid, e.tid)]
		*t.marks.add() = mark{ts: e.ts, seq: c.seq, line: int32(e.line), name: e.name, cat: e.cat,
			args: e.args, begin: e.ph == 'B'}
		c.seeOn(t, e.ts)
	case 'i', 'I', 'R':
		if e.ph == 'I' && len(e.profile) > 0 && c.strs.str(e.name) == "CpuProfile" && !c.lacks(e, true, true, false) && c.addProfile(e) {
			return nil
		}
		c.addInstant(e)
	case 'C':
		if c.lacks(e, true, false, true) {
			return nil
		}
		c.addCounter(e)
	case 's', 't', 'f':
		if c.lacks(e, true, true, true) {
			return nil
		}
		id := e.id
		if e.bindID != none {
			id = e.bindID
		}
		if id == none {
			c.notes.skip("flow events (ph s, t, f) without id", 1)
			return nil
		}
		scope := none
		if e.idLocal && e.bindID == none {
			scope = e.pid
		}
		t := c.thread(e.pid, e.tid)
		*c.flows.add() = flowPoint{ts: e.ts, cat: e.cat, id: id, scope: scope, seq: c.seq,
			thread: t, name: e.name, phase: e.ph, enclosing: e.ph != 'f' || e.bindEnclosing}
		c.seeOn(&c.threads[t], e.ts)
	case 'b', 'e', 'n', 'S', 'T', 'p', 'F':
		if c.lacks(e, true, false, true) {
			return nil
		}
		c.addAsync(e)
	case 'M':
		c.addMetadata(e)
	case 'P':
		if !isProfileEvent(c.strs.str(e.name)) || !c.addProfile(e) {
			c.notes.skip(skippedPhases['P'], 1)
		}
	default:
		what, ok := skippedPhases[e.ph]
		if !ok {
			what = fmt.Sprintf("events of unknown phase %q", e.ph)
		}
		c.notes.skip(what, 1)
	}
	return nil
}

// lacks counts e as skipped if it misses its ts (when ts tells it needs
// one). A missing pid reads as 0 and a missing tid as the pid, as in
// Perfetto (its JSON tokenizer: "make the tid equal to the pid if tid is
// not set"; the trace viewer, too, shows such events): writers that know
// of a single thread often leave them out, and their events are the
// trace. An event without tid is then on the same thread as its
// process's events with tid = pid (a main thread), nested with them. An
// event with all three, nearly every one, is told in a few instructions.
func (c *collector) lacks(e *rawEvent, pid, tid, ts bool) bool {
	if e.hasTs && e.pid != none && e.tid != none {
		return false
	}
	return c.lacksSome(e, pid, tid, ts)
}

// lacksSome is lacks for an event without ts, pid or tid.
func (c *collector) lacksSome(e *rawEvent, pid, tid, ts bool) bool {
	if ts && !e.hasTs {
		c.notes.skip(fmt.Sprintf("events of phase %q without ts", e.ph), 1)
		return true
	}
	if pid && e.pid == none {
		e.pid = c.strs.id([]byte("0"))
		c.notes.warn("%d events without pid, put on pid 0")
	}
	if tid && e.tid == none {
		e.tid = e.pid
		c.notes.warn("%d events without tid, put on the thread whose tid is their pid")
	}
	return false
}

// addComplete records an X event, and the flow ends it carries (flow_in,
// flow_out with bind_id, as Perfetto writes them). An X event without dur
// was still running when the recording stopped: it ends with its thread's
// recording, decided once everything is read.
func (c *collector) addComplete(e *rawEvent) {
	end := openEnd
	if e.hasDur {
		if e.dur < 0 {
			c.notes.skip("complete events (ph X) with a negative dur", 1)
			return
		}
		if end = e.ts + e.dur; end < e.ts {
			c.notes.skip("complete events (ph X) ending beyond the time range", 1)
			return
		}
	}
	ti := c.thread(e.pid, e.tid)
	t := &c.threads[ti]
	*t.slices.add() = slice{start: e.ts, end: end, name: e.name, cat: e.cat, args: e.args, seq: c.seq}
	if e.correlation >= 0 {
		g := gpuEvent{seq: c.seq, thread: ti, correlation: e.correlation}
		switch e.gpuCat {
		case gpuCall:
			*c.addedCalls.add() = g
		case gpuOp:
			if e.waitRecord >= 0 && e.waitStream >= 0 {
				c.gpuWaits = append(c.gpuWaits, gpuWait{op: int32(c.addedOps.len()), record: e.waitRecord, stream: e.waitStream})
			}
			*c.addedOps.add() = g
		}
	}
	c.seeOn(t, e.ts)
	if end != openEnd {
		c.seeOn(t, end)
	} else {
		t.open = true
		c.notes.warn("%d complete events (ph X) without dur, cut at the end of their thread's recording")
	}
	if !e.flowIn && !e.flowOut {
		return
	}
	id := e.bindID
	if id == none {
		id = e.id
	}
	if id == none {
		c.notes.skip("flow_in/flow_out of complete events without bind_id", 1)
		return
	}
	phase := byte('s')
	switch {
	case e.flowIn && e.flowOut:
		phase = 't'
	case e.flowIn:
		phase = 'f'
	}
	*c.flows.add() = flowPoint{ts: e.ts, cat: none, id: id, scope: none, seq: c.seq,
		thread: ti, name: e.name, own: c.seq, phase: phase, enclosing: true}
}

func (c *collector) addInstant(e *rawEvent) {
	scope := e.scope
	switch scope {
	case 0:
		scope = 't'
	case '?':
		c.notes.skip("instant events with a scope s other than \"g\", \"p\" or \"t\"", 1)
		return
	}
	if c.lacks(e, scope != 'g', scope == 't', true) {
		return
	}
	in := instant{ts: e.ts, seq: c.seq, name: e.name, cat: e.cat, args: e.args, scope: scope}
	switch scope {
	case 't':
		in.owner = c.thread(e.pid, e.tid)
		c.seeOn(&c.threads[in.owner], e.ts)
	case 'p':
		in.owner = c.process(e.pid)
	}
	*c.addedInstants.add() = in
	c.seeOff(e.ts)
}

// addCounter records the series of a counter event. A counter with an id
// is a distinct counter, as in the trace viewers.
func (c *collector) addCounter(e *rawEvent) {
	c.notes.skip("counter values that are not numbers", e.badCounters)
	name := e.name
	if e.id != none {
		name = c.strs.id([]byte(c.strs.str(e.name) + " id: " + c.strs.str(e.id)))
	}
	p := c.process(e.pid)
	for _, s := range e.counters {
		k := counterKey{name, s.key}
		typ, ok := c.counterByKey[k]
		if !ok {
			typ = int32(len(c.counterTypes))
			c.counterTypes = append(c.counterTypes, k)
			c.counterByKey[k] = typ
		}
		*c.addedSamples.add() = sample{ts: e.ts, value: s.value, seq: c.seq, proc: p, typ: typ}
	}
	c.seeOff(e.ts)
}

// addAsync records an async event on its track: nestable (b, e, n) tracks
// are keyed by category and id, legacy (S, T, p, F) ones by name and id.
func (c *collector) addAsync(e *rawEvent) {
	if e.id == none {
		if e.ph == 'b' || e.ph == 'e' || e.ph == 'n' {
			c.notes.skip("nestable async events (ph b, e, n) without id", 1)
		} else {
			c.notes.skip("async events (ph S, T, p, F) without id", 1)
		}
		return
	}
	if e.tid != none {
		// The trace viewers create the thread an async event was emitted
		// on, even when nothing else happens on it: (pid, tid) is a
		// container of its own, never folded into the process.
		c.thread(e.pid, e.tid)
	}
	k := asyncKey{catOrName: e.cat, id: e.id, pid: none}
	if e.ph != 'b' && e.ph != 'e' && e.ph != 'n' {
		k = asyncKey{legacy: true, catOrName: e.name, id: e.id, pid: none}
	}
	if e.idLocal {
		k.pid = e.pid
	}
	t := &c.tracks[c.track(k, e)]
	*t.events.add() = asyncEvent{ts: e.ts, seq: c.seq, name: e.name, cat: e.cat, args: e.args,
		step: e.argStep, phase: e.ph}
	c.seeOff(e.ts)
}

// track returns the async track of key k, made for e, its first event,
// if new.
func (c *collector) track(k asyncKey, e *rawEvent) int32 {
	h := uint32(k.catOrName)*0x9e3779b1 ^ uint32(k.id)*0x85ebca6b ^ uint32(k.pid)*0xc2b2ae35
	if k.legacy {
		h = ^h
	}
	slot := &c.recentTracks[(h*0x27d4eb2f)>>26&(trackSlots-1)]
	if slot.index != 0 && slot.key == k {
		return slot.index - 1
	}
	tr, ok := c.trackByKey[k]
	if !ok {
		tr = int32(len(c.tracks))
		p := c.process(e.pid)
		c.tracks = append(c.tracks, asyncTrack{proc: p, name: e.name, id: e.id})
		c.trackByKey[k] = tr
	}
	*slot = recentTrack{k, tr + 1}
	return tr
}

// addMetadata applies the M events that name and order processes and
// threads; the others (process_uptime_seconds, num_cpus...) describe
// nothing the model holds and are counted by name.
func (c *collector) addMetadata(e *rawEvent) {
	name := c.strs.str(e.name)
	skip := func(why string) { c.notes.skip(fmt.Sprintf("metadata events (ph M) %s %s", errs.Quote(name), why), 1) }
	switch name {
	case "process_name", "process_labels", "process_sort_index":
		if e.pid == none {
			skip("without pid")
			return
		}
		p := &c.procs[c.process(e.pid)]
		switch name {
		case "process_name":
			if e.argName == none {
				skip("without args.name")
				return
			}
			p.name = e.argName
		case "process_labels":
			if e.argLabels == none {
				skip("without args.labels")
				return
			}
			p.labels = e.argLabels
		default:
			if !e.hasSortIndex {
				skip("without an integer args.sort_index")
				return
			}
			p.sortIndex, p.hasSortIndex = e.sortIndex, true
		}
	case "thread_name", "thread_sort_index":
		if e.pid == none {
			skip("without pid")
			return
		}
		if e.tid == none {
			e.tid = e.pid // the thread an event without tid is on (see lacks)
		}
		t := &c.threads[c.thread(e.pid, e.tid)]
		if name == "thread_name" {
			if e.argName == none {
				skip("without args.name")
				return
			}
			t.name = e.argName
		} else {
			if !e.hasSortIndex {
				skip("without an integer args.sort_index")
				return
			}
			t.sortIndex, t.hasSortIndex = e.sortIndex, true
		}
	default:
		skip("(not modelled)")
	}
}
