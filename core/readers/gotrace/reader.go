package gotrace

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	xtrace "golang.org/x/exp/trace"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// ReadFile reads a whole Go execution trace into memory.
func ReadFile(path string) (*trace.Trace, error) {
	return trace.Load(path, read)
}

// read streams the Go execution trace at path, plain or compressed
// (gzip, bzip2, zstd), into sink.
func read(path string, sink trace.Sink, opt trace.ReadOptions) error {
	st, err := ingest.CheckPath(path)
	if err != nil {
		return err
	}
	if st.IsDir() {
		return errs.Format(path, 0, "is a directory, not a Go execution trace")
	}
	f, err := ingest.OpenFile(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return decode(f, path, st.Size(), sink, opt)
}

// checkEvery is how many events pass between two looks at Cancel and
// two progress reports; they also happen at each generation's start.
const checkEvery = 4096

// recoverPanics turns the parser's panics on malformed input into
// errors; fuzzing turns it off to tell them from the reader's own bugs.
var recoverPanics = true

// decode reads a Go execution trace from r, plain or compressed; name
// labels errors, total is the size of r for progress reports (0 if
// unknown).
//
// The parser delivers a generation (about a second of events) at a time
// once it has checked it. A trace cut short or broken after its first
// generation (the program crashed or was killed before trace.Stop, the
// copy was cut) is read up to the end of the last whole generation, as
// the Go project's own trace viewer does: the reading succeeds, and
// opt.Incomplete says where the trace breaks and what is missing. A
// fault within the first generation is an error, and the sink is then to
// be discarded. The parser's panics on malformed input are errors too.
func decode(r io.Reader, name string, total int64, sink trace.Sink, opt trace.ReadOptions) (err error) {
	counted := &ingest.Counter{R: r}
	in, release, err := ingest.Decompress(bufio.NewReaderSize(counted, 64<<10), name, ingest.DefaultMaxDecompressed)
	if err != nil {
		return err
	}
	defer release()
	br := bufio.NewReader(ingest.ReadToCut(in, opt))
	head, _ := br.Peek(headerLen + 1)
	ver, err := version(head, name)
	if err != nil {
		return err
	}
	defer func() {
		if !recoverPanics {
			return
		}
		if p := recover(); p != nil {
			err = &errs.FormatError{File: name, Err: fmt.Errorf("malformed Go execution trace, in the part read up to byte %d (the parser failed: %v)", counted.N(), p)}
		}
	}()
	if ownDecoder && wireTypes(ver) > 0 {
		br.Discard(headerLen)
		return decodeOwn(br, ver, name, counted, total, sink, opt)
	}
	xr, err := xtrace.NewReader(br)
	if err != nil {
		return parseError(name, counted.N(), err)
	}
	b := newBuilder(sink, opt, name)
	var g generations
	var view input
	recorded := 0 // events other than the parser's Sync marks
	for n := 1; ; n++ {
		ev, err := xr.ReadEvent()
		if err == io.EOF {
			if recorded == 0 {
				// runtime/trace writes a generation as soon as tracing
				// starts: a header alone is a trace cut after it.
				opt.Incomplete("%s holds the header of a Go execution trace and no event (%d bytes): the trace is cut after its header", name, counted.N())
			}
			break
		}
		if err != nil {
			err = parseError(name, counted.N(), err)
			if !g.usable() {
				return err
			}
			g.note(opt, err)
			break
		}
		if ev.Kind() != xtrace.EventSync {
			recorded++
		}
		fromParser(ev, &view)
		g.count(&view)
		b.event(&view)
		if n%checkEvery == 0 || ev.Kind() == xtrace.EventSync {
			if err := opt.Canceled(); err != nil {
				return err
			}
			if opt.Progress != nil {
				opt.Progress(counted.N(), total)
			}
		}
	}
	if err := opt.Canceled(); err != nil {
		return err
	}
	b.finish()
	if opt.Progress != nil {
		opt.Progress(counted.N(), total)
	}
	return nil
}

// parseError wraps an error of the parser. Errors of the input itself
// (decompression, the size limit) are already FormatErrors.
func parseError(name string, read int64, err error) error {
	var fe *errs.FormatError
	if errors.As(err, &fe) {
		return err
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return &errs.FormatError{File: name, Err: fmt.Errorf("the Go execution trace is cut short after %d bytes: %w", read, err)}
	}
	return &errs.FormatError{File: name, Err: fmt.Errorf("malformed Go execution trace, in the part read up to byte %d: %w", read, err)}
}

// ownDecoder says whether traces of the generational format (Go 1.22 to
// 1.26) are read with the package's own decoder and merge (wire.go,
// merge.go) instead of the parser. The two give the same calls to the
// sink and the same outcome on every trace tested: the samples, the Go
// project's test traces and fuzz seeds, traces with CPU samples, cgo
// callbacks, thousands of goroutines, GC pressure, every cut of two
// traces, and 150 MB generated ones (TestOwnDecoderSameModel,
// TestOwnDecoderMoreTraces, TestOwnDecoderCut, FuzzOwnVsParser). Where a
// broken trace fails, our message names the batch and byte, the parser's
// sometimes dumps its internal state. On by default; the environment
// variable MACROSCOPE_GOTRACE_PARSER (any value) reads with the parser
// instead, the fallback kept for one release.
var ownDecoder = os.Getenv("MACROSCOPE_GOTRACE_PARSER") == ""

// decodeOwn reads the generations of a trace of Go 1.ver with the
// package's decoder, on all cores, and builds the model from their
// merge, as decode does from the parser's events. The merge runs ahead
// of the builder, on its own goroutine (pipe.go).
func decodeOwn(br *bufio.Reader, ver int, name string, counted *ingest.Counter, total int64, sink trace.Sink, opt trace.ReadOptions) error {
	b := newBuilder(sink, opt, name)
	var g generations
	var view input
	recorded, n := 0, 0
	p := startPipe(br, ver, counted)
	defer p.stop()
	var err error
	for {
		c := p.next()
		for i := range c.events {
			e := &c.events[i]
			if err = checkIDs(e, c.gen); err != nil {
				// The merge's fault, as if it had stopped at e.
				break
			}
			fromMerge(e, c.gen, c.names, &view)
			if view.kind != xtrace.EventSync {
				recorded++
			}
			g.count(&view)
			b.event(&view)
			n++
			if n%checkEvery == 0 || view.kind == xtrace.EventSync {
				if err := opt.Canceled(); err != nil {
					return err
				}
				if opt.Progress != nil {
					opt.Progress(c.read, total)
				}
			}
		}
		if err != nil {
			break
		}
		if c.panic != nil {
			panic(c.panic)
		}
		if c.last {
			err = c.err
			break
		}
		p.recycle(c)
	}
	if err != nil {
		err = parseError(name, counted.N(), err)
		if !g.usable() {
			return err
		}
		g.note(opt, err)
	} else if recorded == 0 {
		opt.Incomplete("%s holds the header of a Go execution trace and no event (%d bytes): the trace is cut after its header", name, counted.N())
	}
	if err := opt.Canceled(); err != nil {
		return err
	}
	b.finish()
	if opt.Progress != nil {
		opt.Progress(counted.N(), total)
	}
	return nil
}
