package perfetto

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// recorder writes down every call a sink gets, in order.
type recorder struct{ strings.Builder }

func (r *recorder) DefineType(t trace.Type)           { fmt.Fprintf(r, "T %#v\n", t) }
func (r *recorder) DefineValue(v trace.Value)         { fmt.Fprintf(r, "V %#v\n", v) }
func (r *recorder) CreateContainer(c trace.Container) { fmt.Fprintf(r, "C %#v\n", c) }
func (r *recorder) DestroyContainer(id int32, at trace.Time) {
	fmt.Fprintf(r, "D %d %d\n", id, at)
}
func (r *recorder) State(s trace.State)       { fmt.Fprintf(r, "S %#v\n", s) }
func (r *recorder) Variable(v trace.Variable) { fmt.Fprintf(r, "Va %#v\n", v) }
func (r *recorder) Link(l trace.Link)         { fmt.Fprintf(r, "L %#v\n", l) }
func (r *recorder) Event(e trace.Event)       { fmt.Fprintf(r, "E %#v\n", e) }
func (r *recorder) Finish(a, b trace.Time)    { fmt.Fprintf(r, "F %d %d\n", a, b) }

// decodeInOrder is the read the pipeline must match: each packet read,
// decoded and applied in turn, on one goroutine, the catalog's packets
// walked whole.
func decodeInOrder(data []byte, sink trace.Sink, opt trace.ReadOptions) error {
	others, count := int64(0), 0
	var cut *cutPoint
	packets := func(fn func(pkt []byte, off int64) error) error {
		fr := &framer{r: bytes.NewReader(nil), buf: data}
		count = 0
		for {
			pkt, off, err := fr.next(false)
			if err == io.EOF {
				others, cut = fr.others, fr.cutAt
				return nil
			}
			count++
			if err == nil {
				err = fn(pkt, off)
			}
			if err != nil {
				return located("mem", err)
			}
		}
	}
	cat := newCatalog()
	if err := packets(cat.packet); err != nil {
		return err
	}
	opt.Skip("top-level fields of the trace other than packets", others)
	d := newDecoder(sink, opt, cat)
	if err := packets(d.packet); err != nil {
		return err
	}
	d.finish()
	noteCut(opt, "mem", cut, count)
	return nil
}

// padded is data followed by top-level fields other than packets (a
// varint of field 2, of two or three bytes) up to size bytes.
func padded(data []byte, size int) []byte {
	out := slices.Clone(data)
	if (size-len(out))%2 == 1 {
		out = append(out, 0x10, 0x80, 0x00)
	}
	for len(out) < size {
		out = append(out, 0x10, 0x00)
	}
	return out
}

// gzipped is data compressed with gzip.
func gzipped(data []byte) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(data)
	w.Close()
	return b.Bytes()
}

// TestPipelineOrder reads traces of several megabytes, packets cut by the
// ends of chunks and packets larger than a chunk among them, on one to
// four cores, and traces that fit in one chunk, which are decoded without
// workers, plain and compressed: the sink gets the calls a read in order
// on one goroutine makes, and the notes are the same.
func TestPipelineOrder(t *testing.T) {
	huge := strings.Repeat("h", chunkBytes+12345) // a packet larger than a chunk
	long := strings.Repeat("l", 20000)            // lengths of three bytes
	mixed := cat(slicesTrace(60_000),
		traceOf(pkt(ts(9_000_000_000), te(evType(begin), onTrack(100), named(huge)), seqID(1)),
			pkt(ts(9_000_000_100), te(evType(end), onTrack(100)), seqID(1))),
		slicesTrace(30_000),
		traceOf(pkt(ts(9_000_000_200), te(evType(begin), onTrack(101), named(long)), seqID(1)),
			pkt(ts(9_000_000_300), te(evType(end), onTrack(101)), seqID(1))),
		slicesTrace(100_000))
	cut := mixed[:len(mixed)-7] // a truncated last packet: the packets before it read, the trace incomplete
	// A malformed track event, which only the second pass reads: an
	// error after the calls of the packets before it.
	bad := cat(slicesTrace(100_000), traceOf(pkt(ts(9_000_000_000), sub(11, []byte{0x08}), seqID(1))), slicesTrace(1000))
	small := slicesTrace(40_000) // 0.8 MB
	smallCut := small[:len(small)-7]
	smallBad := cat(slicesTrace(5000), traceOf(pkt(ts(9_000_000_000), sub(11, []byte{0x08}), seqID(1))), slicesTrace(100))
	traces := map[string][]byte{"slices": slicesTrace(400_000), "mixed": mixed, "cut": cut, "bad": bad,
		"small": small, "small cut": smallCut, "small bad": smallBad,
		// One byte less than a chunk: read whole; a chunk: the pipeline's
		// first chunk, then the end.
		"chunk-1": padded(small, chunkBytes-1), "chunk": padded(small, chunkBytes)}
	// Compressed, the file is smaller than its content: its first chunk
	// is read into a buffer that grows.
	plain := map[string][]byte{"small.gz": small, "slices.gz": slicesTrace(100_000), "small cut.gz": smallCut}
	for name, data := range plain {
		traces[name] = gzipped(data)
	}
	for name, data := range traces {
		if plain[name] == nil {
			plain[name] = data
		}
		wantSink, wantNotes := &recorder{}, &trace.Notes{}
		wantErr := decodeInOrder(plain[name], wantSink, trace.ReadOptions{Notes: wantNotes})
		if n := strings.Count(wantSink.String(), "\nS "); n < 2000 && !strings.Contains(name, "cut") {
			t.Fatalf("%s: %d states", name, n)
		}
		for _, procs := range []int{1, 2, 4} {
			prev := runtime.GOMAXPROCS(procs)
			sink, notes := &recorder{}, &trace.Notes{}
			open := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
			err := decode(open, "mem", int64(len(data)), sink, trace.ReadOptions{Notes: notes})
			runtime.GOMAXPROCS(prev)
			if fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Errorf("%s on %d cores: error %v, want %v", name, procs, err, wantErr)
			}
			if got, want := sink.String(), wantSink.String(); got != want {
				t.Errorf("%s on %d cores: %d bytes of calls, want %d; first difference:\n%s", name, procs, len(got), len(want), readertest.FirstDiff(got, want))
			}
			if got, want := fmt.Sprint(notes.Messages()), fmt.Sprint(wantNotes.Messages()); got != want {
				t.Errorf("%s on %d cores: notes %s, want %s", name, procs, got, want)
			}
		}
		if r := wantNotes.IncompleteReasons(); strings.Contains(name, "cut") && (wantErr != nil || len(r) != 1 || !strings.Contains(r[0], "the input ends inside the packet at byte")) {
			t.Errorf("%s trace: error %v, incomplete %q, want the packets before the cut read", name, wantErr, r)
		}
		if strings.HasPrefix(name, "chunk") && !strings.Contains(fmt.Sprint(wantNotes.Messages()), "other than packets") {
			t.Errorf("%s: notes %v, want the padding skipped", name, wantNotes.Messages())
		}
		if strings.HasSuffix(name, "bad") && (wantErr == nil || !strings.Contains(wantErr.Error(), "malformed field 1")) {
			t.Errorf("bad event: error %v, want a malformed field", wantErr)
		}
	}
}

type panicReader struct{}

func (panicReader) Read([]byte) (int, error) { panic("boom") }

// TestPanicReachesCaller: a panic while reading is raised on the caller's
// goroutine, where a caller may recover it, as on a read on one core.
func TestPanicReachesCaller(t *testing.T) {
	open := func() (io.ReadCloser, error) { return io.NopCloser(panicReader{}), nil }
	defer func() {
		if r := recover(); r != "boom" {
			t.Fatalf("recovered %v, want boom", r)
		}
	}()
	decode(open, "mem", 10, &trace.Counter{}, trace.ReadOptions{})
	t.Fatal("no panic")
}
