package perfetto

import (
	"bufio"
	"io"

	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// A pass over the file runs on two cores: one goroutine reads the packets
// and decodes what each says by itself (its fields, its track event), in
// batches; the caller's goroutine applies them in file order to the state
// that depends on what came before (sequences' interned names and clocks,
// open slices, the sink). Only the caller's goroutine calls the sink,
// Progress and the notes, so that a pass delivers the same calls, in the
// same order, as a read on one core.

const (
	// batchPackets and batchBytes bound a batch: cancellation is
	// looked at once per batch.
	batchPackets = 4096
	batchBytes   = 1 << 20
	batchSlack   = 64 << 10
	// batches is how many batches circulate: one being filled, one
	// being applied, one waiting between them.
	batches = 3
)

// packetRef locates a packet in its batch's buffer and in the input.
type packetRef struct {
	start, end int
	off        int64
}

// batch is packets read in a row, what their decoding made of them, and
// how the reading ended after them, if it did.
type batch[T any] struct {
	buf  []byte
	refs []packetRef
	out  []T
	done int64 // input bytes read when the batch was closed
	// end is what stopped the reading after these packets: io.EOF at
	// a clean end, a decoding error (located by the pass), or an error
	// of opening and decompressing (returned as it is, in fatal).
	end, fatal error
	others     int64 // top-level fields other than packets, in the whole input so far
	panicked   any   // a panic of the reading goroutine, raised again by the caller
}

func (b *batch[T]) reset() {
	if cap(b.buf) > 4*batchBytes || cap(b.buf) < batchBytes+batchSlack {
		// Packets under batchSlack bytes fit without moving the
		// buffer; a huge one leaves a buffer too large to keep.
		b.buf = make([]byte, 0, batchBytes+batchSlack)
	}
	b.buf, b.refs = b.buf[:0], b.refs[:0]
	b.end, b.fatal, b.panicked = nil, nil, nil
}

// walk reads the packets of the file at path: decode makes what it can
// of each packet on its own, into out (which keeps what it held for an
// earlier packet, so that its slices may be reused), on the reading
// goroutine; apply then takes each packet with what decode made of it,
// in file order, on the caller's. pass (0 or 1) places the progress
// reports: each pass reads the whole file, so the total reported is twice
// its size.
func walk[T any](open func() (io.ReadCloser, error), path string, size int64, pass int, opt trace.ReadOptions,
	decode func(pkt []byte, off int64, out *T), apply func(pkt []byte, off int64, in *T) error) error {
	full := make(chan *batch[T], batches)
	free := make(chan *batch[T], batches)
	for range batches {
		free <- &batch[T]{}
	}
	quit, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		read(open, path, opt, full, free, quit, decode)
	}()
	defer func() {
		close(quit)
		<-stopped
	}()

	base, total, next := int64(pass)*size, 2*size, int64(progressEvery)
	for b := range full {
		if b.panicked != nil {
			panic(b.panicked)
		}
		if err := opt.Canceled(); err != nil {
			return err
		}
		for i, r := range b.refs {
			if err := apply(b.buf[r.start:r.end:r.end], r.off, &b.out[i]); err != nil {
				return located(path, err)
			}
		}
		switch {
		case b.fatal != nil:
			return b.fatal
		case b.end == io.EOF:
			if pass == 0 && b.others > 0 {
				opt.Skip("top-level fields of the trace other than packets", b.others)
			}
			if opt.Progress != nil {
				opt.Progress(base+b.done, total)
			}
			return nil
		case b.end != nil:
			return located(path, b.end)
		}
		if opt.Progress != nil && b.done >= next {
			opt.Progress(base+b.done, total)
			next = b.done + progressEvery
		}
		free <- b
	}
	return nil
}

// read is the reading goroutine of walk: it fills the batches from free
// and hands them over on full, until the input ends or quit is closed.
func read[T any](open func() (io.ReadCloser, error), path string, opt trace.ReadOptions,
	full, free chan *batch[T], quit chan struct{}, decode func(pkt []byte, off int64, out *T)) {
	var b *batch[T]
	send := func() bool {
		select {
		case full <- b:
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
		if r := recover(); r != nil {
			b.panicked = r
			send()
		}
	}()
	f, err := open()
	if err != nil {
		b.fatal = err
		send()
		return
	}
	defer f.Close()
	cr := &countingReader{r: f, opt: opt}
	in, release, err := ingest.Decompress(bufio.NewReaderSize(cr, 64<<10), path, ingest.DefaultMaxDecompressed)
	if err != nil {
		b.fatal = err
		send()
		return
	}
	defer release()
	fr := &framer{r: in}
	var carry []byte // the head of a packet that did not fit in the last batch
	for {
		fr.buf, fr.pos = append(b.buf, carry...), 0
		for len(b.refs) < batchPackets {
			pkt, off, err := fr.next(len(b.refs) > 0)
			if err == errMore {
				break
			}
			if err != nil {
				b.end = err
				break
			}
			i := len(b.refs)
			b.refs = append(b.refs, packetRef{start: fr.pos - len(pkt), end: fr.pos, off: off})
			if i == len(b.out) {
				var zero T
				b.out = append(b.out, zero)
			}
			decode(pkt, off, &b.out[i])
		}
		carry = append(carry[:0], fr.buf[fr.pos:]...)
		b.buf, b.done, b.others = fr.buf, cr.done, fr.others
		fr.buf = nil
		if !send() || b.end != nil || !take() {
			return
		}
	}
}

// countingReader counts the bytes read from the file and stops the read
// once it is canceled.
type countingReader struct {
	r    io.Reader
	opt  trace.ReadOptions
	done int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	if err := c.opt.Canceled(); err != nil {
		return 0, err
	}
	n, err := c.r.Read(p)
	c.done += int64(n)
	return n, err
}
