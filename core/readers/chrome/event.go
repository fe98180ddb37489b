package chrome

import (
	"encoding/binary"
	"math"
	"strconv"
	"unsafe"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/intern"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// none marks an absent interned string.
const none = intern.None

// interner gives each distinct string a dense id (intern.Table), so that
// the events kept until the end of the input hold 4-byte ids instead of
// strings.
type interner struct {
	intern.Table
	// recent caches the ids of strings met lately, by a hash of their
	// first and last words: the same few names, categories and ids come
	// back event after event, and a comparison costs less than a map
	// lookup. A slot holds the string itself, its words (see recentKey)
	// and its id plus one, 0 when empty.
	recent [recentSlots]recentString
	// nums indexes the strings that are decimal integers by value: flow
	// and correlation ids, new at almost every flow, cost a map insertion
	// each (a cache miss in a map of hundreds of thousands of strings);
	// writers count them up, so they fill a few pages in turn.
	nums numIndex
}

const recentSlots = 512

type recentString struct {
	s      string
	w1, w2 uint64 // see recentKey
	id     int32
}

// recentKey returns the words the recent cache tells b by: its bytes as a
// little-endian word, if it has at most eight, or its first and last eight
// bytes, which hold all of them up to sixteen (only a longer string needs
// its bytes compared). The first word is loaded in one step from b's
// capacity; ok is false when a string shorter than eight bytes has no
// capacity for it.
func recentKey(b []byte) (w1, w2 uint64, ok bool) {
	if n := len(b); n >= 8 {
		return binary.LittleEndian.Uint64(b[:8]), binary.LittleEndian.Uint64(b[n-8 : n]), true
	}
	if cap(b) < 8 {
		return 0, 0, false
	}
	return binary.LittleEndian.Uint64(b[:8]) & (1<<(8*len(b)) - 1), 0, true
}

func newInterner() *interner { return &interner{} }

// recentSlot hashes the words and length of a string.
func recentSlot(w1, w2 uint64, n int) int {
	h := (w1 ^ w2*0x9e3779b97f4a7c15 ^ uint64(n)) * 0xff51afd7ed558ccd
	return int(h >> (64 - 9))
}

// reset empties the interner for reuse.
func (in *interner) reset() {
	in.Reset()
	in.recent = [recentSlots]recentString{}
	in.nums.reset()
}

// idOf is id for a string, which it keeps, without a copy, if it is new:
// the strings a part of the input interned (see decoder.replay) are
// interned again by the reader, and copying each new one a second time
// cost as much as the map.
func (in *interner) idOf(s string) int32 {
	return in.intern(unsafe.Slice(unsafe.StringData(s), len(s)), s)
}

func (in *interner) id(b []byte) int32 { return in.intern(b, "") }

// intern returns the id of b; s, if not empty, is b as a string, kept
// when b is new.
func (in *interner) intern(b []byte, s string) int32 {
	w1, w2, cached := recentKey(b)
	var slot *recentString
	if cached {
		slot = &in.recent[recentSlot(w1, w2, len(b))]
		// Up to sixteen bytes, the words are the string.
		if slot.id != 0 && slot.w1 == w1 && slot.w2 == w2 && len(slot.s) == len(b) && (len(b) <= 16 || slot.s == string(b)) {
			return slot.id - 1
		}
	}
	var id int32
	if v, ok := decimal(b); ok && in.nums.has(v) {
		p := in.nums.slot(v)
		if *p == 0 {
			if s == "" {
				s = string(b)
			}
			*p = in.Append(s) + 1
		}
		id = *p - 1
	} else if s != "" {
		id = in.ID(s)
	} else {
		id = in.IDBytes(b)
	}
	if cached {
		*slot = recentString{s: in.String(id), w1: w1, w2: w2, id: id + 1}
	}
	return id
}

// decimal returns the value of b if it is a decimal integer in canonical
// form (no sign, no leading zero) of at most 15 digits: one text per
// value, so that indexing by value finds the same strings as by text.
func decimal(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 15 || (b[0] == '0' && len(b) > 1) {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, true
}

// numIndex maps decimal values to ids plus one, in pages of numPage
// values. Pages are made while they stay dense enough (at most
// numSparse page entries per value held, past a start): scattered values
// (hashes, pointers) then go to the table's map, and a value is looked up
// in the pages first.
type numIndex struct {
	pages   map[uint64]*numPage
	last    *numPage // the page of lastKey, the one used last
	lastOK  bool
	lastKey uint64
	held    int // values in the pages
	full    bool
	spare   []*numPage
}

const (
	numPageBits = 10
	numSparse   = 8
	numStart    = 64 // pages made before the density bound applies
)

type numPage [1 << numPageBits]int32

// has reports whether v belongs in the pages: it is there, or may be put
// there.
func (x *numIndex) has(v uint64) bool {
	key := v >> numPageBits
	if x.lastOK && x.lastKey == key {
		return true
	}
	p, ok := x.pages[key]
	if !ok {
		if x.full || len(x.pages) >= numStart && len(x.pages)<<numPageBits > numSparse*x.held {
			x.full = true
			return false
		}
		if n := len(x.spare); n > 0 {
			p, x.spare = x.spare[n-1], x.spare[:n-1]
		} else {
			p = new(numPage)
		}
		if x.pages == nil {
			x.pages = map[uint64]*numPage{}
		}
		x.pages[key] = p
	}
	x.last, x.lastKey, x.lastOK = p, key, true
	return true
}

// slot returns the entry of v, whose page has just been found by has.
func (x *numIndex) slot(v uint64) *int32 {
	e := &x.last[v&(1<<numPageBits-1)]
	if *e == 0 {
		x.held++
	}
	return e
}

// reset empties the index, keeping its pages for reuse.
func (x *numIndex) reset() {
	for k, p := range x.pages {
		*p = numPage{}
		x.spare = append(x.spare, p)
		delete(x.pages, k)
	}
	x.last, x.lastOK, x.held, x.full = nil, false, 0, false
}

func (in *interner) str(id int32) string { return in.String(id) }

// series is one value of a counter event.
type series struct {
	key   int32
	value float64
}

// rawEvent holds the fields of one event object that the reader uses.
type rawEvent struct {
	ph            byte
	badPh         int32 // ph text when it is not one character, interned; none otherwise
	name, cat     int32
	pid, tid      int32 // text of the number or string, interned
	id            int32
	idLocal       bool // id came from id2.local, which is scoped by pid
	bindID        int32
	flowIn        bool // flow_in: true, a flow ends on this complete event
	flowOut       bool // flow_out: true, a flow starts from it
	ts, dur       trace.Time
	hasTs, hasDur bool
	// badTime names the field (ts or dur) whose string is not a number,
	// as "100a" or "invalid": the event is counted and dropped, as the
	// trace viewers drop it, instead of refusing the file.
	badTime       string
	bindEnclosing bool // bp is "e"
	scope         byte // s of an instant: 'g', 'p' or 't'; '?' for another value

	// Arguments of metadata, counter and async step events.
	argName, argLabels, argStep int32
	sortIndex                   int64
	hasSortIndex, badSortIndex  bool
	counters                    []series
	badCounters                 int64 // counter values that are not finite numbers

	// args met before ph, kept as text until ph tells whether they matter.
	argsText []byte
	argsLine int
	// profile is the args text of a sample event (ph P), read as V8's CPU
	// profile if the event is one (see addProfile).
	profile []byte
	// args is the index of the arguments kept for an ArgsSink (see
	// decoder.keepArgs), none if there are none.
	args int32

	// Kineto's GPU arguments of a complete event of a GPU category
	// (gpuCategory): its correlation id and, for a CUDA-event
	// synchronisation, the correlation id of the cudaEventRecord call it
	// waits for and the stream that call recorded on; -1 when absent.
	gpuCat                              gpuKind
	correlation, waitRecord, waitStream int64

	// rocprof v1's nanoseconds: its JSON (results.json of --hip-trace,
	// --hsa-trace, --sys-trace) writes ts and dur as strings of whole
	// microseconds, truncated, and the exact times as args.BeginNs and
	// args.EndNs. tsQuoted tells that ts was a string, which is what
	// makes the reader look for them; -1 when absent.
	tsQuoted       bool
	beginNs, endNs int64

	line   int
	offset int64
}

func (e *rawEvent) reset(line int, offset int64) {
	counters, argsText, profile := e.counters[:0], e.argsText[:0], e.profile[:0]
	*e = blankEvent // one block copy: a literal was built field by field
	e.counters, e.argsText, e.profile, e.line, e.offset = counters, argsText, profile, line, offset
}

// blankEvent is a rawEvent with no field read.
var blankEvent = rawEvent{badPh: none, name: none, cat: none, pid: none, tid: none, id: none, bindID: none,
	argName: none, argLabels: none, argStep: none, args: none,
	correlation: -1, waitRecord: -1, waitStream: -1, beginNs: -1, endNs: -1}

// parsesArgs tells whether the reader looks inside the arguments of e:
// metadata names, counter series, async step names, the correlation ids
// of Kineto's GPU events, rocprof v1's nanoseconds.
func (e *rawEvent) parsesArgs() bool {
	return e.ph == 'M' || e.ph == 'C' || e.ph == 'T' || e.ph == 'p' || e.ph == 'X' && (e.gpuCat != notGPU || e.tsQuoted)
}

// exactTimes gives a complete event rocprof v1's nanoseconds (see
// rawEvent.beginNs) when they agree with its ts: ts is BeginNs truncated
// to the microsecond. Otherwise ts and dur stay as written.
func (e *rawEvent) exactTimes() {
	if e.ph != 'X' || !e.hasTs || e.beginNs < 0 || e.endNs < e.beginNs {
		return
	}
	if trace.Time(e.beginNs/1000*1000) != e.ts {
		return
	}
	e.ts, e.dur, e.hasDur = trace.Time(e.beginNs), trace.Time(e.endNs-e.beginNs), true
}

// gpuKind tells the categories Kineto gives the CUDA (or HIP) runtime and
// driver calls and the GPU operations, whose args.correlation pairs a
// call with the operations it enqueued.
type gpuKind byte

const (
	notGPU  gpuKind = iota
	gpuCall         // cuda_runtime, cuda_driver
	gpuOp           // kernel, gpu_memcpy, gpu_memset, cuda_sync
)

func gpuCategory(cat []byte) gpuKind {
	switch string(cat) {
	case "cuda_runtime", "cuda_driver":
		return gpuCall
	case "kernel", "gpu_memcpy", "gpu_memset", "cuda_sync":
		return gpuOp
	}
	return notGPU
}

// gpuArgKey tells whether key names one of the arguments setGPUArg keeps.
func gpuArgKey(key []byte) bool {
	switch string(key) {
	case "correlation", "wait_on_cuda_event_record_corr_id", "wait_on_stream":
		return true
	}
	return false
}

// setGPUArg keeps one of the integer arguments of a GPU event (see
// rawEvent.correlation); a value that is no integer is ignored.
func (e *rawEvent) setGPUArg(key, v []byte) {
	var f *int64
	switch string(key) {
	case "correlation":
		f = &e.correlation
	case "wait_on_cuda_event_record_corr_id":
		f = &e.waitRecord
	case "wait_on_stream":
		f = &e.waitStream
	case "BeginNs":
		f = &e.beginNs
	case "EndNs":
		f = &e.endNs
	default:
		return
	}
	if n, ok := decimal(v); ok { // the usual form, without strconv's checks
		*f = int64(n)
	} else if n, err := strconv.ParseInt(string(v), 10, 64); err == nil && n >= 0 {
		*f = n
	}
}

// keepsArgs tells whether the arguments of an event of phase ph end up on
// a state or an event, for a sink that keeps them (trace.ArgsSink); those
// of an end (E, e, F) join those of its begin.
func keepsArgs(ph byte) bool {
	switch ph {
	case 'X', 'B', 'E', 'i', 'I', 'R', 'b', 'e', 'n', 'S', 'F', 'T', 'p':
		return true
	}
	return false
}

// readEvent reads one event object into e.
func (d *decoder) readEvent(e *rawEvent) error {
	s := d.sc
	e.reset(s.line, s.offset())
	s.pos++ // the '{' the caller saw
	c, ok := s.peek()
	if !ok {
		return s.failEnd("an event")
	}
	if c == '}' {
		s.pos++
		return nil
	}
	for {
		key, err := s.str()
		if err != nil {
			return err
		}
		if err := d.readField(e, key); err != nil {
			return err
		}
		c, ok := s.peek()
		if !ok {
			return s.failEnd("an event")
		}
		s.pos++
		if c == '}' {
			break
		}
		if c != ',' {
			s.pos--
			return s.fail("expected ',' or '}' in an event, found %s", describe(c))
		}
		if s.closesAfterComma('}') {
			break
		}
	}
	if len(e.argsText) > 0 {
		err := d.useArgs(e, e.argsText, e.argsLine)
		e.argsText, e.argsLine = e.argsText[:0], 0 // read: as if read in place
		if err != nil {
			return err
		}
	}
	if e.tsQuoted {
		e.exactTimes()
	}
	return nil
}

// readArgsField reads the value of the args field, once ph is known: it
// keeps its text for the sink if wanted, and reads inside it if needed.
func (d *decoder) readArgsField(e *rawEvent) error {
	s := d.sc
	if d.profileArgs(e) {
		var err error
		e.profile, _, err = s.capture(e.profile[:0])
		return err
	}
	keep := d.keepArgs && keepsArgs(e.ph)
	switch {
	case keep:
		from := len(d.col.argsArena)
		var err error
		var line int
		if d.col.argsArena, line, err = s.capture(d.col.argsArena); err != nil {
			return err
		}
		e.args = d.addArgs(from)
		if e.parsesArgs() {
			return d.readArgs(newBytesScanner(d.file, d.col.argsArena[from:], line), e)
		}
		return nil
	case e.parsesArgs():
		return d.readArgs(s, e)
	}
	return s.skip(1)
}

// useArgs handles args text captured before ph was known.
func (d *decoder) useArgs(e *rawEvent, text []byte, line int) error {
	if d.profileArgs(e) {
		e.profile = append(e.profile[:0], text...)
		return nil
	}
	if d.keepArgs && keepsArgs(e.ph) {
		from := len(d.col.argsArena)
		d.col.argsArena = append(d.col.argsArena, text...)
		e.args = d.addArgs(from)
	}
	if e.parsesArgs() {
		return d.readArgs(newBytesScanner(d.file, text, line), e)
	}
	return nil
}

// addArgs records the arguments text appended to d.col.argsArena from offset
// from, unless it is an empty object, and returns its index.
func (d *decoder) addArgs(from int) int32 {
	if d.sc.lenient {
		strict := strictJSON(d.col.argsArena[from:])
		d.col.argsArena = append(d.col.argsArena[:from], strict...)
	}
	if isEmptyObject(d.col.argsArena[from:]) || len(d.col.argsRefs) >= math.MaxInt32 {
		d.col.argsArena = d.col.argsArena[:from]
		return none
	}
	d.col.argsRefs = append(d.col.argsRefs, argsRef{off: int64(from), n: int64(len(d.col.argsArena) - from)})
	return int32(len(d.col.argsRefs) - 1)
}

// isEmptyObject tells whether JSON text is {} (blanks aside).
func isEmptyObject(b []byte) bool {
	n := 0
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r':
		default:
			n++
			if n > 2 {
				return false
			}
		}
	}
	return n == 2
}

// readField reads the value of the field named key. The key aliases the
// scanner's buffer, so it is compared before anything else is read.
func (d *decoder) readField(e *rawEvent, key []byte) error {
	s := d.sc
	var field byte
	switch string(key) {
	case "ph":
		field = 'h'
	case "name":
		field = 'n'
	case "cat":
		field = 'c'
	case "pid":
		field = 'p'
	case "tid":
		field = 't'
	case "ts":
		field = 's'
	case "dur":
		field = 'd'
	case "id":
		field = 'i'
	case "id2":
		field = '2'
	case "bp":
		field = 'b'
	case "s":
		field = 'S'
	case "args":
		field = 'a'
	case "bind_id":
		field = 'B'
	case "flow_in":
		field = 'I'
	case "flow_out":
		field = 'O'
	}
	if err := s.expect(':', "an event"); err != nil {
		return err
	}
	if field == 0 {
		return s.skip(1)
	}
	if c, ok := s.peek(); ok && c == 'n' {
		return s.literal("null") // a null field counts as absent
	}
	var err error
	switch field {
	case 'h':
		var v []byte
		if v, err = s.str(); err == nil {
			if len(v) != 1 {
				e.ph, e.badPh = 0, d.strs.id(v)
			} else {
				e.ph, e.badPh = v[0], none
			}
		}
	case 'n':
		e.name, err = d.internString()
	case 'c':
		var v []byte
		if v, err = s.str(); err == nil {
			e.cat, e.gpuCat = d.strs.id(v), gpuCategory(v)
		}
	case 'p':
		e.pid, err = d.internScalar("pid")
	case 't':
		e.tid, err = d.internScalar("tid")
	case 's':
		var ok bool
		c, _ := s.peek()
		e.tsQuoted = c == '"'
		e.ts, ok, err = d.micros("ts")
		e.hasTs = err == nil && ok
		if err == nil && !ok {
			e.badTime = "ts"
		}
	case 'd':
		var ok bool
		e.dur, ok, err = d.micros("dur")
		e.hasDur = err == nil && ok
		if err == nil && !ok && e.badTime == "" {
			e.badTime = "dur"
		}
	case 'i':
		e.id, err = d.internScalar("id")
		e.idLocal = false
	case '2':
		err = d.readID2(e)
	case 'b':
		var v []byte
		if v, err = s.str(); err == nil {
			e.bindEnclosing = string(v) == "e"
		}
	case 'S':
		var v []byte
		if v, err = s.str(); err == nil {
			if len(v) != 1 || (v[0] != 'g' && v[0] != 'p' && v[0] != 't') {
				e.scope = '?'
			} else {
				e.scope = v[0]
			}
		}
	case 'a':
		// Until ph is known, and for a complete event until its cat is
		// (Kineto's GPU events have arguments to read), the text waits.
		if e.ph == 0 && e.badPh == none || e.ph == 'X' && e.cat == none {
			e.argsText = e.argsText[:0]
			e.argsText, e.argsLine, err = s.capture(e.argsText)
		} else {
			err = d.readArgsField(e)
		}
	case 'B':
		e.bindID, err = d.internScalar("bind_id")
	case 'I', 'O':
		var v bool
		if v, err = d.boolean(); err == nil {
			if field == 'I' {
				e.flowIn = v
			} else {
				e.flowOut = v
			}
		}
	}
	return err
}

// boolean reads true or false; anything else counts as false.
func (d *decoder) boolean() (bool, error) {
	s := d.sc
	c, ok := s.peek()
	if !ok {
		return false, s.failEnd("a value")
	}
	switch c {
	case 't':
		return true, s.literal("true")
	case 'f':
		return false, s.literal("false")
	}
	return false, s.skip(1)
}

func (d *decoder) internString() (int32, error) {
	v, err := d.sc.str()
	if err != nil {
		return none, err
	}
	return d.strs.id(v), nil
}

// internScalar reads a pid, tid or id, which writers give as numbers or
// strings; both are kept as text, so 7 and "7" name the same thing.
func (d *decoder) internScalar(what string) (int32, error) {
	s := d.sc
	c, ok := s.peek()
	if !ok {
		return none, s.failEnd(what)
	}
	var v []byte
	var err error
	switch {
	case c == '"':
		v, err = s.str()
	case c == '-' || (c >= '0' && c <= '9'):
		v, err = s.number()
	default:
		return none, s.fail("%s must be a number or a string, found %s", what, describe(c))
	}
	if err != nil {
		return none, err
	}
	return d.strs.id(v), nil
}

// micros reads a time in microseconds, a number or a string holding one.
// A string that holds no number ("invalid", "100a") is valid JSON: it
// reports ok false, and the caller drops the event (Perfetto's JSON tests
// hold such files and expect them to load without those events).
func (d *decoder) micros(what string) (t trace.Time, ok bool, err error) {
	s := d.sc
	c, more := s.peek()
	if !more {
		return 0, false, s.failEnd(what)
	}
	var v []byte
	quoted := c == '"'
	switch {
	case quoted:
		v, err = s.str()
	case c == '-' || (c >= '0' && c <= '9'):
		v, err = s.number()
	default:
		return 0, false, s.fail("%s must be a number, found %s", what, describe(c))
	}
	if err != nil {
		return 0, false, err
	}
	t, err = parseMicros(v)
	if err != nil {
		if quoted {
			return 0, false, nil
		}
		return 0, false, s.fail("%s %s: %v", what, errs.QuoteBytes(v), err)
	}
	return t, true, nil
}

// readID2 reads {"local": id} or {"global": id}.
func (d *decoder) readID2(e *rawEvent) error {
	s := d.sc
	if err := s.expect('{', "id2"); err != nil {
		return err
	}
	found := false
	for {
		key, err := s.str()
		if err != nil {
			return err
		}
		local, global := string(key) == "local", string(key) == "global"
		if err := s.expect(':', "id2"); err != nil {
			return err
		}
		switch {
		case local || global:
			if e.id, err = d.internScalar("id2"); err != nil {
				return err
			}
			e.idLocal, found = local, true
		default:
			if err := s.skip(1); err != nil {
				return err
			}
		}
		c, ok := s.peek()
		if !ok {
			return s.failEnd("id2")
		}
		s.pos++
		if c == '}' {
			break
		}
		if c != ',' {
			s.pos--
			return s.fail("expected ',' or '}' in id2, found %s", describe(c))
		}
		if s.closesAfterComma('}') {
			break
		}
	}
	if !found {
		e.id = none // an id2 that names no id: the event has no id
	}
	return nil
}

// readArgs reads the args object of a metadata or counter event from s,
// which is the main scanner or one over text captured earlier.
func (d *decoder) readArgs(s *scanner, e *rawEvent) error {
	if c, ok := s.peek(); ok && c != '{' {
		return s.skip(1) // args that are not an object hold nothing to read
	}
	if err := s.expect('{', "args"); err != nil {
		return err
	}
	if c, ok := s.peek(); ok && c == '}' {
		s.pos++
		return nil
	}
	for {
		key, err := s.str()
		if err != nil {
			return err
		}
		switch e.ph {
		case 'C':
			err = d.readCounterArg(s, e, d.strs.id(key))
		case 'X':
			err = d.readGPUArg(s, e, key)
		default:
			// metadata names and sort indexes, async step names
			err = d.readMetadataArg(s, e, key)
		}
		if err != nil {
			return err
		}
		c, ok := s.peek()
		if !ok {
			return s.failEnd("args")
		}
		s.pos++
		if c == '}' {
			return nil
		}
		if c != ',' {
			s.pos--
			return s.fail("expected ',' or '}' in args, found %s", describe(c))
		}
		if s.closesAfterComma('}') {
			return nil
		}
	}
}

// readGPUArg reads one argument of a complete event of a GPU category,
// keeping the integers setGPUArg knows.
func (d *decoder) readGPUArg(s *scanner, e *rawEvent, key []byte) error {
	known := string(key) == "correlation" || string(key) == "wait_on_cuda_event_record_corr_id" || string(key) == "wait_on_stream"
	ns := e.tsQuoted && (string(key) == "BeginNs" || string(key) == "EndNs")
	var name [len("wait_on_cuda_event_record_corr_id")]byte
	k := name[:copy(name[:], key)] // key aliases the buffer the value is read from
	if err := s.expect(':', "args"); err != nil {
		return err
	}
	c, _ := s.peek()
	if ns && c == '"' { // rocprof v1 writes them as strings
		v, err := s.str()
		if err == nil {
			e.setGPUArg(k, v)
		}
		return err
	}
	if !known && !ns || c != '-' && (c < '0' || c > '9') {
		return s.skip(1)
	}
	v, err := s.number()
	if err != nil {
		return err
	}
	e.setGPUArg(k, v)
	return nil
}

func (d *decoder) readMetadataArg(s *scanner, e *rawEvent, key []byte) error {
	var field byte
	switch string(key) {
	case "name":
		field = 'n'
	case "labels":
		field = 'l'
	case "sort_index":
		field = 's'
	case "step":
		field = 'p'
	}
	if err := s.expect(':', "args"); err != nil {
		return err
	}
	c, _ := s.peek()
	if field == 0 || c == 'n' {
		return s.skip(1)
	}
	switch field {
	case 'n', 'l', 'p':
		if c != '"' {
			return s.skip(1) // a name that is not a string does not name
		}
		v, err := s.str()
		if err != nil {
			return err
		}
		e.setNameArg(field, d.strs.id(v))
	case 's':
		if c != '"' && c != '-' && (c < '0' || c > '9') {
			e.badSortIndex = true
			return s.skip(1)
		}
		v, err := scalarText(s)
		if err != nil {
			return err
		}
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			e.badSortIndex = true
			return nil
		}
		e.sortIndex, e.hasSortIndex = n, true
	}
	return nil
}

func (d *decoder) readCounterArg(s *scanner, e *rawEvent, key int32) error {
	if err := s.expect(':', "args"); err != nil {
		return err
	}
	if c, ok := s.peek(); ok && c != '"' && c != '-' && (c < '0' || c > '9') {
		e.badCounters++ // an object, a boolean, null: not a series
		return s.skip(1)
	}
	v, err := scalarText(s)
	if err != nil {
		return err
	}
	x, err := strconv.ParseFloat(string(v), 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		e.badCounters++
		return nil
	}
	e.counters = append(e.counters, series{key, x})
	return nil
}

// scalarText reads a number, or a string that should hold one.
func scalarText(s *scanner) ([]byte, error) {
	c, ok := s.peek()
	if !ok {
		return nil, s.failEnd("a number")
	}
	switch {
	case c == '"':
		return s.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	}
	return nil, s.fail("expected a number, found %s", describe(c))
}

// setNameArg keeps the string id of a metadata or step event's string
// argument: key is 'n' for "name", 'l' for "labels", anything else for
// "step".
func (e *rawEvent) setNameArg(key byte, id int32) {
	switch key {
	case 'n':
		e.argName = id
	case 'l':
		e.argLabels = id
	default:
		e.argStep = id
	}
}
