package paje

import (
	"bufio"
	"bytes"
	"errors"
	"io"

	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Probe limits: how far from the start of the input extent looks for the
// first dated event, and how much of the end of the last file it reads to
// find the last one.
const (
	probeHead = 64 << 20
	probeTail = 1 << 20
)

// extent guesses the first and last instants of the trace the files hold
// (the start and end a read gives to trace.Sink.Finish) without reading
// them whole: the date of the first event line that has one, found from
// the start of the input, and that of the last, found by reading the end
// of the last file backwards with the event definitions of the header.
//
// The guess is cheap (a few kilobytes of a well-formed file) and usually
// right: a trace ends at its last dated event, whatever the order of the
// dates. It is wrong when the file destroys the root container before its
// last event, and it gives up (ok false) when the end of the file uses
// event definitions the header does not hold or holds no dated event, or
// when the input is not a readable Pajé trace. Callers must check it
// against what the read finds. It gives up on compressed files too: their
// end cannot be reached without decompressing them whole.
func extent(paths []string, opt Options) (first, last trace.Time, ok bool) {
	if len(paths) == 0 {
		return 0, 0, false
	}
	for _, p := range paths {
		if compressed(p) {
			return 0, 0, false
		}
	}
	d := newDecoder(&trace.Counter{}, opt, 0)
	defer d.sim.release()
	found := false
	var budget int64 = probeHead
	for _, p := range paths {
		t, ok, err := d.firstDate(p, &budget)
		if err != nil {
			return 0, 0, false
		}
		if ok {
			first, found = t, true
			break
		}
	}
	if !found {
		return 0, 0, false
	}
	last, ok = d.lastDate(paths[len(paths)-1])
	if !ok {
		return 0, 0, false
	}
	return first, last, true
}

// compressed reports whether the file at path is compressed, or cannot be
// read.
func compressed(path string) bool {
	f, err := ingest.OpenFile(path)
	if err != nil {
		return true
	}
	defer f.Close()
	head := make([]byte, 4)
	n, _ := io.ReadFull(f, head)
	return ingest.Sniff(head[:n]) != ingest.Plain
}

// firstDate reads the file's lines as the decoder does, definitions
// included, until an event line with a date; it gives up beyond budget
// bytes.
func (d *decoder) firstDate(path string, budget *int64) (trace.Time, bool, error) {
	f, err := ingest.OpenFile(path)
	if err != nil {
		return 0, false, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	for *budget > 0 {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			return 0, false, err // a huge line: not worth it
		}
		*budget -= int64(len(line))
		if len(line) > 0 {
			t, dated, perr := d.probeLine(line, true)
			if perr != nil {
				return 0, false, perr
			}
			if dated {
				return t, true, nil
			}
		}
		if err == io.EOF {
			return 0, false, nil
		}
		if err != nil {
			return 0, false, err
		}
	}
	return 0, false, io.ErrShortBuffer
}

// lastDate returns the date of the last dated event line of the file,
// looking only at its last probeTail bytes.
func (d *decoder) lastDate(path string) (trace.Time, bool) {
	f, err := ingest.OpenFile(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, false
	}
	from := max(st.Size()-probeTail, 0)
	buf := make([]byte, st.Size()-from)
	if _, err := f.ReadAt(buf, from); err != nil && err != io.EOF {
		return 0, false
	}
	if from > 0 {
		// The first line is cut: drop it.
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			return 0, false
		}
		buf = buf[i+1:]
	}
	for len(buf) > 0 {
		i := bytes.LastIndexByte(buf[:len(buf)-1], '\n') + 1
		line := buf[i:]
		buf = buf[:i]
		t, dated, err := d.probeLine(line, false)
		if err != nil {
			return 0, false
		}
		if dated {
			return t, true
		}
	}
	return 0, false
}

// probeLine looks at one line as parseLine does, without simulating it:
// definitions are recorded when define is set (and refused otherwise), and
// an event line gives its date if its definition has one.
func (d *decoder) probeLine(line []byte, define bool) (trace.Time, bool, error) {
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
	}
	i := 0
	for i < len(line) && blank[line[i]] {
		i++
	}
	if i == len(line) || line[i] == '#' {
		return 0, false, nil
	}
	if line[i] == '%' {
		if !define {
			return 0, false, errProbe
		}
		return 0, false, d.parseHeader(line[i+1:])
	}
	if d.open != nil || uint64(len(line)) > maxBuffer {
		return 0, false, errProbe
	}
	var err error
	d.spans, err = appendFields(line, i, len(line), d.spans[:0])
	if err != nil {
		return 0, false, err
	}
	if len(d.spans) == 0 {
		return 0, false, nil
	}
	def := d.defs[string(line[d.spans[0].from:d.spans[0].to])]
	if def == nil || len(d.spans)-1 != len(def.roles) {
		return 0, false, errProbe
	}
	c := def.column[roleTime]
	if c < 0 {
		return 0, false, nil
	}
	f := d.spans[1+c]
	t, err := parseDate(line[f.from:f.to])
	if err != nil {
		return 0, false, err
	}
	return d.opt.inUnit(t), true, nil
}

// errProbe stops a probe that cannot conclude.
var errProbe = errors.New("cannot probe")
