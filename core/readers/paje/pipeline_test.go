package paje

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// logSink writes down every call it receives, in order.
type logSink struct{ calls []string }

func (l *logSink) log(kind string, v any) { l.calls = append(l.calls, fmt.Sprintf("%s %+v", kind, v)) }

func (l *logSink) DefineType(t trace.Type)           { l.log("type", t) }
func (l *logSink) DefineValue(v trace.Value)         { l.log("value", v) }
func (l *logSink) CreateContainer(c trace.Container) { l.log("create", c) }
func (l *logSink) DestroyContainer(id int32, at trace.Time) {
	l.log("destroy", [2]int64{int64(id), int64(at)})
}
func (l *logSink) State(s trace.State)       { l.log("state", s) }
func (l *logSink) Variable(v trace.Variable) { l.log("variable", v) }
func (l *logSink) Link(k trace.Link)         { l.log("link", k) }
func (l *logSink) Event(e trace.Event)       { l.log("event", e) }
func (l *logSink) Finish(a, b trace.Time)    { l.log("finish", [2]trace.Time{a, b}) }

// outcome is everything a read tells: the calls to the sink and the error.
type outcome struct {
	calls []string
	err   string
}

// readWith reads files (name -> content, in order) with the pipeline in
// chunks of chunk bytes, or line by line when chunk is 0.
func readWith(files [][2]string, opt Options, chunk int, r func(io.Reader) io.Reader) outcome {
	var sink logSink
	d := newDecoder(&sink, opt, 0)
	d.serial, d.chunkSize = chunk == 0, chunk
	// Line by line, the reference, states go through the general path
	// too: the pipeline's reads check plainState against it.
	d.sim.generalStates = chunk == 0
	var err error
	for _, f := range files {
		var in io.Reader = strings.NewReader(f[1])
		if r != nil {
			in = r(in)
		}
		if err = d.decode(in, f[0]); err != nil {
			break
		}
	}
	if err == nil {
		err = d.finish()
	}
	o := outcome{calls: sink.calls}
	if err != nil {
		o.err = describeError(err)
	}
	return o
}

// readMappedWith is readWith of the files written in dir and read
// through decodeFile, mapped when they are not empty (see
// mapSmallFiles): the errors name the files as readWith's do.
func readMappedWith(t testing.TB, dir string, files [][2]string, opt Options, chunk int) outcome {
	var sink logSink
	d := newDecoder(&sink, opt, 0)
	d.chunkSize = chunk
	var err error
	for i, f := range files {
		path := filepath.Join(dir, strconv.Itoa(i)+".trace")
		if err := os.WriteFile(path, []byte(f[1]), 0o644); err != nil {
			t.Fatal(err)
		}
		file, err2 := os.Open(path)
		if err2 != nil {
			t.Fatal(err2)
		}
		err = d.decodeFile(file, f[0])
		file.Close()
		if err != nil {
			break
		}
	}
	if err == nil {
		err = d.finish()
	}
	o := outcome{calls: sink.calls}
	if err != nil {
		o.err = describeError(err)
	}
	return o
}

// sameOutcome fails unless got and want tell the same calls and error.
func sameOutcome(t testing.TB, what string, got, want outcome) {
	t.Helper()
	if got.err != want.err {
		t.Fatalf("%s: error\n%s\nwant:\n%s", what, got.err, want.err)
	}
	if len(got.calls) != len(want.calls) {
		t.Fatalf("%s: %d calls to the sink, want %d", what, len(got.calls), len(want.calls))
	}
	for i := range got.calls {
		if got.calls[i] != want.calls[i] {
			t.Fatalf("%s: call %d is\n%s\nwant:\n%s", what, i, got.calls[i], want.calls[i])
		}
	}
}

// describeError spells out all an error tells, PajeNG's text included.
func describeError(err error) string {
	s := err.Error()
	var fe *errs.FormatError
	if errors.As(err, &fe) {
		s += fmt.Sprintf(" [file %s line %d offset %d]", fe.File, fe.Line, fe.Offset)
	}
	var pe *Error
	if errors.As(err, &pe) {
		s += " [pajeng " + pe.PajeNG + "]"
	}
	return s
}

// sameAsSerial checks that the pipeline, with chunks of several sizes,
// reads files exactly as the line-by-line decoder does, as streams and,
// unless r changes how they are read, mapped.
func sameAsSerial(t *testing.T, what string, files [][2]string, opt Options, r func(io.Reader) io.Reader) {
	t.Helper()
	want := readWith(files, opt, 0, r)
	var dir string
	if r == nil {
		mapSmallFiles(t)
		dir = t.TempDir()
	}
	for _, chunk := range []int{1, 7, 64, 1000, 1 << 16, defaultChunk} {
		sameOutcome(t, fmt.Sprintf("%s, chunks of %d bytes (want: line by line)", what, chunk), readWith(files, opt, chunk, r), want)
		if dir != "" {
			sameOutcome(t, fmt.Sprintf("%s, mapped in chunks of %d bytes (want: line by line)", what, chunk), readMappedWith(t, dir, files, opt, chunk), want)
		}
	}
}

// TestPipelineReadsTheCorpusAsLineByLine reads every Pajé trace of the
// corpus both ways, with the options of pj_dump and ours.
func TestPipelineReadsTheCorpusAsLineByLine(t *testing.T) {
	for _, p := range readertest.PajeCorpus(t, corpus) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > 8<<20 {
			continue // the 1-byte chunks would take too long
		}
		for _, opt := range []Options{{}, PajeNG()} {
			sameAsSerial(t, p, [][2]string{{p, string(b)}}, opt, nil)
		}
	}
}

// TestPipelineAgreesOnBrokenTraces damages a generated trace in every way
// the reader reports, at several places, and checks that errors (file,
// line, offset, text) and what reached the sink before them are the same
// both ways.
func TestPipelineAgreesOnBrokenTraces(t *testing.T) {
	good := generate(genConfig{processes: 4, events: 300, seed: 5})
	lines := strings.SplitAfter(good, "\n")
	damages := map[string]func(string) string{
		"bad date":      func(l string) string { return strings.Replace(l, ".", "..", 1) },
		"exponent date": func(l string) string { return strings.Replace(l, " ", " 1e-3", 2) },
		"bad UTF-8":     func(l string) string { return strings.TrimSuffix(l, "\n") + " \xff\n" },
		"UTF-8 comment": func(l string) string { return strings.TrimSuffix(l, "\n") + " # é\n" },
		"unknown id":    func(l string) string { return "99" + l },
		"missing field": func(l string) string {
			if i := strings.LastIndexByte(strings.TrimSuffix(l, "\n"), ' '); i > 0 {
				return l[:i] + "\n"
			}
			return l
		},
		"extra field":    func(l string) string { return strings.TrimSuffix(l, "\n") + " x\n" },
		"open quote":     func(l string) string { return strings.TrimSuffix(l, "\n") + " \"x\n" },
		"quote and text": func(l string) string { return strings.Replace(l, " p", " \"p\"x", 1) },
		"blank line":     func(l string) string { return "  \t\n" + l },
		"CRLF":           func(l string) string { return strings.TrimSuffix(l, "\n") + "\r\n" },
		"late definition": func(l string) string {
			return "%EventDef PajeNewEvent 99\n% Time date\n% Type string\n% Container string\n% Value string\n%EndEventDef\n" + l
		},
		"open definition":   func(l string) string { return "%EventDef PajeNewEvent 98\n% Time date\n" + l },
		"long line":         func(l string) string { return "# " + strings.Repeat("x", 70000) + "\n" + l },
		"unknown container": func(l string) string { return strings.Replace(l, " p", " q", 1) },
		"time backwards":    func(l string) string { return strings.Replace(l, " 0.", " -5.", 1) },
		"no final newline":  func(l string) string { return strings.TrimSuffix(l, "\n") },
	}
	for name, damage := range damages {
		for _, at := range []int{0, 47, 48, 49, 50, 120, 230, len(lines) - 1} {
			if at >= len(lines) {
				continue
			}
			broken := append([]string(nil), lines...)
			broken[at] = damage(broken[at])
			if name == "no final newline" {
				broken = broken[:at+1]
			}
			sameAsSerial(t, fmt.Sprintf("%s at line %d", name, at+1), [][2]string{{"broken.trace", strings.Join(broken, "")}}, Options{}, nil)
		}
	}
}

// TestPipelineAcrossFiles reads a header file then event files, and input
// that arrives a byte at a time or with a read error.
func TestPipelineAcrossFiles(t *testing.T) {
	sameAsSerial(t, "header then events", [][2]string{{"head.trace", miniHeader}, {"body.trace", "3 1 p1 S a\n3 2 p1 S b\n"},
		{"more.trace", "3 3 p1 S c\n5 4 p1 V 2\n"}}, Options{}, nil)
	sameAsSerial(t, "error in the second file", [][2]string{{"head.trace", miniHeader}, {"body.trace", "3 1 p1 S a\n3 0 p1 S b\n"}}, Options{}, nil)
	in := generate(genConfig{processes: 3, events: 500, seed: 2})
	sameAsSerial(t, "one byte at a time", [][2]string{{"slow.trace", in}}, Options{}, iotest.OneByteReader)
	failing := func(r io.Reader) io.Reader {
		cut := strings.LastIndexByte(in[:len(in)/2], '\n') + 1
		return io.MultiReader(io.LimitReader(r, int64(cut)), iotest.ErrReader(errors.New("disk on fire")))
	}
	sameAsSerial(t, "read error", [][2]string{{"fire.trace", in}}, Options{}, failing)
	if got := readWith([][2]string{{"fire.trace", in}}, Options{}, 4096, failing); !strings.Contains(got.err, "disk on fire") {
		t.Fatalf("read error lost: %q", got.err)
	}
}

// FuzzPipeline reads arbitrary input both ways, in small chunks.
func FuzzPipeline(f *testing.F) {
	readertest.BoundMinimization(f)
	f.Add([]byte(stateSeed), uint16(13))
	f.Add([]byte(miniHeader+"3 1 p1 S a\n%EventDef PajeSetState 9\n% Time date\n"), uint16(5))
	mapSmallFiles(f)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, chunk uint16) {
		if len(data) > maxFuzzInput {
			return
		}
		files := [][2]string{{"fuzz.trace", string(data)}}
		want := readWith(files, Options{}, 0, nil)
		got := readWith(files, Options{}, int(chunk)+1, nil)
		if got.err != want.err || strings.Join(got.calls, "\n") != strings.Join(want.calls, "\n") {
			t.Fatalf("pipeline in chunks of %d: %q, %d calls; line by line: %q, %d calls", chunk+1, got.err, len(got.calls), want.err, len(want.calls))
		}
		sameOutcome(t, fmt.Sprintf("mapped in chunks of %d", chunk+1), readMappedWith(t, dir, files, Options{}, int(chunk)+1), want)
	})
}

// TestPipelineStopsItsGoroutines checks that an error in the middle of a
// large input does not leave the pipeline running.
func TestPipelineStopsItsGoroutines(t *testing.T) {
	in := generate(genConfig{processes: 8, events: 100_000, seed: 4})
	in = in[:len(in)/2] + "99 bad\n" + in[len(in)/2:]
	before := runtime.NumGoroutine()
	d := newDecoder(&trace.Counter{}, Options{}, 0)
	d.chunkSize = 4096
	err := d.decode(bytes.NewReader([]byte(in)), "bad.trace")
	var fe *errs.FormatError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "'99' has not been defined") {
		t.Fatalf("got %v", err)
	}
	// decode waits for its goroutines; give them a moment to vanish.
	for i := 0; runtime.NumGoroutine() > before; i++ {
		if i == 100 {
			t.Fatalf("%d goroutines left running", runtime.NumGoroutine()-before)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestPipelineAlternatingStateTypes reads state events of two state types
// (and a variable type, which SetState refuses) in turn, in two
// containers, both ways: keyedState keeps the last type it looked up.
func TestPipelineAlternatingStateTypes(t *testing.T) {
	head := miniHeader + "2 T P \"Other\"\n1 0 p2 P 0 \"p2\"\n"
	var body strings.Builder
	for i := range 200 {
		typ := [...]string{"S", "S", "T", "S", "T", "T"}[i%6]
		fmt.Fprintf(&body, "3 %d p%d %s v%d\n", i, 1+i%3%2, typ, i%4)
	}
	sameAsSerial(t, "two state types", [][2]string{{"types.trace", head + body.String()}}, Options{}, nil)
	sameAsSerial(t, "a variable type set as a state", [][2]string{{"wrong.trace", head + body.String() + "3 300 p1 V v1\n"}}, Options{}, nil)
	sameAsSerial(t, "an unknown type", [][2]string{{"unknown.trace", head + body.String() + "3 300 p1 U v1\n"}}, Options{}, nil)
}
