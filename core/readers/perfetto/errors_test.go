package perfetto

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// goodTrace is a small valid trace the error cases cut or spoil.
func goodTrace() (first, second []byte) {
	first = traceOf(pkt(trackDesc(1, trackName("t"))))
	second = traceOf(pkt(ts(10), te(evType(instant), onTrack(1), named("i"))))
	return first, second
}

func TestCorruptInput(t *testing.T) {
	first, second := goodTrace()
	whole := cat(first, second)
	cases := []struct {
		name   string
		data   []byte
		offset int64
		msg    string
	}{
		{"cut first packet", whole[:len(first)-1], 0, "truncated packet: 8 bytes announced, 7 present"},
		{"cut length of the first packet", []byte{0x0a, 0x80}, 0, "ends inside a length"},
		{"cut tag of the first field", []byte{0x80}, 0, "ends inside a field tag"},
		{"invalid wire type in an event", traceOf(pkt(sub(11, []byte{0x0f}))), 4, "invalid wire type 7"},
		{"cut field in an event", traceOf(pkt(sub(11, []byte{0x5a, 0x05, 'a'}))), 4, "malformed field 11: it announces 5 bytes, past the end"},
		{"group at the top", cat(first, []byte{0x0b, 0x0c}), int64(len(first)), "wire type 3"},
		{"field number 0", cat(first, []byte{0x02, 0x00}), int64(len(first)), "invalid field number 0"},
		{"huge packet", cat(first, []byte{0x0a, 0x80, 0x80, 0x80, 0x80, 0x10}), int64(len(first)), "more than a trace packet may hold"},
		{"varint overflow", cat(first, bytes.Repeat([]byte{0xff}, 11)), int64(len(first)), "malformed varint"},
		{"broken compressed packets", traceOf(pkt(sub(50, []byte("not zlib")))), 5, "broken compressed packets"},
		{"corrupt inside compressed packets", traceOf(pkt(sub(50, zlibbed(t, traceOf(pkt(sub(11, []byte{0x0f}))))))), 5, "in compressed packets"},
		{"compact sched columns", traceOf(pkt(sub(1, sub(4, str(5, "c"), sub(1, []byte{1, 2}), sub(3, []byte{1}), sub(6, []byte{0, 0}))))), 6, "columns differ"},
		{"compact sched comm index", traceOf(pkt(sub(1, sub(4, str(5, "c"), sub(1, []byte{1}), sub(3, []byte{1}), sub(6, []byte{4}))))), 6, "intern table"},
	}
	for _, c := range cases {
		_, _, err := readBytes(c.data)
		var fe *errs.FormatError
		if !errors.As(err, &fe) {
			t.Errorf("%s: err = %v, want a FormatError", c.name, err)
			continue
		}
		if fe.File != "mem.pftrace" || fe.Offset != c.offset || !strings.Contains(fe.Err.Error(), c.msg) {
			t.Errorf("%s: got %q at offset %d, want %q at offset %d", c.name, err, fe.Offset, c.msg, c.offset)
		}
	}
}

// TestFiles covers reading from a path: gzip-compressed input, a
// directory, a missing file.
func TestFiles(t *testing.T) {
	dir := t.TempDir()
	first, second := goodTrace()
	path := filepath.Join(dir, "t.pftrace.gz")
	if err := os.WriteFile(path, readertest.Compress(t, cat(first, second), "gzip"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := readFile(path)
	if err != nil {
		t.Fatal(err)
	}
	checkRender(t, tr, `
		container t Track alias=1
		event t Instant "i" 10
		span 10 10
	`)
	var fe *errs.FormatError
	if err := Read(dir, trace.New(), trace.ReadOptions{}); !errors.As(err, &fe) {
		t.Errorf("directory: err = %v, want a FormatError", err)
	}
	if err := Read(filepath.Join(dir, "absent"), trace.New(), trace.ReadOptions{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: err = %v", err)
	}
	empty := filepath.Join(dir, "empty.pftrace")
	os.WriteFile(empty, nil, 0o644)
	tr, err = readFile(empty)
	if err != nil || len(tr.Containers) != 1 || tr.End != 0 {
		t.Errorf("empty file: %v, %d containers", err, len(tr.Containers))
	}
}

func TestSniff(t *testing.T) {
	first, second := goodTrace()
	long := traceOf(pkt(ts(1), seqID(1), sub(33, bytes.Repeat([]byte{0x08, 0x01}, 400))))
	yes := map[string][]byte{
		"two packets":     cat(first, second),
		"one packet":      first,
		"cut long packet": long[:512],
	}
	for name, head := range yes {
		if !sniff(head) {
			t.Errorf("%s: not recognised", name)
		}
	}
	no := map[string][]byte{
		"empty":          nil,
		"text":           []byte("\nhello world, this is text: not a trace at all\n"),
		"pajé":           []byte("%EventDef PajeDefineContainerType 0\n"),
		"json":           []byte(`{"traceEvents": []}`),
		"gzip":           {0x1f, 0x8b, 0x08},
		"zero length":    {0x0a, 0x00},
		"bad second":     cat(first, []byte{0x12, 0x00}),
		"unknown field":  traceOf(pkt(vint(14, 1))),
		"varint as data": traceOf(pkt(vint(11, 1))),
	}
	for name, head := range no {
		if sniff(head) {
			t.Errorf("%s: recognised", name)
		}
	}
	// Random bytes that start like a trace are still refused.
	seed := uint64(88172645463325252)
	claimed := 0
	for i := 0; i < 20000; i++ {
		head := make([]byte, 512)
		for j := range head {
			seed ^= seed << 13
			seed ^= seed >> 7
			seed ^= seed << 17
			head[j] = byte(seed)
		}
		head[0] = 0x0a
		if sniff(head) {
			claimed++
		}
	}
	if claimed > 0 {
		t.Errorf("%d of 20000 random heads starting with 0x0a recognised", claimed)
	}
}

// Compressed packets inside compressed packets are refused (Perfetto
// compresses once; nested, they would multiply at each level).
func TestNestedCompressedPackets(t *testing.T) {
	inner := traceOf(pkt(sub(50, zlibbed(t, traceOf(pkt(sub(11, []byte{})))))))
	data := traceOf(pkt(sub(50, zlibbed(t, inner))))
	_, _, err := readBytes(data)
	var fe *errs.FormatError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "compressed packets inside compressed packets") {
		t.Errorf("%v", err)
	}
}

// Timestamps of 2^63 ns and more are refused at the field, not read as
// negative times; an empty file is marked incomplete, not read as a
// complete trace of nothing.
func TestHostileTimesAndEmpty(t *testing.T) {
	for _, data := range [][]byte{
		traceOf(pkt(ts(1<<63), sub(11, vint(9, 1)))),
		traceOf(pkt(ts(math.MaxUint64))),
	} {
		_, _, err := readBytes(data)
		var fe *errs.FormatError
		// The packet's tag and length take 2 bytes: the timestamp's tag is the third.
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), "past 2^63-1 ns") || !fe.HasOffset() || fe.Offset != 2 {
			t.Errorf("%v", err)
		}
	}
	if _, _, err := readBytes(traceOf(pkt(ts(math.MaxInt64)))); err != nil {
		t.Errorf("the largest timestamp: %v", err)
	}
	_, notes, err := readBytes(nil)
	if err != nil || len(notes.IncompleteReasons()) != 1 || !strings.Contains(notes.IncompleteReasons()[0], "no trace packet") {
		t.Errorf("empty: %v, %q", err, notes.IncompleteReasons())
	}
}

// Names that are not UTF-8 are delivered with U+FFFD in place of their
// invalid bytes, and the read says so.
func TestInvalidUTF8Names(t *testing.T) {
	data := traceOf(pkt(ts(5), sub(11, vint(9, 3), str(23, "compute\xff\xfe"), vint(11, 1))))
	tr, notes, err := readBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, v := range tr.Values {
		if !utf8.ValidString(v.Name) {
			t.Errorf("value %q", v.Name)
		}
		found = found || strings.HasPrefix(v.Name, "compute\uFFFD")
	}
	if !found || !strings.Contains(strings.Join(notes.Messages(), " "), "not valid UTF-8") {
		t.Errorf("values %v, notes %q", tr.Values, notes.Messages())
	}
}

// Android's other trace files, given to this reader, are refused as what
// they are with the way to a Perfetto trace: systrace's ftrace text (the
// head of Catapult's trivial_systrace test trace) and an HTML trace
// viewer page; a trace viewer page is no ftrace text, nor the reverse.
func TestAndroidTextTracesNamed(t *testing.T) {
	ftrace := "# tracer: nop\n#\n#            TASK-PID    CPU#    TIMESTAMP  FUNCTION\n#               | |       |          |         |\n" +
		"     hwc_eventmon-336   [000] 50260.929925: 0: C|124|VSYNC|1\n"
	html := "<!DOCTYPE HTML>\n<html>\n<head><title>Android System Trace</title></head>\n<body><script>var linuxPerfData = \"\\\n" + ftrace[:14] + "\";</script>"
	for _, c := range []struct{ data, want string }{
		{ftrace, "an ftrace text trace"},
		{"\ufeff\r\n" + ftrace, "an ftrace text trace"},
		{html, "an HTML page, not a trace file"},
		{"  <html><body>trace2html</body></html>", "an HTML page, not a trace file"},
	} {
		_, _, err := readBytes([]byte(c.data))
		var fe *errs.FormatError
		if !errors.As(err, &fe) || fe.Offset != 0 || !strings.Contains(fe.Err.Error(), c.want) || !strings.Contains(fe.Err.Error(), "Perfetto") {
			t.Errorf("%.30q: %v, want %q and the way to a Perfetto trace", c.data, err, c.want)
		}
	}
	if ftraceText([]byte(html)) || htmlPage([]byte(ftrace)) || explain([]byte("%EventDef PajeDefineContainerType 1")) != "" {
		t.Error("a file taken for another")
	}
}

// TestCutAfterWholePackets reads a trace cut after whole packets, as a
// tracing service stopped abruptly (or a copy of its file cut) leaves it:
// the packets before the cut are read, as Perfetto's trace processor
// reads them, and the notes say where the input ends and that the trace
// is incomplete, so that strict=True refuses it. The packets read are
// those of the whole trace up to there.
func TestCutAfterWholePackets(t *testing.T) {
	first, second := goodTrace()
	whole := cat(first, second)
	want := mustReadRender(t, first)
	cases := []struct {
		name string
		data []byte
		note string
	}{
		{"cut packet", whole[:len(whole)-3], "the input ends inside the packet at byte 10 (12 bytes announced, 9 present)"},
		{"cut length", cat(first, []byte{0x0a, 0x80}), "the input ends inside a length at byte 10"},
		{"cut tag", cat(first, []byte{0x80}), "the input ends inside a field tag at byte 10"},
		{"length past the input", cat(first, []byte{0x0a, 0x80, 0x80, 0x80, 0x32, 1, 2, 3}), "the input ends inside the packet at byte 10 (104857600 bytes announced, 3 present)"},
	}
	for _, c := range cases {
		tr, notes, err := readBytes(c.data)
		if err != nil {
			t.Errorf("%s: %v, want the first packet read", c.name, err)
			continue
		}
		if got := render(tr); got != want {
			t.Errorf("%s: read\n%s\nwant\n%s", c.name, got, want)
		}
		wantNote := "mem.pftrace: " + c.note + ", as when the tracing service, or a copy of its file, stopped abruptly: the 1 whole packets before it were read"
		if r := notes.IncompleteReasons(); len(r) != 1 || r[0] != wantNote {
			t.Errorf("%s: incomplete %q, want %q", c.name, r, wantNote)
		}
	}
}

// mustReadRender is the rendering of the trace data holds whole.
func mustReadRender(t *testing.T, data []byte) string {
	t.Helper()
	tr, notes := mustRead(t, data)
	if r := notes.IncompleteReasons(); len(r) != 0 {
		t.Fatalf("whole trace: incomplete %q", r)
	}
	return render(tr)
}

// TestCompressedCut: a compressed trace cut in the middle reads as the
// plain trace cut where its decompression stops (its whole packets),
// noted incomplete at the byte of the cut.
func TestCompressedCut(t *testing.T) {
	data, err := os.ReadFile(corpusFile(t, "perfetto/nested_tracks.perfetto-trace"))
	if err != nil {
		t.Fatal(err)
	}
	readertest.CheckCompressedCut(t, Format, "nested_tracks.perfetto-trace", data)
}
