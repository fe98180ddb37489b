package paje

import (
	"bytes"
	"os"
	"runtime/debug"

	"github.com/macroscope-hpc/macroscope/core/ingest"
)

// Reading a plain file mapped in memory.
//
// A plain regular file of mapMin bytes or more is mapped rather than read
// (ingest.MapFile): its chunks are then slices of the page cache itself,
// cut at line ends, which spares the kernel copying every byte into a
// chunk's buffer (5% of the CPU time of a read). The tokenizers never
// read past a chunk's lines (stateLines takes a line only while 64 bytes
// of the chunk remain, plainFields reads the end of its data as a '\n'),
// and the chunks' slices end where their lines do, so that a read past
// them would be an index out of range, not a read of the next chunk. The
// pages behind the chunks consumed are given back every dropEvery bytes
// (ingest.DropPages): the process's memory stays that of a window of
// the input, not of the file.
//
// The file is read as long as it was when it was opened (a stream would
// go on with what a writer appends meanwhile). A file cut short while it
// is read makes the pages past its new end unreadable: the goroutines
// that read the mapping (the cutter, the tokenizers, the decoder's) turn
// the fault into a panic (debug.SetPanicOnFault) that stops the read
// with ingest.ErrFileShrank naming the file, never the program.

// mapMin is the size from which files are mapped: below it, reading
// costs as little. dropEvery (a power of two, a multiple of any page size)
// is how many bytes are consumed before the pages behind them are given
// back. Variables, so that tests can map small files in many steps.
var (
	mapMin    int64 = 1 << 20
	dropEvery       = 2 << 20
)

// decodeFile reads the file f, named name in errors: mapped if it is a
// plain regular file of mapMin bytes or more, as a stream (decode)
// otherwise, or when the decoder reads line by line.
func (d *decoder) decodeFile(f *os.File, name string) error {
	if !d.serial {
		if data, unmap, ok := ingest.MapPlain(f, mapMin); ok {
			defer unmap()
			return d.decodeMapped(f, data, name)
		}
	}
	return d.decode(f, name)
}

// decodeMapped is decode of data, the plain file f mapped in memory: the
// same calls to the sink, errors and warnings.
func (d *decoder) decodeMapped(f *os.File, data []byte, name string) error {
	src := &mappedSource{data: data}
	return d.decodeMappedFrom(f, data, name, src, &src.read)
}

// decodeMappedFrom is decodeMapped of the chunks src cuts, whose bytes
// read counts.
func (d *decoder) decodeMappedFrom(f *os.File, data []byte, name string, src source, read *ingest.Counter) (err error) {
	defer ingest.ExplainShrank(f, data, name, &err)
	defer ingest.RecoverFault(name, &err)
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	d.startFile(name, read)
	if err := d.decodeText(src); err != nil {
		return err
	}
	if endsInsideLine(data[bytes.LastIndexByte(data, '\n')+1:]) {
		d.opt.Incomplete("%s: the last line (%d) has no end of line: the file is cut", name, d.line)
	}
	return nil
}

// mappedSource cuts a mapped file into chunks.
type mappedSource struct {
	data    []byte
	at      int            // where the next chunk starts
	dropped int            // the pages of data[:dropped] were given back
	read    ingest.Counter // counts the bytes cut, for progress reports
}

// next sets c to the lines from s.at on, cut at the last '\n' within size
// bytes (at the end of a longer line, within maxLine bytes), as fill reads
// them from a stream: the rest of the file at its end, and errLongLine
// for a line that runs past maxLine without an end. A fault (the file cut
// short) ends the input there with ingest.ErrFileShrank.
func (s *mappedSource) next(c *chunk, size int) {
	defer func() {
		if r := recover(); r != nil {
			if !ingest.IsFault(r) {
				panic(r)
			}
			c.data, c.last, c.readErr = nil, true, ingest.ErrFileShrank
		}
	}()
	rest := s.data[s.at:]
	c.data, c.last, c.readErr = rest, true, nil
	if len(rest) > size {
		cut := bytes.LastIndexByte(rest[:size], '\n') + 1
		if cut == 0 { // a line longer than size: to its end
			cut = bytes.IndexByte(rest[:min(len(rest), maxLine+1)], '\n') + 1
		}
		switch {
		case cut > 0:
			c.data, c.last = rest[:cut:cut], false
		case len(rest) > maxLine:
			c.data, c.readErr = rest[:0:0], errLongLine
		}
	}
	s.at += len(c.data)
	c.mapped, c.end = true, s.at
	s.read.Add(int64(len(c.data)))
}

// consumed gives back the pages of the chunks consumed, up to c's end,
// once there are dropEvery bytes of them.
func (s *mappedSource) consumed(c *chunk) {
	if at := c.end &^ (dropEvery - 1); at > s.dropped {
		ingest.DropPages(s.data[s.dropped:at])
		s.dropped = at
	}
}

func (s *mappedSource) mapped() bool { return true }

// recoverFault, deferred by tokenize on a chunk of a mapped file (on a
// goroutine that turns faults into panics), turns a fault (the file cut
// short) into a chunk left untokenized, for the decoder to read line by
// line and meet the fault itself, where its lines stop.
func (c *chunk) recoverFault() {
	if r := recover(); r != nil {
		if !ingest.IsFault(r) {
			panic(r)
		}
		c.recs, c.spans, c.stop, c.stopLine = c.recs[:0], c.spans[:0], 0, 0
	}
}
