package chrome

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// readFile reads a whole Chrome trace into memory.
func readFile(path string) (*trace.Trace, error) {
	return trace.Load(path, read)
}

// read streams the Chrome trace at path, plain or compressed (gzip, bzip2,
// zstd), into sink.
func read(path string, sink trace.Sink, opt trace.ReadOptions) error {
	return readLimited(path, 0, sink, opt)
}

// readLimited is Read with a bound on what compressed input may expand to
// (see ingest.Decompress; 0: ingest.DefaultMaxDecompressed, negative: no
// bound).
func readLimited(path string, limit int64, sink trace.Sink, opt trace.ReadOptions) error {
	if _, err := ingest.CheckPath(path); err != nil {
		return err
	}
	f, err := ingest.OpenFile(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var total int64
	if st, err := f.Stat(); err == nil {
		total = st.Size()
	}
	if data, unmap, ok := ingest.MapPlain(f, mapMin); ok {
		defer unmap()
		return readMapped(f, data, path, sink, opt)
	}
	return decode(f, path, total, limit, sink, opt)
}

// progressEvery is how many input bytes pass between two progress reports.
const progressEvery = 4 << 20

// Decode reads a Chrome trace from r, plain or compressed with gzip,
// bzip2 or zstd (recognised by its magic bytes); name labels errors, total
// is the input size for progress reports (0 if unknown). Nothing reaches
// sink unless the whole input is valid.
func Decode(r io.Reader, name string, total int64, sink trace.Sink, opt trace.ReadOptions) error {
	return decode(r, name, total, 0, sink, opt)
}

func decode(r io.Reader, name string, total, limit int64, sink trace.Sink, opt trace.ReadOptions) error {
	counted := &countingReader{Counter: ingest.Counter{R: r, Stop: opt.Canceled}, progress: opt.Progress, opt: opt, total: total, next: progressEvery}
	// The buffer serves the gzip magic test and the decompressor's byte
	// reads; plain text goes through it in the scanner's large reads.
	br := bufio.NewReaderSize(counted, 16<<10)
	switch {
	case limit == 0:
		limit = ingest.DefaultMaxDecompressed
	case limit < 0:
		limit = 0 // Decompress: no bound
	}
	in, release, err := ingest.Decompress(br, name, limit)
	if err != nil {
		return err
	}
	defer release()
	sc := newScanner(name, ingest.SkipTrailer(in, opt))
	sc.in = counted // for the progress reports
	return run(sc, counted, total, sink, opt)
}

// run reads the trace the scanner scans into sink; counted counts the
// input's bytes, of which there are total (0: unknown).
func run(sc *scanner, counted *countingReader, total int64, sink trace.Sink, opt trace.ReadOptions) error {
	name := sc.file
	d := &decoder{file: name, sc: sc, col: newCollector(), counted: counted}
	d.strs = d.col.strs
	d.col.hold = opt.Hold
	defer d.col.release()
	if opt.Hold != nil {
		sc.weigh = opt.Hold
		defer sc.unweigh()
	}
	if as, ok := sink.(trace.ArgsSink); ok {
		d.keepArgs = as.KeepsArgs()
	}
	if _, ok := sink.(trace.StreamSink); ok {
		d.keepArgs = true // the streams are read from the arguments
	}
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
	if d.cut != "" {
		opt.Incomplete("%s", d.cut)
	}
	d.col.notes.flush(opt)
	if opt.Progress != nil {
		opt.Progress(counted.N(), total)
	}
	return nil
}

// countingReader counts the bytes read from the file, reports progress
// and stops reading once the read is canceled.
type countingReader struct {
	// Counter counts the bytes and stops at a cancel (Stop); it does not
	// report progress: it may run on a goroutine other than the read's
	// (a compressed input is read by its decompressing goroutine, a read
	// on all cores by the cutter), and the callback is called on the
	// read's only, by the scanner (fill) and between parts.
	ingest.Counter
	opt      trace.ReadOptions
	total    int64
	next     int64
	progress func(done, total int64)
	// quiet leaves the progress reports to readEventsParallel, between
	// parts, while a cutter reads the input on another goroutine.
	quiet bool
}

// report tells the progress callback, if it is time to.
func (c *countingReader) report() {
	if done := c.N(); c.progress != nil && done >= c.next {
		c.progress(done, c.total)
		c.next = done + progressEvery
	}
}

// decoder walks the JSON structure of a trace and hands each event to the
// collector.
type decoder struct {
	file string
	sc   *scanner
	strs *interner
	col  *collector
	ev   rawEvent
	// keepArgs tells that the sink keeps the arguments of events.
	keepArgs bool
	// events counts the event entries read; cut says where the input
	// ended abruptly, if it did.
	events int64
	cut    string
	// parallel tells that the event array was read in parts (or tried).
	parallel bool
	// parsers is parserCount, asked once per read: asked at every event
	// (runtime.GOMAXPROCS takes the scheduler's lock) it cost 1-5% of a
	// read on one core.
	parsers int
	// counted is the input's byte counter, which reports progress.
	counted *countingReader
}

// truncatedAt records that the input ends abruptly at the entry that
// starts at the given place, so the entries before it are all there is.
func (d *decoder) truncatedAt(what string, line int, offset int64) {
	where := fmt.Sprintf("byte %d", offset)
	if line > 1 {
		where += fmt.Sprintf(" (line %d)", line)
	}
	d.cut = fmt.Sprintf("the input ends inside %s starting at %s, as when the program writing it stopped abruptly: the %d complete events before it were read", what, where, d.events)
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
		// Triton's Proton writes a trace (.chrome_trace) as trace objects
		// one after the other, one per line: one per GPU stream (its
		// TraceData's dumpKernelMetricTrace, before one object held every
		// stream), one per flushed phase in its periodic flushing mode;
		// tests of its backends read the file line by line. Every
		// object's events are read, the first's and the others' alike.
		for d.cut == "" {
			if c, ok := s.peek(); !ok || c != '{' {
				break
			}
			d.col.notes.warn(moreObjects)
			if err := d.readObject(); err != nil {
				return err
			}
		}
	default:
		if enc := ingest.WideText(s.buf[s.pos:s.end]); enc != "" && s.offset() == 0 {
			return s.fail("not a Chrome trace: it %s", ingest.WideTextError(enc))
		}
		return s.fail("not a Chrome trace: expected '[' or '{', found %s", describe(c))
	}
	if d.cut != "" {
		return nil
	}
	if c, ok := s.peek(); ok {
		return s.fail("unexpected %s after the end of the trace", describe(c))
	}
	if s.readErr != nil {
		if err := s.failEnd("the end of the trace"); !s.truncated {
			return err
		}
		d.cut = fmt.Sprintf("the compressed input is cut after the end of the trace (byte %d); all %d events were read", s.inputEnd(), d.events)
	}
	return nil
}

// moreObjects is the warning of a file holding trace objects one after
// the other; its %d is how many follow the first.
const moreObjects = "%d more trace objects follow the first (one per line, as Triton's Proton writes a trace: " +
	"one per stream, or one per phase when it flushes periodically): their events are read with the first's, " +
	"at the times each object gives them"

// readObject reads the object form. Besides traceEvents, the format has
// systemTraceEvents (ftrace text, not modelled: its lines are counted),
// stackFrames and samples (a sampling profile, kept as text and read once
// the events are, see addSampledStacks), displayTimeUnit
// (how a viewer shows times; ts and dur are microseconds regardless),
// otherData and writers' own keys (distributedInfo, deviceProperties...),
// which are checked for syntax and ignored.
func (d *decoder) readObject() error {
	s := d.sc
	s.pos++
	seen := false
	var keys []string // the object's first keys, to name what it is if it is no trace
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
			var field byte
			name := string(key) // key points into the scanner's buffer, which reading the value moves
			if len(keys) < maxNamingKeys {
				keys = append(keys, name)
			}
			switch name {
			case "traceEvents":
				field = 'e'
			case "systemTraceEvents":
				field = 's'
			case "stackFrames":
				field = 'f'
			case "samples":
				field = 'p'
			case "nodes", "timeDeltas", "startTime", "head", "timestamps":
				field = 'v' // a V8 CPU profile file (.cpuprofile; head and timestamps in V8's older form)
			}
			if err := s.expect(':', "the trace object"); err != nil {
				return d.endOfObject(seen, err)
			}
			switch field {
			case 'e':
				seen = true
				if c, ok := s.peek(); !ok || c != '[' {
					if !ok {
						return d.endOfObject(seen, s.failEnd("the trace object"))
					}
					return s.fail("traceEvents is not an array")
				}
				if err := d.readEvents(false); err != nil {
					return err
				}
				if d.cut != "" {
					return nil
				}
			case 's':
				seen = true
				err = d.skipSystemEvents()
			case 'f':
				d.col.stackFramesText, _, err = s.capture(d.col.stackFramesText[:0])
			case 'p':
				d.col.samplesText, _, err = s.capture(d.col.samplesText[:0])
			case 'v':
				var text []byte
				if text, _, err = s.capture(nil); err == nil {
					if d.col.cpuProfileFile == nil {
						d.col.cpuProfileFile = map[string][]byte{}
					}
					d.col.cpuProfileFile[name] = text
				}
			default:
				err = s.skip(1)
			}
			if err != nil {
				return d.endOfObject(seen, err)
			}
			c, ok := s.peek()
			if !ok {
				return d.endOfObject(seen, s.failEnd("the trace object"))
			}
			s.pos++
			if c == '}' {
				break
			}
			if c != ',' {
				s.pos--
				return s.fail("expected ',' or '}' in the trace object, found %s", describe(c))
			}
			if s.closesAfterComma('}') {
				break
			}
		}
	}
	if !seen && !d.col.isProfileFile() && !d.col.isSamplesOnly() {
		if what := otherProfile(keys); what == speedscopeFile {
			return s.fail("%s, not trace events: read it with format=\"speedscope\" (or let the format be detected)", what)
		} else if what != "" {
			return s.fail("%s, not trace events: macroscope does not read it", what)
		}
		return s.fail("the trace object has no traceEvents array (nor the nodes, samples and timeDeltas of a CPU profile, nor stackFrames and samples)")
	}
	return nil
}

// maxNamingKeys is how many of the object's first keys otherProfile looks
// at: those of the profiles it names come first.
const maxNamingKeys = 16

// speedscopeFile is what otherProfile calls a file of speedscope's
// format, which the speedscope reader reads.
const speedscopeFile = "a speedscope file"

// otherProfile names the JSON profiles of other tools that a file without
// trace events may be, by the keys of its object ("" for none of them):
// the .json extension sends them to this reader, and "no traceEvents"
// would not tell their users what went wrong.
func otherProfile(keys []string) string {
	has := func(names ...string) bool {
		for _, n := range names {
			if !slices.Contains(keys, n) {
				return false
			}
		}
		return true
	}
	switch {
	case has("$schema", "profiles", "shared"):
		return speedscopeFile
	case has("meta", "threads"):
		return "a Firefox Profiler (Gecko) profile"
	case has("ticks", "markers", "profile"):
		return "a recording of Firefox DevTools' former performance panel"
	case has("version", "recording"):
		return "a recording of Safari's Web Inspector timeline"
	case has("head") && !has("timestamps"):
		return "a V8 heap profile (.heapprofile: sampled allocations, no times)"
	}
	return ""
}

// endOfObject handles err, met in the trace object outside traceEvents:
// once the events are read, an input that ends there lost nothing the
// model holds but is noted as cut.
func (d *decoder) endOfObject(seen bool, err error) error {
	if !seen || !d.sc.truncated || d.events == 0 {
		return err
	}
	d.cut = fmt.Sprintf("the input ends at byte %d inside the trace object, after its %d events", d.sc.inputEnd(), d.events)
	return nil
}

// skipSystemEvents skips systemTraceEvents, the ftrace text some writers
// add, counting its lines, or reads Fuchsia's object form (see
// readSystemObject).
func (d *decoder) skipSystemEvents() error {
	s := d.sc
	if c, ok := s.peek(); ok && c == '"' {
		v, err := s.str()
		if err != nil {
			return err
		}
		lines := int64(bytes.Count(v, []byte{'\n'}))
		if len(v) > 0 && v[len(v)-1] != '\n' {
			lines++
		}
		d.col.notes.skip("lines of ftrace text (systemTraceEvents)", lines)
		return nil
	}
	if c, ok := s.peek(); ok && c == '{' {
		return d.readSystemObject()
	}
	d.col.notes.skip("systemTraceEvents values that are not ftrace text", 1)
	return s.skip(1)
}

// readEvents reads the array of events. The closing bracket may be
// missing, as the format allows for traces written by a process that was
// killed, and the input may even end inside an event: the events complete
// until then are kept and the trace is noted as incomplete, naming where
// it was cut. In the array form an input that ends between two events,
// with or without a trailing comma, is complete as the format allows it.
// An input cut before its first complete event is an error: there is
// nothing to read, and it may well not be a trace.
func (d *decoder) readEvents(arrayForm bool) error {
	s := d.sc
	s.pos++ // '['
	endOK := func() error {
		if arrayForm && s.readErr == nil {
			return nil // the format allows the array form to lack its ']'
		}
		if err := s.failEnd("the event array"); !s.truncated || d.events == 0 {
			return err
		}
		d.cut = fmt.Sprintf("the input ends at byte %d before the end of the event array: the %d complete events before it were read", s.inputEnd(), d.events)
		return nil
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
		// Once an event is read, the rest of a long input is read on all
		// cores (see readEventsParallel).
		if d.parsers == 0 {
			d.parsers = parserCount()
		}
		if d.events > 0 && !d.parallel && (s.r != nil || s.whole != nil) && !s.eof && s.readErr == nil && d.parsers > 1 {
			d.parallel = true
			if read, err := d.readEventsParallel(); err != nil {
				return err
			} else if read {
				continue
			}
		}
		if d.readEventFast(&d.ev) {
		} else if err := d.readEvent(&d.ev); err != nil {
			if s.truncated && d.events > 0 {
				d.truncatedAt("an event", d.ev.line, d.ev.offset)
				return nil
			}
			return err
		}
		d.events++
		if err := d.col.add(d.file, &d.ev); err != nil {
			return err
		}
		if s.nextObject() {
			continue
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
		if s.closesAfterComma(']') {
			return nil
		}
	}
}
