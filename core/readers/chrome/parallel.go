package chrome

import (
	"bytes"
	"io"
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Reading the event array on all cores.
//
// One goroutine, the cutter, reads the input after the first event and
// cuts it into parts of a few megabytes at safe points: right after a
// comma between two events of the array, found by a scan that knows
// strings and their escapes and counts nesting and lines. Parsers read the
// parts at once, each with a scanner of its own placed at the part's
// offset and line, into events whose strings are interned by the part.
// The reading goroutine takes the parts in input order and hands their
// events to the collector one by one, giving their strings the ids the
// reader would have given them reading alone, so that everything built
// from them is the same. The parts are parsed with the same code as the
// whole input; a part that fails to parse (bad or cut input) and what
// follows it are read again on the single path, which makes the decision
// and names the error. Only a few parts are in flight at once, so memory
// does not grow with the input.

// partSize is the size a part is cut at, once an event ends past it, and
// parsers the number of parsers (0: GOMAXPROCS); the array is read in
// parts only with more than one. Variables, so that tests can cut small
// inputs into many parts on any machine.
var (
	partSize = 1 << 20
	parsers  = 0
)

// partSlack is how far past partSize a part's buffer reaches: the reads
// that fill it stop there, and what lies past the cut is copied to the
// next part.
const partSlack = 64 << 10

// partsRead counts the parts read on all cores, for tests that check
// that a read did take that path.
var partsRead atomic.Int64

func parserCount() int {
	if parsers > 0 {
		return parsers
	}
	return runtime.GOMAXPROCS(0)
}

// part is a run of whole events of the array, each followed by its comma.
type part struct {
	data   []byte
	offset int64 // input offset of data[0]
	// ok is where the events read end: just after the comma that follows
	// the last of them; len(data) when the whole part is read.
	ok int
	// lines is the line ok is on, counting from 1 at the part's start:
	// the parser counts lines as if the part started the input, and the
	// events' lines are moved once the part's place is known (newlines
	// inside strings, which JSON forbids but real files hold, do not
	// count, so only a parse tells).
	lines int

	// What the parser made of it: the events, strings interned by the
	// part, the argument texts kept, and the error that stopped it.
	events  []packedEvent
	rare    []rawEvent // the events with fields a packedEvent lacks
	strs    *interner
	col     *collector
	series  []series
	lenient bool // the part uses what Perfetto tolerates (see scanner.lenient)
	err     error
	ready   chan struct{}
	// hint, shared by the parts of a read, is the most events one of them
	// has held: a part's first parse makes its array that large at once
	// instead of growing it.
	hint *atomic.Int64
}

// packedEvent is an event parsed from a part, in a fixed-size record of
// the fields most events have (80 bytes, 40% of a rawEvent: the parser writes
// them and the reader reads them back, a few megabytes per part), with
// ids interned by the part, and how many strings the part had interned
// once it was read, so that the strings met first in it are known. An
// event with any other field (metadata, counter and step arguments, a bad
// ph or time, a CUDA-event wait) is kept whole in part.rare, at index rare.
type packedEvent struct {
	ts, dur                               trace.Time
	offset, correlation                   int64
	line                                  int32 // from 1 at the part's start
	name, cat, pid, tid, id, bindID, args int32
	interned                              int32
	rare                                  int32 // index in part.rare; -1 if none
	ph, scope                             byte
	flags                                 packedFlags
	gpuCat                                gpuKind
}

type packedFlags byte

const (
	packedHasTs packedFlags = 1 << iota
	packedHasDur
	packedIDLocal
	packedFlowIn
	packedFlowOut
	packedBindEnclosing
)

// packs reports whether e is all in a packedEvent: none of the fields it
// lacks differs from what rawEvent.reset sets.
func packs(e *rawEvent) bool {
	return e.badPh == none && e.badTime == "" && e.argName == none && e.argLabels == none && e.argStep == none &&
		!e.hasSortIndex && !e.badSortIndex && e.sortIndex == 0 && len(e.counters) == 0 && e.badCounters == 0 &&
		e.waitRecord == -1 && e.waitStream == -1 && len(e.profile) == 0 && e.line <= math.MaxInt32
}

// pack records e (which packs) in pe, written in place: built aside and
// copied, the record cost twice its stores.
func pack(pe *packedEvent, e *rawEvent, interned int32) {
	var f packedFlags
	set := func(b bool, bit packedFlags) {
		if b {
			f |= bit
		}
	}
	set(e.hasTs, packedHasTs)
	set(e.hasDur, packedHasDur)
	set(e.idLocal, packedIDLocal)
	set(e.flowIn, packedFlowIn)
	set(e.flowOut, packedFlowOut)
	set(e.bindEnclosing, packedBindEnclosing)
	pe.ts, pe.dur, pe.offset, pe.correlation, pe.line = e.ts, e.dur, e.offset, e.correlation, int32(e.line)
	pe.name, pe.cat, pe.pid, pe.tid, pe.id, pe.bindID, pe.args = e.name, e.cat, e.pid, e.tid, e.id, e.bindID, e.args
	pe.interned, pe.rare, pe.ph, pe.scope, pe.flags, pe.gpuCat = interned, -1, e.ph, e.scope, f, e.gpuCat
}

// add returns a new record at the end of the part's events.
func (p *part) add() *packedEvent {
	if len(p.events) == cap(p.events) {
		p.events = slices.Grow(p.events, 1)
	}
	p.events = p.events[:len(p.events)+1]
	return &p.events[len(p.events)-1]
}

// unpack sets e to the event pe records, as the parser read it. clean
// tells that e holds the last event unpacked, which was not rare: its
// fields that no packedEvent holds are then those every such event has,
// and only the packed ones are written (writing the whole rawEvent, three
// times the size of a packedEvent, was a third of the cost of reading
// the events back). It reports whether the event was not rare, so that e
// is clean for the next.
func (p *part) unpack(pe *packedEvent, e *rawEvent, clean bool) bool {
	if pe.rare >= 0 {
		*e = p.rare[pe.rare]
		return false
	}
	f := pe.flags
	if clean {
		e.ph, e.name, e.cat, e.pid, e.tid, e.id, e.bindID = pe.ph, pe.name, pe.cat, pe.pid, pe.tid, pe.id, pe.bindID
		e.idLocal, e.flowIn, e.flowOut = f&packedIDLocal != 0, f&packedFlowIn != 0, f&packedFlowOut != 0
		e.ts, e.dur, e.hasTs, e.hasDur = pe.ts, pe.dur, f&packedHasTs != 0, f&packedHasDur != 0
		e.bindEnclosing, e.scope, e.args = f&packedBindEnclosing != 0, pe.scope, pe.args
		e.gpuCat, e.correlation, e.line, e.offset = pe.gpuCat, pe.correlation, int(pe.line), pe.offset
		return true
	}
	*e = rawEvent{ph: pe.ph, badPh: none, name: pe.name, cat: pe.cat, pid: pe.pid, tid: pe.tid, id: pe.id,
		idLocal: f&packedIDLocal != 0, bindID: pe.bindID, flowIn: f&packedFlowIn != 0, flowOut: f&packedFlowOut != 0,
		ts: pe.ts, dur: pe.dur, hasTs: f&packedHasTs != 0, hasDur: f&packedHasDur != 0,
		bindEnclosing: f&packedBindEnclosing != 0, scope: pe.scope,
		argName: none, argLabels: none, argStep: none, args: pe.args,
		gpuCat: pe.gpuCat, correlation: pe.correlation, waitRecord: -1, waitStream: -1,
		line: int(pe.line), offset: pe.offset}
	return true
}

// parse reads the events of the part.
func (p *part) parse(file string, keepArgs bool) {
	p.events, p.rare, p.series, p.err = p.events[:0], p.rare[:0], p.series[:0], nil
	if p.hint != nil {
		if hint := int(p.hint.Load()); cap(p.events) < hint {
			p.events = make([]packedEvent, 0, hint+hint/8)
		}
		defer func() {
			if n := int64(len(p.events)); n > p.hint.Load() {
				p.hint.Store(n)
			}
		}()
	}
	if p.strs == nil {
		p.strs = newInterner()
		p.col = &collector{strs: p.strs}
	}
	p.strs.reset()
	p.col.argsArena, p.col.argsRefs = p.col.argsArena[:0], p.col.argsRefs[:0]
	sc := newBytesScanner(file, p.data, 1)
	sc.base = p.offset
	d := &decoder{file: file, sc: sc, strs: p.strs, col: p.col, keepArgs: keepArgs}
	p.ok, p.lines = 0, 1
	defer func() { p.lenient = sc.lenient }()
	atObject := false // sc.pos is known to be at the '{' of the next event
	for {
		if !atObject {
			c, ok := sc.peek()
			if !ok {
				if p.ok != len(p.data) { // blanks at the end
					p.err = sc.failEnd("a part")
				}
				return
			}
			if c != '{' {
				p.err = sc.fail("expected an event object")
				return
			}
		}
		if d.readEventFast(&d.ev) {
		} else if err := d.readEvent(&d.ev); err != nil {
			p.err = err
			return
		}
		// In the usual layouts the comma and the next '{' are passed in
		// one step; ok and lines are still those just after the comma,
		// where nextObject finds it if it passes it.
		afterComma, lines := sc.pos+1, sc.line
		if atObject = sc.nextObject(); atObject {
			p.ok, p.lines = afterComma, lines
		} else {
			if c, ok := sc.peek(); !ok || c != ',' {
				p.err = sc.fail("expected ',' after an event")
				return
			}
			sc.pos++
			p.ok, p.lines = sc.pos, sc.line
		}
		if packs(&d.ev) {
			pack(p.add(), &d.ev, int32(p.strs.Len()))
			continue
		}
		ev := d.ev
		from := len(p.series)
		p.series = append(p.series, ev.counters...)
		ev.counters, ev.argsText, ev.profile = nil, nil, bytes.Clone(ev.profile)
		if len(p.series) > from {
			ev.counters = p.series[from:len(p.series):len(p.series)]
		}
		pe := p.add()
		pack(pe, &ev, int32(p.strs.Len()))
		pe.rare = int32(len(p.rare))
		p.rare = append(p.rare, ev)
	}
}

// cutter reads the input and cuts it into parts.
type cutter struct {
	r      io.Reader
	buf    []byte // input read and not yet cut; buf[0] is at offset
	offset int64
	eof    bool
	err    error // the reader's error, if it failed
	// whole is the input mapped in memory, if it is (see nextMapped);
	// in counts the bytes cut past seen, the end of those counted.
	whole []byte
	in    *countingReader
	seen  int64
}

// boundary returns the index just after the first comma at or after i in
// b that looks like one between two events of the array: a '}', blanks,
// the comma, blanks and a '{'. A string or a nested value may hold the
// same text, so it is only a guess: the parser of the part before it
// confirms it by reading whole events up to that comma (see part.parse).
// -1 if none is found before the last bytes of b, where a guess could be
// cut short.
func boundary(b []byte, i int) int {
	for {
		j := bytes.IndexByte(b[i:], '}')
		if j < 0 {
			return -1
		}
		k, _ := skipBlanks(b, i+j+1, 0)
		if k >= len(b) {
			return -1
		}
		if b[k] == ',' {
			m, _ := skipBlanks(b, k+1, 0)
			if m >= len(b) {
				return -1
			}
			if b[m] == '{' {
				return k + 1
			}
		}
		i += j + 1
	}
}

// next reads input into p until a part can be cut, and reports whether
// it was; when none can be, buf holds the rest of the input read. The
// input is read straight into the part's buffer, no further than a little
// past partSize, so that only the bytes after the cut, the start of the
// next part, are copied (to buf, then to the next part).
func (c *cutter) next(p *part) bool {
	if c.whole != nil {
		return c.nextMapped(p)
	}
	if cap(p.data) < partSize+partSlack {
		p.data = make([]byte, 0, partSize+partSlack)
	}
	p.data = append(p.data[:0], c.buf...)
	from := 0 // where to go on looking for a boundary
	for {
		if len(p.data) >= partSize {
			if cut := boundary(p.data, max(from, partSize-1)); cut > 0 {
				c.buf = append(c.buf[:0], p.data[cut:]...)
				p.data = p.data[:cut]
				p.offset = c.offset
				c.offset += int64(cut)
				return true
			}
			from = max(partSize-1, len(p.data)-64)
		}
		if c.eof || c.err != nil || len(p.data) > MaxValue {
			// the last events, or an event too long: the single path reads them
			c.buf, p.data = p.data, c.buf[:0]
			return false
		}
		if cap(p.data)-len(p.data) < partSlack/4 {
			grown := make([]byte, len(p.data), 2*cap(p.data))
			copy(grown, p.data)
			p.data = grown
		}
		n, err := c.r.Read(p.data[len(p.data):cap(p.data)])
		p.data = p.data[:len(p.data)+n]
		if err == io.EOF {
			c.eof = true
		} else if err != nil {
			c.err = err
		} else if n == 0 {
			c.err = io.ErrNoProgress
		}
	}
}

// tailReader gives what is left of the input after bytes already read:
// the reader's own rest, or its error.
type tailReader struct {
	r   io.Reader
	eof bool
	err error
}

func (t *tailReader) Read(p []byte) (int, error) {
	switch {
	case t.err != nil:
		return 0, t.err
	case t.eof:
		return 0, io.EOF
	}
	return t.r.Read(p)
}

// readEventsParallel reads events of the array on all cores, from the
// event that starts at the scanner's position, and hands them to the
// collector in order. It returns false when it read none; otherwise the
// scanner is left at the first event it did not read (or past the input
// read so far), for the single path to go on from there.
func (d *decoder) readEventsParallel() (bool, error) {
	s := d.sc
	c := &cutter{r: s.r, offset: s.offset()}
	mapped := s.whole != nil
	if mapped {
		c.whole, c.in, c.seen = s.whole, s.in, int64(s.end)
	} else {
		c.buf = make([]byte, 0, max(64<<10, 2*(s.end-s.pos)))
		c.buf = append(c.buf, s.buf[s.pos:s.end]...)
		c.eof, c.err = s.eof, s.readErr
	}

	if d.counted != nil {
		// Progress is reported here, between parts, not by the cutter.
		d.counted.quiet = true
		defer func() { d.counted.quiet = false }()
	}
	workers := parserCount()
	inFlight := workers + 2
	parts := make(chan *part, inFlight)
	work := make(chan *part, inFlight)
	free := make(chan *part, inFlight)
	var hint atomic.Int64
	for range inFlight {
		free <- &part{ready: make(chan struct{}, 1), hint: &hint}
	}
	quit := make(chan struct{})
	stop := sync.OnceFunc(func() { close(quit) })
	var wg sync.WaitGroup
	// A fault in a mapped input unwinds the reading goroutine through
	// here (see decodeMapped): the cutter and the parsers are stopped
	// before the mapping goes.
	finished := false
	defer func() {
		if !finished {
			stop()
			for p := range parts {
				<-p.ready
			}
			wg.Wait()
		}
	}()
	wg.Add(1)
	go func() { // the cutter
		defer wg.Done()
		defer close(parts)
		defer close(work)
		if mapped {
			defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
			defer ingest.RecoverFault(d.file, &c.err)
		}
		for {
			var p *part
			select {
			case p = <-free:
			case <-quit:
				return
			}
			if !c.next(p) {
				return
			}
			work <- p
			parts <- p
		}
	}()
	for range workers {
		wg.Add(1)
		go func() { // a parser
			defer wg.Done()
			if mapped {
				defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
			}
			for p := range work {
				if mapped {
					p.parseMapped(d.file, d.keepArgs)
				} else {
					p.parse(d.file, d.keepArgs)
				}
				p.ready <- struct{}{}
			}
		}()
	}

	// A part whose events do not reach its end was cut at a wrong guess
	// (or the input is damaged there): its events up to the last comma
	// read are kept, and the rest of it, with the next part, is read
	// again here, from that comma, which is a safe point. If that too
	// reads no event, the single path takes over from there.
	read := false
	var rest [][]byte // the input left to the single path, in order
	var restAt int64
	line, failed := s.line, false // line: where the next part starts
	var pending []byte            // the unread end of a part, before the next one
	var pendingAt int64
	again := &part{}
	for p := range parts {
		<-p.ready
		if failed {
			rest = append(rest, p.data)
			continue
		}
		q := p
		if pending != nil {
			again.data = append(append(again.data[:0], pending...), p.data...)
			again.offset = pendingAt
			again.parse(d.file, d.keepArgs)
			q, pending = again, nil
		}
		if err := d.replay(q, line); err != nil {
			stop()
			for p := range parts {
				<-p.ready
			}
			wg.Wait()
			finished = true
			return true, err
		}
		if len(q.events) > 0 {
			read = true
			partsRead.Add(1)
		}
		s.lenient = s.lenient || q.lenient
		line += q.lines - 1
		if d.counted != nil {
			d.counted.report()
		}
		if q.err != nil {
			if q == again && q.ok == 0 {
				failed = true
				stop()
				rest, restAt = append(rest, bytes.Clone(q.data)), q.offset
			} else {
				pending = append([]byte(nil), q.data[q.ok:]...)
				pendingAt = q.offset + int64(q.ok)
			}
		}
		if mapped && pending == nil {
			s.releaseBefore(int(q.offset) + len(q.data)) // the part is read: its pages can go
		}
		free <- p
	}
	wg.Wait()
	finished = true
	switch {
	case pending != nil:
		rest, restAt = append(rest, pending), pendingAt
	case !failed:
		restAt = c.offset
	}
	if mapped { // the single path goes on from restAt in the mapping
		s.pos, s.line, s.end = int(restAt), line, int(c.seen)
		s.eof, s.readErr = s.end == len(s.whole), c.err
		s.keep, s.hold = -1, -1
		return read, nil
	}
	rest = append(rest, c.buf)

	// The single path goes on with the rest of the input.
	s.buf = bytes.Join(rest, nil)
	if len(s.buf) < firstWindow {
		s.buf = append(s.buf, make([]byte, firstWindow-len(s.buf))...)[:len(s.buf)]
	}
	s.pos, s.end, s.base, s.line = 0, len(s.buf), restAt, line
	s.buf = s.buf[:cap(s.buf)]
	s.r = &tailReader{r: c.r, eof: c.eof, err: c.err}
	s.eof, s.readErr = false, nil
	s.keep, s.hold = -1, -1
	return read, nil
}

// replay hands the events of a part that starts on the given line to the
// collector, with the strings they name interned in the order the single
// path interns them.
func (d *decoder) replay(p *part, line int) error {
	ids := make([]int32, p.strs.Len())
	next := int32(0)
	var ev rawEvent
	e := &ev
	clean := false
	for i := range p.events {
		pe := &p.events[i]
		for ; next < pe.interned; next++ {
			ids[next] = d.strs.idOf(p.strs.String(int32(next)))
		}
		clean = p.unpack(pe, e, clean)
		e.line += line - 1
		e.name, e.cat, e.pid, e.tid = remap(ids, e.name), remap(ids, e.cat), remap(ids, e.pid), remap(ids, e.tid)
		e.id, e.bindID = remap(ids, e.id), remap(ids, e.bindID)
		if pe.rare >= 0 { // the fields a packed event has none of (see packs)
			e.badPh, e.argName, e.argLabels, e.argStep = remap(ids, e.badPh), remap(ids, e.argName), remap(ids, e.argLabels), remap(ids, e.argStep)
			for j := range e.counters {
				e.counters[j].key = ids[e.counters[j].key]
			}
		}
		if e.args != none {
			r := p.col.argsRefs[e.args]
			from := len(d.col.argsArena)
			d.col.argsArena = append(d.col.argsArena, p.col.argsArena[r.off:r.off+r.n]...)
			d.col.argsRefs = append(d.col.argsRefs, argsRef{off: int64(from), n: r.n})
			e.args = int32(len(d.col.argsRefs) - 1)
		}
		d.events++
		if err := d.col.add(d.file, e); err != nil {
			return err
		}
	}
	return nil
}

// remap gives the reader's id of the part's interned string id (none
// stays none).
func remap(ids []int32, id int32) int32 {
	if id == none {
		return none
	}
	return ids[id]
}
