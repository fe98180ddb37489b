package perfetto

import (
	"bufio"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// A pass over the file runs on all cores: one goroutine reads the input
// and splits it into packets, in batches; workers decode what each packet
// says by itself (its fields, its track event), a batch each; the
// caller's goroutine applies the batches in file order to the state that
// depends on what came before (sequences' interned names and clocks, open
// slices, the sink). Only the caller's goroutine calls the sink, Progress
// and the notes, so that a pass delivers the same calls, in the same
// order, as a read on one core.

const (
	// batchPackets bounds a batch: cancellation is looked at once per
	// batch, and the decoded packets of the batches in flight (about
	// 600 bytes each) are most of the read's memory.
	batchPackets = 1024
	// chunkBytes is the size of the buffers the input is read into, in
	// large reads; chunks is how many circulate. A chunk holds the
	// packets of several batches, and returns to the reader once they
	// are all applied.
	chunkBytes = 1 << 20
	chunks     = 4
)

// chunk is a buffer of input and the count of its users: the reader
// while it fills it, and the batches not yet applied.
type chunk struct {
	buf   []byte
	users atomic.Int32
}

// release drops a user of c, giving c back to free after the last.
func (c *chunk) release(free chan *chunk) {
	if c.users.Add(-1) == 0 {
		free <- c
	}
}

// packetRef locates a packet in its batch's buffer and in the input.
type packetRef struct {
	start, end int
	off        int64
}

// batch is packets read in a row, what their decoding made of them, and
// how the reading ended after them, if it did.
type batch[T any] struct {
	chunk *chunk // the packets' bytes
	buf   []byte // chunk.buf as the packets were read
	refs  []packetRef
	out   []T
	done  int64 // input bytes read when the batch was closed
	// end is what stopped the reading after these packets: io.EOF at
	// a clean end, or a decoding error (located by the pass).
	end      error
	others   int64 // top-level fields other than packets, in the whole input so far
	panicked any   // a panic of a worker or the reader, raised again by the caller
	decoded  chan struct{}
}

func (b *batch[T]) reset() {
	b.chunk, b.buf, b.refs = nil, nil, b.refs[:0]
	b.end, b.panicked = nil, nil
}

// decodeFunc makes what it can of a packet on its own, into out, which
// keeps what it held for an earlier packet, so that its slices may be
// reused. Each worker has its own (newDecode makes them).
type decodeFunc[T any] func(pkt []byte, off int64, out *T)

// walk reads the packets of the file at path: the workers decode them
// with the functions newDecode makes, then apply takes each packet with
// what was made of it, in file order, on the caller's goroutine. pass (0
// or 1) places the progress reports: each pass reads the whole file, so
// the total reported is twice its size. It returns where the input was
// cut, if it ended inside a packet after whole ones (nil otherwise).
//
// An input that fits in one chunk, as most do, is decoded on the
// caller's goroutine alone: workers, batches and channels would cost it
// more than they save. Such an input is kept in whole, and the next pass
// walks it again instead of reading the file a second time.
func walk[T any](open func() (io.ReadCloser, error), path string, size int64, pass int, opt trace.ReadOptions, whole *held,
	newDecode func() decodeFunc[T], apply func(pkt []byte, off int64, in *T) error) (*cutPoint, error) {
	base, total := int64(pass)*size, 2*size
	if whole.data != nil {
		fr := &framer{buf: whole.data, rerr: io.EOF}
		return walkInline(fr, whole.done, path, base, total, pass, opt, newDecode(), apply)
	}
	f, err := open()
	if err != nil {
		return nil, failed(opt, err)
	}
	defer f.Close()
	cr := &ingest.Counter{R: f, Stop: opt.Canceled}
	in, release, err := ingest.Decompress(bufio.NewReaderSize(cr, 64<<10), path, ingest.DefaultMaxDecompressed)
	if err != nil {
		return nil, failed(opt, err)
	}
	defer release()
	fr := &framer{r: ingest.ReadToCut(in, cutNotes(opt, pass))}
	fr.fill(size)
	if fr.rerr != nil { // the whole input is in fr.buf
		cut, err := walkInline(fr, cr.N(), path, base, total, pass, opt, newDecode(), apply)
		if err == nil {
			// It ended at io.EOF: any other error of the reading
			// would have been the walk's.
			whole.data, whole.done = fr.buf, cr.N()
		}
		return cut, err
	}
	return walkParallel(fr, cr, path, base, total, pass, opt, newDecode, apply)
}

// cutNotes is where a pass notes a cut in compressed input: the first
// pass, that the second, which reads the same input, does not note it
// again.
func cutNotes(opt trace.ReadOptions, pass int) trace.ReadOptions {
	if pass > 0 {
		opt.Notes = nil
	}
	return opt
}

// held is an input read whole by a pass, and the count of the file's
// bytes read for it (the progress reported at its end).
type held struct {
	data []byte
	done int64
}

// failed is the error of an input that could not be opened: the
// cancellation, if the read was canceled, as a pass reports it first.
func failed(opt trace.ReadOptions, err error) error {
	if cerr := opt.Canceled(); cerr != nil {
		return cerr
	}
	return err
}

// cleanEnd reports a pass that read the whole input: the top-level
// fields other than packets it skipped (counted by the first pass only),
// and its last progress, done of total.
func cleanEnd(opt trace.ReadOptions, pass int, others, done, total int64) {
	if pass == 0 && others > 0 {
		opt.Skip("top-level fields of the trace other than packets", others)
	}
	if opt.Progress != nil {
		opt.Progress(done, total)
	}
}

// walkInline is walk for an input held whole in fr.buf, done bytes of
// the file: each packet decoded and applied in turn, cancellation looked
// at once per batchPackets packets, as walkParallel looks at it once per
// batch.
func walkInline[T any](fr *framer, done int64, path string, base, total int64, pass int, opt trace.ReadOptions,
	decode decodeFunc[T], apply func(pkt []byte, off int64, in *T) error) (*cutPoint, error) {
	var out T
	for n := 0; ; n++ {
		if n%batchPackets == 0 {
			if err := opt.Canceled(); err != nil {
				return nil, err
			}
		}
		pkt, off, err := fr.next(false)
		if err == io.EOF {
			cleanEnd(opt, pass, fr.others, base+done, total)
			return fr.cutAt, nil
		}
		if err != nil {
			return nil, located(path, err)
		}
		decode(pkt, off, &out)
		if err := apply(pkt, off, &out); err != nil {
			return nil, located(path, err)
		}
	}
}

// walkParallel is walk on all cores, for an input larger than a chunk;
// fr.buf holds its first chunk.
func walkParallel[T any](fr *framer, cr *ingest.Counter, path string, base, total int64, pass int, opt trace.ReadOptions,
	newDecode func() decodeFunc[T], apply func(pkt []byte, off int64, in *T) error) (*cutPoint, error) {
	workers := max(1, runtime.GOMAXPROCS(0))
	batches := workers + 2
	// order carries the batches in file order to the caller, work the
	// same batches to the workers, free those applied back to the reader.
	order := make(chan *batch[T], batches)
	work := make(chan *batch[T], batches)
	free := make(chan *batch[T], batches)
	for range batches {
		free <- &batch[T]{decoded: make(chan struct{}, 1)}
	}
	freeChunks := make(chan *chunk, chunks)
	for range chunks - 1 {
		freeChunks <- &chunk{}
	}
	first := &chunk{buf: fr.buf}
	first.users.Store(1)
	quit := make(chan struct{})
	var running sync.WaitGroup
	running.Go(func() {
		defer close(work)
		read(fr, cr, first, order, work, free, freeChunks, quit)
	})
	for range workers {
		decode := newDecode()
		running.Go(func() {
			for b := range work {
				decodeBatch(b, decode)
			}
		})
	}
	defer func() {
		close(quit)
		running.Wait()
	}()

	next := int64(progressEvery)
	for b := range order {
		<-b.decoded
		if b.panicked != nil {
			panic(b.panicked)
		}
		if err := opt.Canceled(); err != nil {
			return nil, err
		}
		for i, r := range b.refs {
			if err := apply(b.buf[r.start:r.end:r.end], r.off, &b.out[i]); err != nil {
				return nil, located(path, err)
			}
		}
		switch {
		case b.end == io.EOF:
			cleanEnd(opt, pass, b.others, base+b.done, total)
			// The reader set the cut before it sent its last batch.
			return fr.cutAt, nil
		case b.end != nil:
			return nil, located(path, b.end)
		}
		if opt.Progress != nil && b.done >= next {
			opt.Progress(base+b.done, total)
			next = b.done + progressEvery
		}
		b.chunk.release(freeChunks)
		free <- b
	}
	return nil, nil
}

// decodeBatch decodes the packets of b and says so on b.decoded; a panic
// is handed to the caller's goroutine, which raises it again.
func decodeBatch[T any](b *batch[T], decode decodeFunc[T]) {
	defer func() {
		if r := recover(); r != nil {
			b.panicked = r
		}
		b.decoded <- struct{}{}
	}()
	if len(b.out) < len(b.refs) {
		b.out = append(b.out, make([]T, len(b.refs)-len(b.out))...)
	}
	for i, r := range b.refs {
		decode(b.buf[r.start:r.end:r.end], r.off, &b.out[i])
	}
}

// read is the reading goroutine of walkParallel: it frames the input
// that fr reads, from the chunk c it holds already, fills the batches
// from free and hands them over on order and work, until the input ends
// or quit is closed.
func read[T any](fr *framer, cr *ingest.Counter, c *chunk,
	order, work, free chan *batch[T], freeChunks chan *chunk, quit chan struct{}) {
	var b *batch[T]
	send := func() bool {
		select {
		case order <- b:
		case <-quit:
			return false
		}
		select {
		case work <- b:
			return true
		case <-quit:
			return false
		}
	}
	take := func() bool {
		select {
		case b = <-free:
			b.reset()
			return true
		case <-quit:
			return false
		}
	}
	if !take() {
		return
	}
	defer func() {
		if r := recover(); r != nil { // raised again by the caller
			b.panicked = r
			b.decoded <- struct{}{}
			select {
			case order <- b:
			case <-quit:
			}
		}
	}()
	// c is the chunk being filled; the reader is one of its users.
	newChunk := func() bool {
		select {
		case next := <-freeChunks:
			if cap(next.buf) != chunkBytes { // new, or grown for a huge packet
				next.buf = make([]byte, 0, chunkBytes)
			}
			// The head of a packet that did not fit in the last chunk.
			next.buf = append(next.buf[:0], fr.buf[fr.pos:]...)
			next.users.Store(1)
			c.release(freeChunks)
			c, fr.buf, fr.pos = next, next.buf, 0
			return true
		case <-quit:
			return false
		}
	}
	for {
		b.chunk = c
		c.users.Add(1)
		more := false
		for len(b.refs) < batchPackets {
			pkt, off, err := fr.next(fr.pos > 0)
			if err == errMore {
				more = true
				break
			}
			if err != nil {
				b.end = err
				break
			}
			b.refs = append(b.refs, packetRef{start: fr.pos - len(pkt), end: fr.pos, off: off})
		}
		c.buf = fr.buf // grown, for a packet larger than a chunk
		b.buf, b.done, b.others = fr.buf, cr.N(), fr.others
		if !send() || b.end != nil || !take() || more && !newChunk() {
			return
		}
	}
}
