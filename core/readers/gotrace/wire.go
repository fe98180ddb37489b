package gotrace

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"runtime"
	"sync"
)

// The decoder of the generational format (Go 1.22 and later). A trace is
// its header and a sequence of generations; a generation is a set of
// batches, each written by one M (an OS thread) and holding that M's
// events in time order, plus the generation's string table, stack table,
// frequency (timestamp units per second) and, from Go 1.25, a clock
// snapshot. Generations are independent: each is decoded on its own, on
// all cores, and delivered in order. The events of the event batches are
// decoded later, one at a time, by the merge (cursor.next): kept decoded,
// a generation's events would take ten times its bytes, and the merge,
// on one core, is slower than decoding them there.
//
// The decoder checks what the Go project's parser checks of a
// generation's structure (batch sizes, unknown event types, duplicate or
// missing table entries, a frequency); it does not order the events of
// different Ms, which the parser does with the sequence numbers of
// goroutines and Ps.
//
// What the parser adds to the decoded events is its merge of the Ms'
// streams, which decides the context of each event (the goroutine and P
// of its M) and moves a few events' times (see TestParserKeepsPerMOrder):
// merge.go does it as the parser does. The decoder refuses what it does
// not know (a version, an event type), and such traces are the parser's.

// rawBatch is a batch as read from the file: its header and its bytes.
type rawBatch struct {
	exp     uint8 // experiment, 0 for the ordinary batches
	gen     uint64
	m       uint64
	time    uint64
	data    []byte
	offset  int64 // of the batch's header in the (decompressed) trace
	endMark bool  // Go 1.26's end-of-generation mark, no data
}

// rawGeneration is the batches of one generation, in file order.
type rawGeneration struct {
	gen     uint64
	batches []rawBatch
	offset  int64 // of its first batch
}

// wireReader splits a trace, after its header, into generations.
type wireReader struct {
	r     *bufio.Reader
	ver   int
	off   int64     // bytes consumed, header included
	spill *rawBatch // before Go 1.26: the first batch of the next generation
	done  bool
	gens  int   // generations returned
	err   error // before Go 1.26: the fault after a generation cut short, for the next call
}

func newWireReader(r *bufio.Reader, ver int) *wireReader {
	return &wireReader{r: r, ver: ver, off: headerLen}
}

// ReadByte reads a byte of the trace, counting it.
func (w *wireReader) ReadByte() (byte, error) {
	c, err := w.r.ReadByte()
	if err == nil {
		w.off++
	}
	return c, err
}

// batch reads the next batch; io.EOF at the clean end of the trace. Its
// errors are worded as the Go project's parser words them, so that the
// notes of a trace cut short read the same whichever reads it.
func (w *wireReader) batch() (rawBatch, error) {
	start := w.off
	c, err := w.ReadByte()
	if err != nil {
		return rawBatch{}, err // io.EOF: the end, between batches
	}
	b := rawBatch{offset: start}
	switch c {
	case evEndOfGeneration:
		if w.ver < 26 {
			return b, fmt.Errorf("byte %d: an end of generation in a trace of Go 1.%d", start, w.ver)
		}
		b.endMark = true
		return b, nil
	case evEventBatch:
	case evExperimentalBatch:
		if w.ver < 23 {
			return b, fmt.Errorf("byte %d: an experimental batch in a trace of Go 1.%d", start, w.ver)
		}
		e, err := w.ReadByte()
		if err != nil {
			// The parser returns the reader's io.EOF as it is: the trace
			// ends there as it ends between batches.
			return rawBatch{}, err
		}
		b.exp = e
	default:
		return b, fmt.Errorf("expected batch event, got event %d", c)
	}
	for _, f := range []struct {
		v    *uint64
		what string
	}{{&b.gen, "gen"}, {&b.m, "M ID"}, {&b.time, "timestamp"}} {
		if *f.v, err = binary.ReadUvarint(w); err != nil {
			return b, fmt.Errorf("error reading batch %s: %w", f.what, err)
		}
	}
	size, err := binary.ReadUvarint(w)
	if err != nil {
		return b, fmt.Errorf("error reading batch size: %w", err)
	}
	if size > maxBatchSize {
		return b, fmt.Errorf("invalid batch size %d, maximum is %d", size, maxBatchSize)
	}
	b.data = make([]byte, size)
	n, err := io.ReadFull(w.r, b.data)
	w.off += int64(n)
	if err != nil {
		return b, fmt.Errorf("failed to read full batch: read %d but wanted %d", n, size)
	}
	if c == evEventBatch && w.ver >= 26 && len(b.data) > 0 && b.data[0] == evEndOfGeneration {
		// The parser tells the end of a generation by the first byte of
		// a batch's data (batch.isEndOfGeneration), and its end mark is
		// read as a batch of that byte alone: an event batch whose data
		// starts with it ends the generation there too, its data
		// unread.
		b.endMark = true
	}
	return b, nil
}

// next returns the next generation, io.EOF after the last. Before Go
// 1.26 a generation ends where a batch of the next one starts; from Go
// 1.26 at its end-of-generation mark.
func (w *wireReader) next() (*rawGeneration, error) {
	if w.err != nil {
		return nil, w.err
	}
	if w.done {
		return nil, io.EOF
	}
	g := &rawGeneration{offset: w.off}
	if w.spill != nil {
		g.gen, g.offset = w.spill.gen, w.spill.offset
		g.batches = append(g.batches, *w.spill)
		w.spill = nil
	}
	for {
		b, err := w.batch()
		if err == io.EOF {
			w.done = true
			if len(g.batches) == 0 {
				if w.ver < 26 && w.gens == 0 {
					// Before Go 1.26 the parser reads a generation
					// before it knows there is none, and finds no
					// frequency in it.
					return nil, errors.New("no frequency event found")
				}
				return nil, io.EOF
			}
			if w.ver >= 26 {
				// The parser ends cleanly at a generation cut short
				// that holds no event batch (its tables alone).
				err := io.EOF
				if holdsEvents(g, w.ver) {
					err = errors.New("incomplete generation found; trace likely truncated")
				}
				return nil, firstFault(g, w.ver, err)
			}
			w.gens++
			return g, nil
		}
		if err != nil {
			w.done = true
			if w.ver < 26 && len(g.batches) > 0 {
				// Before Go 1.26 the parser keeps the batches read
				// before the fault as a generation, and reports the
				// fault after it.
				w.err = err
				w.gens++
				return g, nil
			}
			return nil, firstFault(g, w.ver, err)
		}
		if b.endMark {
			if len(g.batches) == 0 {
				return nil, fmt.Errorf("byte %d: an end of generation without a generation", b.offset)
			}
			w.gens++
			return g, nil
		}
		if b.gen == 0 {
			w.done = true
			return nil, firstFault(g, w.ver, fmt.Errorf("invalid generation number %d", b.gen))
		}
		if len(g.batches) == 0 {
			g.gen = b.gen
		}
		if b.gen != g.gen {
			w.done = true
			if w.ver < 26 && b.gen == g.gen+1 {
				// The first batch of the next generation.
				w.spill, w.done = &b, false
				w.gens++
				return g, nil
			}
			if w.ver < 26 {
				return nil, firstFault(g, w.ver, errors.New("generations out of order"))
			}
			return nil, firstFault(g, w.ver, errors.New("broken trace: missing end-of-generation event, or generations are interleaved"))
		}
		g.batches = append(g.batches, b)
	}
}

// wireEvent is a timed event of a batch.
type wireEvent struct {
	typ  uint8
	time uint64    // timestamp units: the batch's time plus the deltas so far
	args [4]uint64 // the arguments after the time delta
}

// wireFrame is a frame of a stack: a PC, its function and file (string
// IDs) and line.
type wireFrame struct {
	pc, fn, file, line uint64
}

type wireString struct {
	id uint64
	s  string
}

type wireStack struct {
	id  uint64
	pcs []uint64
}

// Kinds of batches.
const (
	batchEvents = iota
	batchStrings
	batchStacks
	batchSync // the frequency and, from Go 1.25, the clock snapshot
	batchCPUSamples
	batchExperimental
)

// wireBatch is a decoded batch.
type wireBatch struct {
	kind    int
	exp     uint8
	m, time uint64
	size    int
	offset  int64        // of the batch's header in the (decompressed) trace
	events  []wireEvent  // the sync batch's events and the CPU samples (typ, then time and args as written)
	strings []wireString // the strings batch's entries, in order
	stacks  []wireStack  // the stacks batch's entries, in order
	data    []byte       // an event batch's or an experimental batch's bytes
}

// wireGeneration is a decoded generation.
type wireGeneration struct {
	gen      uint64
	freq     uint64 // timestamp units per second
	snapshot bool   // a clock snapshot was found
	batches  []wireBatch
	strings  map[uint64]string
	stacks   map[uint64][]uint64
	pcs      map[uint64]wireFrame // the first frame seen of each PC, as the parser keeps it
	ver      int                  // the format's Go version (1.ver)

	// The tables again, indexed by ID, when their IDs are dense (densify).
	denseStrings []string
	hasStrings   []bool
	denseStacks  [][]uint64
	hasStacks    []bool
}

// firstFault returns the fault the parser reports where the reading of
// generation g stops at err: the parser decodes each batch as it reads
// it, so that a fault of a batch read before err comes first, and a
// table cut where a number should start ends the trace cleanly (io.EOF;
// see errTableEnd).
func firstFault(g *rawGeneration, ver int, err error) error {
	if len(g.batches) == 0 {
		return err
	}
	if _, derr := decodeSafely(g, ver, decodeBatches); derr != nil {
		if errors.Is(derr, errTableEnd) {
			return io.EOF
		}
		return derr
	}
	return err
}

// errTableEnd is the fault of a table batch (strings, stacks, CPU
// samples, frequency and clock) that ends where a number of a record
// should start. The parser reads such numbers with binary.ReadUvarint,
// which then returns io.EOF, and takes that for the end of the trace: it
// ends cleanly before the generation, as if it were not there.
var errTableEnd = errors.New("a table ends where a number should start")

// holdsEvents reports whether g has a batch of events (or one the parser
// takes for one: every batch that is not of a table or experimental).
func holdsEvents(g *rawGeneration, ver int) bool {
	for i := range g.batches {
		b := &g.batches[i]
		if b.exp == 0 && batchKind(b.data, ver) == batchEvents {
			return true
		}
	}
	return false
}

// batchKind is the kind of a batch that is not experimental, by its
// bytes.
func batchKind(data []byte, ver int) int {
	switch {
	case len(data) > 0 && data[0] == evStrings:
		return batchStrings
	case len(data) > 0 && data[0] == evStacks:
		return batchStacks
	case len(data) > 0 && data[0] == evCPUSamples:
		return batchCPUSamples
	case len(data) > 0 && (data[0] == evFrequency && ver < 25 || data[0] == evSync && ver >= 25):
		return batchSync
	}
	return batchEvents
}

// decodeGeneration decodes the batches of g for the format of Go 1.ver.
func decodeGeneration(g *rawGeneration, ver int) (*wireGeneration, error) {
	d, err := decodeBatches(g, ver)
	if err != nil {
		return nil, err
	}
	if d.freq == 0 {
		return nil, errors.New("no frequency event found")
	}
	if ver >= 25 && !d.snapshot {
		return nil, errors.New("no clock snapshot event found")
	}
	for id, pcs := range d.stacks {
		for _, pc := range pcs {
			f, ok := d.pcs[pc]
			if !ok {
				return nil, fmt.Errorf("the generation at byte %d: stack %d has an unknown PC %x", g.offset, id, pc)
			}
			if !d.hasString(f.fn) || !d.hasString(f.file) {
				return nil, fmt.Errorf("the generation at byte %d: stack %d names a string that does not exist", g.offset, id)
			}
		}
	}
	d.densify()
	return d, nil
}

// decodeBatches decodes each batch of g for the format of Go 1.ver, as
// the parser does while it reads them, before it checks the generation
// as a whole.
func decodeBatches(g *rawGeneration, ver int) (*wireGeneration, error) {
	d := &wireGeneration{
		gen:     g.gen,
		ver:     ver,
		batches: make([]wireBatch, 0, len(g.batches)),
		strings: map[uint64]string{},
		stacks:  map[uint64][]uint64{},
		pcs:     map[uint64]wireFrame{},
	}
	for i := range g.batches {
		rb := &g.batches[i]
		wb := wireBatch{exp: rb.exp, m: rb.m, time: rb.time, size: len(rb.data), offset: rb.offset}
		var err error
		kind := batchExperimental
		if rb.exp == 0 {
			kind = batchKind(rb.data, ver)
		}
		switch kind {
		case batchExperimental:
			wb.kind, wb.data = batchExperimental, rb.data
		case batchStrings:
			wb.kind = batchStrings
			wb.strings, err = d.decodeStrings(rb.data[1:])
		case batchStacks:
			wb.kind = batchStacks
			wb.stacks, err = d.decodeStacks(rb.data[1:])
		case batchCPUSamples:
			wb.kind = batchCPUSamples
			wb.events, err = decodePlain(rb.data[1:], evCPUSample)
		case batchSync:
			wb.kind = batchSync
			err = d.decodeSync(&wb, rb.data, ver)
		default:
			// Decoded by the merge, which reports a fault when it
			// reaches it, as the parser does: the events before it are
			// delivered first.
			wb.kind, wb.data = batchEvents, rb.data
		}
		if err != nil {
			return nil, fmt.Errorf("in the batch at byte %d (generation %d, M %d): %w", rb.offset, rb.gen, int64(rb.m), err)
		}
		d.batches = append(d.batches, wb)
	}
	return d, nil
}

// densify copies the string and stack tables into slices indexed by ID,
// for the merge's lookups (one or more per event), when their IDs are
// dense, as the runtime writes them (1, 2, 3...); a table of scattered
// IDs stays a map only.
func (d *wireGeneration) densify() {
	dense := func(n int, ids func(yield func(uint64) bool)) int {
		hi := uint64(0)
		for id := range ids {
			hi = max(hi, id)
		}
		if hi > 4*uint64(n)+1024 {
			return 0
		}
		return int(hi) + 1
	}
	if n := dense(len(d.strings), maps.Keys(d.strings)); n > 0 {
		d.denseStrings, d.hasStrings = make([]string, n), make([]bool, n)
		for id, s := range d.strings {
			d.denseStrings[id], d.hasStrings[id] = s, true
		}
	}
	if n := dense(len(d.stacks), maps.Keys(d.stacks)); n > 0 {
		d.denseStacks, d.hasStacks = make([][]uint64, n), make([]bool, n)
		for id, pcs := range d.stacks {
			d.denseStacks[id], d.hasStacks[id] = pcs, true
		}
	}
}

// str returns the string of ID id, and whether the table has it (0, the
// empty string, is not in the table).
func (d *wireGeneration) str(id uint64) (string, bool) {
	if id < uint64(len(d.hasStrings)) {
		return d.denseStrings[id], d.hasStrings[id]
	}
	if d.hasStrings != nil {
		return "", false
	}
	s, ok := d.strings[id]
	return s, ok
}

// stack returns the PCs of stack id, and whether the table has it.
func (d *wireGeneration) stack(id uint64) ([]uint64, bool) {
	if id < uint64(len(d.hasStacks)) {
		return d.denseStacks[id], d.hasStacks[id]
	}
	if d.hasStacks != nil {
		return nil, false
	}
	pcs, ok := d.stacks[id]
	return pcs, ok
}

// hasString reports whether id is in the string table; 0 is the empty
// string.
func (d *wireGeneration) hasString(id uint64) bool {
	_, ok := d.str(id)
	return ok || id == 0
}

// uvarint decodes an unsigned varint at the start of b; n <= 0 if b
// holds none (cut or longer than 64 bits).
func uvarint(b []byte) (uint64, int) {
	if len(b) > 0 && b[0] < 0x80 {
		return uint64(b[0]), 1
	}
	return binary.Uvarint(b)
}

var errVarint = errors.New("a number is cut or longer than 64 bits")

// decodeEvent decodes the timed event of an event batch at b[pos:] (a
// type byte and its arguments, the first a delta from the previous
// event's time) into e, e.time the delta, for the format whose types are
// the first nTypes (Go 1.ver's), and returns the position after it.
func decodeEvent(b []byte, pos, ver, nTypes int, e *wireEvent) (int, error) {
	typ := b[pos]
	if int(typ) >= nTypes || !wireSpecs[typ].timed {
		return pos, fmt.Errorf("offset %d: event type %d is not an event of Go 1.%d's format", pos, typ, ver)
	}
	pos++
	dt, n := uvarint(b[pos:])
	if n <= 0 {
		return pos, fmt.Errorf("offset %d: %w", pos, errVarint)
	}
	pos += n
	e.typ, e.time = typ, dt
	for i := range len(wireSpecs[typ].args) - 1 {
		v, n := uvarint(b[pos:])
		if n <= 0 {
			return pos, fmt.Errorf("offset %d: %w", pos, errVarint)
		}
		pos += n
		e.args[i] = v
	}
	return pos, nil
}

// decodePlain decodes a batch of events of type typ without a time
// delta, each with its arguments (CPU samples: five).
func decodePlain(b []byte, typ byte) ([]wireEvent, error) {
	var evs []wireEvent
	nArgs := len(wireSpecs[typ].args)
	for pos := 0; pos < len(b); {
		if b[pos] != typ {
			return nil, fmt.Errorf("offset %d: expected event type %d, found %d", pos, typ, b[pos])
		}
		pos++
		ev := wireEvent{typ: typ}
		for i := range nArgs {
			v, n := uvarint(b[pos:])
			if n <= 0 {
				return nil, fmt.Errorf("offset %d: %w", pos, cutAt(b, pos))
			}
			pos += n
			if i == 0 {
				ev.time = v
			} else {
				ev.args[i-1] = v
			}
		}
		evs = append(evs, ev)
	}
	return evs, nil
}

// decodeSync reads the frequency and the clock snapshot.
func (d *wireGeneration) decodeSync(wb *wireBatch, b []byte, ver int) error {
	pos := 0
	if ver >= 25 {
		pos++ // the Sync byte
	}
	t := wb.time
	for pos < len(b) {
		typ := b[pos]
		pos++
		ev := wireEvent{typ: typ}
		switch {
		case typ == evFrequency:
			if d.freq != 0 {
				return errors.New("a second frequency")
			}
			f, n := uvarint(b[pos:])
			if n <= 0 {
				return fmt.Errorf("offset %d: %w", pos, cutAt(b, pos))
			}
			pos += n
			if f == 0 {
				return errors.New("a frequency of 0")
			}
			d.freq, ev.args[0] = f, f
		case typ == evClockSnapshot && ver >= 25:
			if d.snapshot {
				return errors.New("a second clock snapshot")
			}
			d.snapshot = true
			var a [4]uint64
			for i := range a {
				v, n := uvarint(b[pos:])
				if n <= 0 {
					return fmt.Errorf("offset %d: %w", pos, cutAt(b, pos))
				}
				pos += n
				a[i] = v
			}
			t += a[0]
			ev.time = t
			copy(ev.args[:], a[1:])
		default:
			return fmt.Errorf("offset %d: expected a frequency or a clock snapshot, found event type %d", pos-1, typ)
		}
		wb.events = append(wb.events, ev)
	}
	return nil
}

// cutAt is the fault of a number of a table batch b that cannot be read
// at pos: errTableEnd if b ends there, where the number should start.
func cutAt(b []byte, pos int) error {
	if pos == len(b) {
		return errTableEnd
	}
	return errVarint
}

// headVarints is tableVarints for the numbers that head a record of a
// string or stack table, which the parser reads as decodePlain's (see
// errTableEnd); it reads the frames' otherwise.
func headVarints(b []byte, pos int, dst []uint64) (int, error) {
	for i := range dst {
		v, n := uvarint(b[pos:])
		if n <= 0 {
			return pos, fmt.Errorf("offset %d: %w", pos+1, cutAt(b, pos))
		}
		pos += n
		dst[i] = v
	}
	return pos, nil
}

// tableVarints reads len(dst) numbers of a string or stack table record
// from b at pos into dst and returns the position after them; an error
// names the 1-based offset of the number that is cut.
func tableVarints(b []byte, pos int, dst []uint64) (int, error) {
	for i := range dst {
		v, n := uvarint(b[pos:])
		if n <= 0 {
			return pos, fmt.Errorf("offset %d: %w", pos+1, errVarint)
		}
		pos += n
		dst[i] = v
	}
	return pos, nil
}

func (d *wireGeneration) decodeStrings(b []byte) ([]wireString, error) {
	var out []wireString
	for pos := 0; pos < len(b); {
		if b[pos] != evString {
			return nil, fmt.Errorf("offset %d: expected a string, found event type %d", pos+1, b[pos])
		}
		var head [2]uint64
		var err error
		if pos, err = headVarints(b, pos+1, head[:]); err != nil {
			return nil, err
		}
		id, size := head[0], head[1]
		if size > maxStringSize {
			return nil, fmt.Errorf("string %d has %d bytes, more than the %d a string holds", id, size, maxStringSize)
		}
		if uint64(len(b)-pos) < size {
			return nil, fmt.Errorf("string %d is cut: %d of its %d bytes are in the batch", id, len(b)-pos, size)
		}
		s := string(b[pos : pos+int(size)])
		pos += int(size)
		if d.hasString(id) {
			return nil, fmt.Errorf("string %d is defined twice", id)
		}
		d.strings[id] = s
		out = append(out, wireString{id, s})
	}
	return out, nil
}

func (d *wireGeneration) decodeStacks(b []byte) ([]wireStack, error) {
	var out []wireStack
	for pos := 0; pos < len(b); {
		if b[pos] != evStack {
			return nil, fmt.Errorf("offset %d: expected a stack, found event type %d", pos+1, b[pos])
		}
		var head [2]uint64
		var err error
		if pos, err = headVarints(b, pos+1, head[:]); err != nil {
			return nil, err
		}
		id, nFrames := head[0], head[1]
		if nFrames > maxFramesPerStack {
			return nil, fmt.Errorf("stack %d has %d frames, more than the %d a stack holds", id, nFrames, maxFramesPerStack)
		}
		pcs := make([]uint64, 0, nFrames)
		for range nFrames {
			var f [4]uint64
			if pos, err = tableVarints(b, pos, f[:]); err != nil {
				return nil, err
			}
			pcs = append(pcs, f[0])
			if _, ok := d.pcs[f[0]]; !ok {
				d.pcs[f[0]] = wireFrame{pc: f[0], fn: f[1], file: f[2], line: f[3]}
			}
		}
		if _, dup := d.stacks[id]; dup || id == 0 {
			return nil, fmt.Errorf("stack %d is defined twice", id)
		}
		d.stacks[id] = pcs
		out = append(out, wireStack{id, pcs})
	}
	return out, nil
}

// decodeWire reads the generations of a trace of Go 1.ver from r (after
// the header), decodes them on up to workers goroutines (all cores if 0)
// and hands each to each, in order. It stops at the first error, of the
// input or of each; generations before a broken one have been handed.
func decodeWire(r *bufio.Reader, ver, workers int, each func(*wireGeneration) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	type result struct {
		g   *wireGeneration
		err error
	}
	type job struct {
		raw *rawGeneration
		out chan result
	}
	jobs := make(chan job)
	order := make(chan chan result, workers)
	// A generation takes a token before it is read and gives it back
	// once handed over: at most workers+1 generations (a few MB of
	// input each, and their tables) are in memory at once.
	tokens := make(chan struct{}, workers+1)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				g, err := decodeGenerationSafely(j.raw, ver)
				j.out <- result{g, err}
			}
		}()
	}
	// However the loop below ends (an error, or a panic of each that the
	// reader recovers), the reader and the workers are let go.
	stop := make(chan struct{})
	defer wg.Wait()
	defer func() {
		close(stop)
		for range order { // let the reader finish
		}
	}()
	wr := newWireReader(r, ver)
	go func() {
		defer close(order)
		defer close(jobs)
		for {
			select {
			case tokens <- struct{}{}:
			case <-stop:
				return
			}
			raw, err := wr.next()
			out := make(chan result, 1)
			if err != nil {
				if err != io.EOF {
					out <- result{err: err}
					select {
					case order <- out:
					case <-stop:
					}
				}
				return
			}
			select {
			case order <- out:
			case <-stop:
				return
			}
			select {
			case jobs <- job{raw, out}:
			case <-stop:
				return
			}
		}
	}()
	var err error
	for out := range order {
		res := <-out
		if errors.Is(res.err, errTableEnd) {
			<-tokens
			break // the end of the trace, for the parser
		}
		if res.err == nil {
			res.err = each(res.g)
		}
		<-tokens
		if res.err != nil {
			err = res.err
			break
		}
	}
	return err
}

// decodeGenerationSafely is decodeGeneration on a worker goroutine, where
// no recovery of the reader's reaches: a panic on malformed input is the
// generation's error (as the parser path's panics are), not the end of
// the process.
func decodeGenerationSafely(raw *rawGeneration, ver int) (*wireGeneration, error) {
	return decodeSafely(raw, ver, decodeGen)
}

// decodeSafely is decode, a panic on malformed input made its error.
func decodeSafely(raw *rawGeneration, ver int, decode func(*rawGeneration, int) (*wireGeneration, error)) (g *wireGeneration, err error) {
	defer func() {
		if !recoverPanics {
			return
		}
		if p := recover(); p != nil {
			g, err = nil, fmt.Errorf("the decoder failed on a malformed generation: %v", p)
		}
	}()
	return decode(raw, ver)
}

// decodeGen is decodeGeneration; a variable so that tests can make it fail.
var decodeGen = decodeGeneration
