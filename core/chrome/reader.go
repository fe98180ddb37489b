package chrome

import (
	"bufio"
	"compress/gzip"
	"errors"
	"io"
	"os"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// ReadFile reads a whole Chrome trace into memory.
func ReadFile(path string) (*trace.Trace, error) {
	return trace.Load(path, Read)
}

// Read streams the Chrome trace at path, plain or gzip-compressed, into
// sink.
func Read(path string, sink trace.Sink, opt trace.ReadOptions) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var total int64
	if st, err := f.Stat(); err == nil {
		total = st.Size()
	}
	return Decode(f, path, total, sink, opt)
}

// progressEvery is how many input bytes pass between two progress reports.
const progressEvery = 4 << 20

// Decode reads a Chrome trace from r, plain or gzip-compressed (recognised
// by its magic bytes); name labels errors, total is the input size for
// progress reports (0 if unknown). Nothing reaches sink unless the whole
// input is valid.
func Decode(r io.Reader, name string, total int64, sink trace.Sink, opt trace.ReadOptions) error {
	counted := &countingReader{r: r, progress: opt.Progress, opt: opt, total: total, next: progressEvery}
	br := bufio.NewReaderSize(counted, 64<<10)
	var in io.Reader = br
	magic, err := br.Peek(2)
	if err != nil && err != io.EOF {
		return &errs.FormatError{File: name, Err: err}
	}
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return &errs.FormatError{File: name, Err: err}
		}
		defer gz.Close()
		in = gz
	}
	d := &decoder{file: name, sc: newScanner(name, in), col: newCollector()}
	d.strs = d.col.strs
	if err := d.readTrace(); err != nil {
		if errors.Is(err, trace.ErrCanceled) {
			return trace.ErrCanceled
		}
		return err
	}
	if err := opt.Canceled(); err != nil {
		return err
	}
	if err := d.col.build(name, sink); err != nil {
		return err
	}
	if opt.Progress != nil {
		opt.Progress(counted.done, total)
	}
	return nil
}

// countingReader counts the bytes read from the file, reports progress
// and stops reading once the read is canceled.
type countingReader struct {
	r        io.Reader
	opt      trace.ReadOptions
	done     int64
	total    int64
	next     int64
	progress func(done, total int64)
}

func (c *countingReader) Read(p []byte) (int, error) {
	if err := c.opt.Canceled(); err != nil {
		return 0, err
	}
	n, err := c.r.Read(p)
	c.done += int64(n)
	if c.progress != nil && c.done >= c.next {
		c.progress(c.done, c.total)
		c.next = c.done + progressEvery
	}
	return n, err
}

// decoder walks the JSON structure of a trace and hands each event to the
// collector.
type decoder struct {
	file string
	sc   *scanner
	strs *interner
	col  *collector
	ev   rawEvent
}

// readTrace reads the object form {"traceEvents": [...], ...} or the array
// form [...].
func (d *decoder) readTrace() error {
	s := d.sc
	c, ok := s.peek()
	if !ok {
		if s.readErr != nil {
			return s.failEnd("the trace")
		}
		return s.fail("empty input")
	}
	if c == 0xef { // a UTF-8 byte order mark
		if err := s.literal("\xef\xbb\xbf"); err != nil {
			return err
		}
		c, _ = s.peek()
	}
	switch c {
	case '[':
		if err := d.readEvents(true); err != nil {
			return err
		}
	case '{':
		if err := d.readObject(); err != nil {
			return err
		}
	default:
		return s.fail("not a Chrome trace: expected '[' or '{', found %s", describe(c))
	}
	if c, ok := s.peek(); ok {
		return s.fail("unexpected %s after the end of the trace", describe(c))
	}
	if s.readErr != nil {
		return s.failEnd("the end of the trace")
	}
	return nil
}

// readObject reads the object form; keys other than traceEvents
// (distributedInfo, deviceProperties, displayTimeUnit...) are checked and
// skipped.
func (d *decoder) readObject() error {
	s := d.sc
	s.pos++
	seen := false
	c, ok := s.peek()
	if !ok {
		return s.failEnd("the trace object")
	}
	if c == '}' {
		s.pos++
	} else {
		for {
			key, err := s.str()
			if err != nil {
				return err
			}
			isEvents := string(key) == "traceEvents"
			if err := s.expect(':', "the trace object"); err != nil {
				return err
			}
			if isEvents {
				if seen {
					return s.fail("traceEvents appears twice")
				}
				seen = true
				if c, ok := s.peek(); !ok || c != '[' {
					return s.fail("traceEvents is not an array")
				}
				if err := d.readEvents(false); err != nil {
					return err
				}
			} else if err := s.skip(1); err != nil {
				return err
			}
			c, ok := s.peek()
			if !ok {
				return s.failEnd("the trace object")
			}
			s.pos++
			if c == '}' {
				break
			}
			if c != ',' {
				s.pos--
				return s.fail("expected ',' or '}' in the trace object, found %s", describe(c))
			}
		}
	}
	if !seen {
		return s.fail("the trace object has no traceEvents array")
	}
	return nil
}

// readEvents reads the array of events. In the array form the closing
// bracket may be missing, as the format allows for traces written by a
// process that was killed: the input may then end after any complete event.
func (d *decoder) readEvents(arrayForm bool) error {
	s := d.sc
	s.pos++ // '['
	endOK := func() error {
		if arrayForm && s.readErr == nil {
			return nil
		}
		return s.failEnd("the event array")
	}
	c, ok := s.peek()
	if !ok {
		return endOK()
	}
	if c == ']' {
		s.pos++
		return nil
	}
	for {
		c, ok := s.peek()
		if !ok {
			return endOK()
		}
		if c != '{' {
			return s.fail("expected an event object, found %s", describe(c))
		}
		if err := d.readEvent(&d.ev); err != nil {
			return err
		}
		if err := d.col.add(d.file, &d.ev); err != nil {
			return err
		}
		c, ok = s.peek()
		if !ok {
			return endOK()
		}
		s.pos++
		if c == ']' {
			return nil
		}
		if c != ',' {
			s.pos--
			return s.fail("expected ',' or ']' after an event, found %s", describe(c))
		}
	}
}
