package ingest

import "io"

// The read-ahead of a decompressed input: chunks of this size, this many
// ready ahead of the reader at most (and one being filled), so that the
// memory is bounded and the decompressor rarely waits.
const (
	readAheadChunk = 1 << 20
	readAheadDepth = 3
)

// readAhead reads r on a goroutine of its own, into chunks handed to its
// Read in order; r's error comes after the bytes read before it, as r
// gives them. close stops the goroutine.
type readAhead struct {
	ready chan chunk  // filled chunks, in order
	free  chan []byte // buffers to fill
	stop  chan struct{}
	done  chan struct{}
	cur   []byte // what is left of the chunk being read
	buf   []byte // the buffer of that chunk, to hand back
	err   error  // the error after cur, once reached
}

type chunk struct {
	data []byte
	err  error
}

func newReadAhead(r io.Reader, size, depth int) *readAhead {
	ra := &readAhead{
		ready: make(chan chunk, depth),
		free:  make(chan []byte, depth+1),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
	}
	for range depth + 1 {
		ra.free <- make([]byte, size)
	}
	go ra.fill(r)
	return ra
}

// fill reads r into free buffers until an error (io.EOF included) or
// stop, each chunk as full as r allows before its error.
func (ra *readAhead) fill(r io.Reader) {
	defer close(ra.done)
	for {
		var buf []byte
		select {
		case buf = <-ra.free:
		case <-ra.stop:
			return
		}
		n := 0
		var err error
		for n < len(buf) && err == nil {
			var k int
			k, err = r.Read(buf[n:])
			n += k
		}
		select {
		case ra.ready <- chunk{buf[:n], err}:
		case <-ra.stop:
			return
		}
		if err != nil {
			return
		}
	}
}

func (ra *readAhead) Read(p []byte) (int, error) {
	for len(ra.cur) == 0 {
		if ra.err != nil {
			return 0, ra.err
		}
		if ra.buf != nil {
			ra.free <- ra.buf[:cap(ra.buf)]
			ra.buf = nil
		}
		c := <-ra.ready
		ra.cur, ra.buf, ra.err = c.data, c.data, c.err
	}
	n := copy(p, ra.cur)
	ra.cur = ra.cur[n:]
	return n, nil
}

// close stops the goroutine and waits for it: it may be in a Read of r,
// which must end before r is released.
func (ra *readAhead) close() {
	select {
	case <-ra.stop:
	default:
		close(ra.stop)
	}
	<-ra.done
}
