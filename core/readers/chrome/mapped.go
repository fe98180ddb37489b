package chrome

import (
	"os"
	"runtime/debug"
	"sync/atomic"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Reading a plain file mapped in memory.
//
// A plain (uncompressed) file of mapMin bytes or more is mapped rather
// than read (where the system allows it, see ingest.MapFile): the scanner reads
// the bytes in the page cache itself, which spares the kernel copying
// each of them into the scanner's window, and the parts read on other
// cores are slices of the mapping instead of copies. The scanner still
// moves through the input a window at a time, so that progress is
// reported and cancellation seen as when reading, and gives the pages it
// has passed back (dropPages), so that the process's memory stays that
// of a window, not of the file.
//
// The file is read as long as it was when it was opened (a stream would
// go on with what a writer appends meanwhile).
//
// A mapped file that another program truncates while it is read makes
// the pages past its new end unreadable: reading them raises a fault
// (SIGBUS), which would end the program. The goroutines that read a
// mapping turn such faults into panics (debug.SetPanicOnFault) that are
// recovered and returned as an error naming the file (ingest.ErrFileShrank);
// the parts on other cores are all finished before the mapping goes.

// mapMin is the size from which files are mapped: below it, reading
// costs as little. A variable, so that tests can map small files.
var mapMin int64 = 1 << 20

// mappedWindow is how far the scanner's end moves through a mapped input
// at a time, and dropEvery (a power of two, a multiple of any page size)
// how many bytes it passes before it gives the pages behind it back.
// Variables, so that tests can move through small inputs in many steps.
var (
	mappedWindow = 1 << 20
	dropEvery    = 2 << 20
)

// mappedReads counts the reads of mapped files, for tests that check
// that a read did take that path.
var mappedReads atomic.Int64

// readMapped reads the Chrome trace that data, the plain file f mapped
// in memory, holds. A file cut short while it was read may show zeros
// past its new end, up to the end of that page (faults come after): an
// error on a file that is now shorter says so.
func readMapped(f *os.File, data []byte, name string, sink trace.Sink, opt trace.ReadOptions) (err error) {
	defer ingest.ExplainShrank(f, data, name, &err)
	return decodeMapped(data, name, sink, opt)
}

// decodeMapped reads the Chrome trace that data, a plain file mapped in
// memory, holds.
func decodeMapped(data []byte, name string, sink trace.Sink, opt trace.ReadOptions) (err error) {
	defer ingest.RecoverFault(name, &err)
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	mappedReads.Add(1)
	counted := &countingReader{opt: opt, progress: opt.Progress, total: int64(len(data)), next: progressEvery}
	sc := &scanner{file: name, buf: data, whole: data, in: counted, line: 1, keep: -1, hold: -1}
	return run(sc, counted, int64(len(data)), sink, opt)
}

// fillMapped moves the end of the scanner's window over a mapped input,
// as fill reads the next bytes of a stream.
func (s *scanner) fillMapped() bool {
	if err := s.in.opt.Canceled(); err != nil {
		s.readErr = err
		return false
	}
	n := min(mappedWindow, len(s.whole)-s.end)
	s.end += n
	s.eof = s.end == len(s.whole)
	s.in.Add(int64(n))
	if !s.in.quiet {
		s.in.report()
	}
	s.release()
	return n > 0
}

// release gives back the pages of a mapped input that lie wholly before
// everything the scanner may still read (see fill), once there are
// dropEvery bytes of them.
func (s *scanner) release() {
	from := s.pos
	if s.keep >= 0 && s.keep < from {
		from = s.keep
	}
	if s.hold >= 0 && s.hold < from {
		from = s.hold
	}
	s.releaseBefore(from)
}

// releaseBefore gives back the pages of a mapped input before offset at,
// once there are dropEvery bytes of them.
func (s *scanner) releaseBefore(at int) {
	at &^= dropEvery - 1 // a multiple of any page size
	if at > s.dropped {
		ingest.DropPages(s.whole[s.dropped:at])
		s.dropped = at
	}
}

// nextMapped sets p to the next part of a mapped input, as next does for
// a stream: a slice of the mapping, cut at the first boundary past
// partSize. It reports false at the end of the events it can cut.
func (c *cutter) nextMapped(p *part) bool {
	if err := c.in.opt.Canceled(); err != nil {
		c.err = err
		return false
	}
	b := c.whole[c.offset:min(int64(len(c.whole)), c.offset+MaxValue)]
	if len(b) < partSize {
		return false
	}
	cut := boundary(b, partSize-1)
	if cut < 0 {
		return false
	}
	p.data, p.offset = b[:cut], c.offset
	c.offset += int64(cut)
	if c.offset > c.seen {
		c.in.Add(c.offset - c.seen)
		c.seen = c.offset
	}
	return true
}

// parseMapped is parse on a part of a mapped input: a fault (see
// decodeMapped) stops it with an error, as damage would.
// Its events are dropped: the part's strings may be half interned.
func (p *part) parseMapped(file string, keepArgs bool) {
	defer func() {
		if r := recover(); r != nil {
			if !ingest.IsFault(r) {
				panic(r)
			}
			p.events, p.ok, p.lines = p.events[:0], 0, 1
			p.err = &errs.FormatError{File: file, Err: ingest.ErrFileShrank}
		}
	}()
	p.parse(file, keepArgs)
}
