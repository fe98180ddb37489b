package paje

import (
	"bufio"
	"bytes"
	"io"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/macroscope-hpc/macroscope/core/ingest"
)

// The decoder reads in a pipeline: one goroutine cuts the input into
// chunks of whole lines, workers tokenize chunks in parallel (fields,
// event definitions, dates), and the decoder's goroutine simulates the
// records of each chunk in file order. Memory is bounded by the chunks in
// flight, whatever the size of the input.

// defaultChunk is the size chunks are cut at (a chunk holds at least one
// whole line, however long); chunksInFlight bounds the chunks read ahead.
const (
	defaultChunk   = 256 << 10
	chunksInFlight = 8
)

// chunk is a piece of the input made of whole lines, the last of which
// may lack its '\n' at the end of the input.
type chunk struct {
	buf   []byte // data and what is read beyond it
	data  []byte // the lines
	tab   *defTable
	recs  []record
	spans []span
	maps  bitmaps // data's spaces and odd bytes (scan.go)
	// stop is where the tokenizer stopped (len(data) if it did not):
	// stopLine lines come before it.
	stop     int
	stopLine int32
	last     bool  // the input ends with this chunk
	mapped   bool  // data is a slice of a mapped file
	end      int   // where the chunk ends in it
	readErr  error // the error that ended the input, if not io.EOF
	ready    chan struct{}
}

// decode reads r, named name in errors, decompressed if it is compressed.
func (d *decoder) decode(r io.Reader, name string) error {
	d.startFile(name, &ingest.Counter{R: r})
	limit := d.opt.MaxDecompressed
	if limit == 0 {
		limit = ingest.DefaultMaxDecompressed
	}
	// A buffer larger than the input costs its allocation and nothing
	// else: small inputs (many small files, or a fuzzer's) get a smaller one.
	size := 64 << 10
	if d.total > 0 && d.total < int64(size) {
		size = max(512, int(d.total)+1)
	}
	text, release, err := ingest.Decompress(bufio.NewReaderSize(d.input, size), name, limit)
	if err != nil {
		return err
	}
	defer release()
	compressedCut := ingest.ReadToCut(text, d.opt.ReadOptions)
	cut := &cutDetector{r: compressedCut}
	if d.serial {
		err = d.decodeLines(cut)
	} else {
		src := &streamSource{r: cut, weigh: d.opt.Hold}
		err = d.decodeText(src)
		src.unweigh()
	}
	if err != nil {
		return compressedCut.Explain(err)
	}
	if cut.cut() {
		d.opt.Incomplete("%s: the last line (%d) has no end of line: the file is cut", name, d.line)
	}
	return nil
}

// startFile sets the decoder to read the file named name, whose bytes
// read counts.
func (d *decoder) startFile(name string, read *ingest.Counter) {
	d.file, d.line = name, 0
	d.sim.file = name
	if d.input != nil {
		d.before += d.input.N()
	}
	d.input = read
}

// A source cuts the input into chunks of whole lines: a stream's are
// copied into the chunks' buffers, a mapped file's are slices of it
// (mapped.go).
type source interface {
	// next sets c to the next lines of the input: at least size bytes
	// of them, unless the input ends (c.last) or a line is longer.
	next(c *chunk, size int)
	// consumed says that the decoder is done with c's lines.
	consumed(c *chunk)
	// mapped tells whether the chunks are slices of a mapped file,
	// which a fault can stop (see mapped.go).
	mapped() bool
}

// streamSource cuts a stream, carrying the beginning of the line each
// chunk's end cuts on to the next.
type streamSource struct {
	r     io.Reader
	carry []byte
	// weigh, if set, is told of the buffers made for lines longer than a
	// chunk (trace.ReadOptions.Hold); weighed is what it was told, given
	// back by unweigh once the read ends.
	weigh   func(int64) error
	weighed int64
}

func (s *streamSource) next(c *chunk, size int) {
	var grown int64
	s.carry, grown = c.fill(s.r, s.carry, size, s.weigh)
	s.weighed += grown
}

// unweigh tells weigh that the long lines' buffers are given back.
func (s *streamSource) unweigh() {
	if s.weigh != nil && s.weighed != 0 {
		s.weigh(-s.weighed)
		s.weighed = 0
	}
}

func (s *streamSource) consumed(*chunk) {}
func (s *streamSource) mapped() bool    { return false }

// decodeText reads the text of a file through the pipeline.
func (d *decoder) decodeText(src source) error {
	size := d.chunkSize
	if size <= 0 {
		size = defaultChunk
		// A chunk's records and fields are allocated for its size: small
		// inputs get small chunks (compressed ones may span several).
		if d.total > 0 && d.total < int64(size) {
			size = max(4<<10, int(d.total)+1)
		}
	}
	// Most traces define their events in their first lines: the first
	// chunk is read here, before the tokenizers start, so that they know
	// the definitions. (When they do not, the chunks tokenized without
	// them are read line by line: slower, and as right.)
	first := getChunk(size)
	defer putChunk(first)
	src.next(first, size)
	first.tab = d.tables.Load()
	first.tokenize()
	if err := d.consume(first); err != nil {
		return err
	}
	src.consumed(first)
	if first.last {
		return d.endOfInput()
	}

	// Enough chunks for every core to tokenize one while one is read and
	// one simulated; more would only be memory written for the first time
	// (page faults, a tenth of the time of a read of 100 MB on 2 cores).
	inFlight := min(chunksInFlight, runtime.GOMAXPROCS(0)+2)
	chunks := make(chan *chunk, inFlight)
	free := make(chan *chunk, inFlight)
	work := make(chan *chunk, inFlight)
	quit := make(chan struct{})
	free <- first
	for range inFlight - 1 {
		c := getChunk(size)
		defer putChunk(c)
		free <- c
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	defer close(quit)

	wg.Add(1)
	go func() { // the cutter
		defer wg.Done()
		defer close(work)
		if src.mapped() {
			defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		}
		for {
			var c *chunk
			select {
			case c = <-free:
			case <-quit:
				return
			}
			src.next(c, size)
			work <- c
			chunks <- c
			if c.last {
				return
			}
		}
	}()
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() { // a tokenizer
			defer wg.Done()
			if src.mapped() {
				defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
			}
			for c := range work {
				c.tab = d.tables.Load()
				c.tokenize()
				c.ready <- struct{}{}
			}
		}()
	}
	for c := range chunks {
		<-c.ready
		if err := d.consume(c); err != nil {
			return err
		}
		src.consumed(c)
		if c.last {
			break
		}
		free <- c
	}
	return d.endOfInput()
}

// chunkPool keeps chunks, and the memory their buffers and records
// reached, from one read to the next.
var chunkPool sync.Pool

// getChunk returns a chunk ready for lines of size bytes: records and
// fields are allocated for the common line of about twenty bytes.
func getChunk(size int) *chunk {
	c, _ := chunkPool.Get().(*chunk)
	if c == nil {
		c = &chunk{ready: make(chan struct{}, 1)}
	}
	if cap(c.recs) < size/16 {
		c.recs = make([]record, 0, size/16)
	}
	if cap(c.spans) < size/4 {
		c.spans = make([]span, 0, size/4)
	}
	c.last, c.readErr, c.mapped, c.end = false, nil, false, 0
	select {
	case <-c.ready: // the signal of a chunk tokenized but never consumed
	default:
	}
	return c
}

// putChunk gives c back to the pool, which keeps no input alive (a
// mapped file's chunks are slices of it).
func putChunk(c *chunk) {
	c.data, c.tab = nil, nil
	chunkPool.Put(c)
}

// fill reads the next chunk: carry (the beginning of a line read with the
// previous chunk) and what follows, up to the last '\n' once size bytes
// are there. It returns what follows that '\n', to carry on, and the
// bytes of the buffer it made for a line longer than a chunk, which it
// told weigh (if not nil) of before making it: past the read's memory
// budget, weigh's error ends the input instead.
func (c *chunk) fill(r io.Reader, carry []byte, size int, weigh func(int64) error) (rest []byte, weighed int64) {
	if cap(c.buf) < size+len(carry) {
		c.buf = make([]byte, 0, size+len(carry))
	}
	buf := append(c.buf[:0], carry...)
	want := size // read at least this much before looking for a '\n'
	scanned := 0 // no '\n' in buf[:scanned]
	for {
		for len(buf) < want {
			n, err := r.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if err != nil {
				c.buf, c.data, c.last = buf, buf, true
				if err != io.EOF {
					// The input broke (a truncated or oversized compressed
					// file): its last line may be cut, so it is left out
					// and the error reported after the whole lines.
					c.readErr = err
					c.data = buf[:bytes.LastIndexByte(buf, '\n')+1]
				}
				return carry[:0], weighed
			}
		}
		if i := bytes.LastIndexByte(buf[scanned:], '\n'); i >= 0 {
			cut := scanned + i + 1
			carry = append(carry[:0], buf[cut:]...)
			c.buf, c.data, c.last = buf, buf[:cut], false
			return carry, weighed
		}
		// A line longer than what was read: read on, in a bigger buffer
		// once this one is full.
		scanned = len(buf)
		if len(buf) > maxLine {
			c.buf, c.data, c.last, c.readErr = buf, buf[:0], true, errLongLine
			return carry[:0], weighed
		}
		if len(buf) == cap(buf) {
			// Doubling, but never past one byte more than maxLine: a line
			// of exactly maxLine bytes would otherwise take a buffer of
			// twice that (and the old one alive during the copy).
			n := min(2*cap(buf), maxLine+1)
			if weigh != nil {
				// The old buffer is alive during the copy: both weigh.
				if err := weigh(int64(n)); err != nil {
					weigh(-int64(n))
					c.buf, c.data, c.last, c.readErr = buf, buf[:0], true, outgrew{err}
					return carry[:0], weighed
				}
				weigh(-weighed)
				weighed = int64(n)
			}
			bigger := make([]byte, len(buf), n)
			copy(bigger, buf)
			buf = bigger
		}
		want = len(buf) + 1
	}
}

// consume simulates the records of a chunk, then reads line by line what
// the tokenizer left. A chunk tokenized with definitions that have changed
// since is read line by line. Once the line-by-line reading has changed
// the definitions (the header, in the first chunk), the rest of the chunk
// is tokenized again with them, as soon as an event line follows: the
// whole of a small file would otherwise be read line by line.
func (d *decoder) consume(c *chunk) error {
	readErr := c.readErr
	var again *chunk // the rest of c, tokenized again
	defer func() {
		if again != nil {
			putChunk(again)
		}
	}()
	for {
		stop, stopLine := c.stop, c.stopLine
		if c.tab != d.tables.Load() {
			stop, stopLine = 0, 0
		}
		if stop > 0 {
			base, recs := d.line, c.recs // in registers, not read again from c after each call
			for i := range recs {
				r := &recs[i]
				var fields []span
				if r.keyed() {
					if d.sim.keyedState(r.def, r.at, r) {
						continue
					}
					var ok bool
					d.fields, _, ok = plainFields(c.data, int(r.first), d.fields[:0])
					if !ok || len(d.fields) != len(r.def.roles)+1 {
						d.line = base + int(r.line)
						return d.failf("a line tokenized as plain does not split again")
					}
					r.def.hashKeys(c.data, d.fields[1:])
					fields = d.fields
				} else {
					fields = c.spans[r.first : int(r.first)+len(r.def.roles)+1]
				}
				if err := d.sim.eventAt(r.def, c.data, fields, base+int(r.line), r.at); err != nil {
					d.line = base + int(r.line)
					return err
				}
			}
			d.line = base + int(stopLine)
			d.done += int64(stop)
			if err := d.report(); err != nil {
				return err
			}
		}
		rest := c.data[stop:]
		for len(rest) > 0 {
			line := rest
			if i := bytes.IndexByte(rest, '\n'); i >= 0 {
				line = rest[:i+1]
			}
			rest = rest[len(line):]
			if err := d.lineRead(line); err != nil {
				return err
			}
			if tab := d.tables.Load(); tab != c.tab && !tab.open && eventFollows(rest) {
				break
			}
		}
		if len(rest) == 0 {
			break
		}
		if again == nil {
			again = getChunk(len(rest))
		}
		again.data, again.tab, again.mapped = rest, d.tables.Load(), c.mapped
		again.tokenize()
		c = again
	}
	if readErr != nil {
		if o, ok := readErr.(outgrew); ok {
			// The budget's error is placed at the line being gathered,
			// which the line-by-line read names too.
			d.line++
			return d.readFailure(o.err)
		}
		return d.readFailure(readErr)
	}
	return nil
}

// outgrew is the error of the read's budget (trace.ReadOptions.Hold)
// refusing the buffer of a long line that chunk.fill was gathering.
type outgrew struct{ err error }

func (o outgrew) Error() string { return o.err.Error() }
func (o outgrew) Unwrap() error { return o.err }

// eventFollows tells whether the next line of text is not a header line
// (%...): the tokenizer may take it.
func eventFollows(text []byte) bool {
	i := 0
	for i < len(text) && blank[text[i]] {
		i++
	}
	return i < len(text) && text[i] != '%'
}
