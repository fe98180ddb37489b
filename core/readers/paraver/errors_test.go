package paraver

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

const twoThreads = "#Paraver (x):1000_ns:2(1,1):1:2(1:1,1:2)\n"

func decode(in []byte, view viewKind) (*trace.Trace, error) {
	tr := trace.New()
	return tr, decodeStream(bytes.NewReader(in), "t.prv", 0, nil, view, tr, trace.ReadOptions{})
}

// decodeNotes decodes in and returns the messages of its notes.
func decodeNotes(in []byte, view viewKind) (*trace.Trace, []string, error) {
	tr := trace.New()
	notes := &trace.Notes{}
	err := decodeStream(bytes.NewReader(in), "t.prv", 0, nil, view, tr, trace.ReadOptions{Notes: notes})
	return tr, notes.Messages(), err
}

func TestSynthetic(t *testing.T) {
	in := twoThreads +
		"# a comment\n" +
		"\n" +
		"1:2:1:2:1:0:10:1\n" +
		"1:1:1:1:1:5:5:3\n" +
		"2:1:1:1:1:7:100:1:200:42\n" +
		"3:1:1:1:1:10:11:2:1:2:1:12:20:64:7\n" +
		"4:2:1:2:1:30:1:8:8:11:0\n" +
		"c:1:2:2:1:2\n" +
		"1:1:1:1:1:5:1500:2\r\n"
	tr, err := decode([]byte(in), threadView)
	if err != nil {
		t.Fatal(err)
	}
	type st struct {
		cont, value string
		start, end  trace.Time
	}
	var states []st
	for _, s := range tr.States.All() {
		states = append(states, st{tr.Containers[s.Container].Alias, tr.ValueName(s.Value), s.Start, s.End})
	}
	want := []st{{"1.2.1", "1", 0, 10}, {"1.1.1", "3", 5, 5}, {"1.1.1", "2", 5, 1500}}
	if !equal(states, want) {
		t.Errorf("states %v, want %v", states, want)
	}
	var events []string
	for _, e := range tr.Events.All() {
		events = append(events, tr.Types[e.Type].Alias+"|"+tr.TypeName(e.Type)+"="+tr.ValueName(e.Value)+"@"+tr.Containers[e.Container].Alias+"@"+e.Time.String())
	}
	wantEvents := []string{"100|100=1@1.1.1@0.000000007", "200|200=42@1.1.1@0.000000007", "|Global operation=11@1.2.1@0.000000030"}
	if !equal(events, wantEvents) {
		t.Errorf("events %v, want %v", events, wantEvents)
	}
	if tr.Links.Len() != 1 {
		t.Fatalf("%d links", tr.Links.Len())
	}
	l := tr.Links.At(0)
	if tr.Containers[l.From].Alias != "1.1.1" || tr.Containers[l.To].Alias != "1.2.1" || l.Start != 10 || l.End != 20 || l.Size != 64 || tr.ValueName(l.Value) != "7" || l.Container != 0 {
		t.Errorf("link %+v", l)
	}
	// The last record ends after the duration the header gives.
	if tr.Start != 0 || tr.End != 1500 {
		t.Errorf("range [%d, %d]", tr.Start, tr.End)
	}

	byCPU, err := decode([]byte(in), cpuView)
	if err != nil {
		t.Fatal(err)
	}
	if got := byCPU.ContainerPath(byCPU.States.At(0).Container, "/"); got != "NODE 2/CPU 2" {
		t.Errorf("by CPU, the first state is on %q", got)
	}
}

func equal[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestErrors(t *testing.T) {
	for _, c := range []struct {
		in   string
		view viewKind
		line int
		want string
	}{
		{"", threadView, 1, "empty input"},
		{"hello\n", threadView, 1, "not a Paraver trace"},
		{"#Paraver (x):1:0:1:1(1:0)\xff\n", threadView, 1, "not valid UTF-8"},
		{twoThreads + "1:1:1:1:1:0:5\n", threadView, 2, "a state record has 8 fields, this one has 7"},
		{twoThreads + "1:1:1:1:1:0:5:x\n", threadView, 2, `field 8 is "x"`},
		{twoThreads + "1:1:1:1:1:0:5:99999999999999999999\n", threadView, 2, "beyond 64 bits"},
		{twoThreads + "1:1:1:1:1:0:5:1x\n", threadView, 2, "not an integer"},
		{twoThreads + "1:1:1:1:1:9:5:1\n", threadView, 2, "ends at 5, before it begins at 9"},
		{twoThreads + "1:1:1:1:1:-1:5:1\n", threadView, 2, "negative time"},
		{"#Paraver (x):1:0:1:1(1:0)\n1:0:1:1:1:0:9223372036854776:1\n", threadView, 2, "time 9223372036854776: out of range"},
		{twoThreads + "1:3:1:1:1:0:5:1\n", threadView, 2, "CPU 3 does not exist"},
		{twoThreads + "1:1:2:1:1:0:5:1\n", threadView, 2, "application 2 does not exist"},
		{twoThreads + "1:1:1:3:1:0:5:1\n", threadView, 2, "task 1.3 does not exist"},
		{twoThreads + "1:1:1:1:2:0:5:1\n", threadView, 2, "thread 1.1.2 does not exist"},
		{twoThreads + "1:0:1:1:1:0:5:1\n", cpuView, 2, "names no CPU"},
		{"#Paraver (x):1:0:1:1(1:0)\n", cpuView, 1, "cannot be read by CPU"},
		{twoThreads + "2:1:1:1:1:0:5\n", threadView, 2, "type:value pairs"},
		{twoThreads + "2:1:1:1:1:0:5:1:6\n", threadView, 2, "type:value pairs"},
		{twoThreads + "3:1:1:1:1:10:11:2:1:2:1:12:9:64:7\n", threadView, 2, "received at 9, before it is sent at 10"},
		{twoThreads + "3:1:1:1:1:10:11:2:1:2:1:12:20:-1:7\n", threadView, 2, "negative communication size"},
		{twoThreads + "3:1:1:1:1:10:11:2:1:2:1:12:20:64\n", threadView, 2, "15 fields"},
		{twoThreads + "4:1:1:1:1:10:1:1:1:1\n", threadView, 2, "11 fields"},
		{twoThreads + "\n\n5:1:1:1:1:0\n", threadView, 4, "unknown record type '5'"},
		{twoThreads + "12345\n", threadView, 2, "expected a record"},
		{twoThreads + "1:\n", threadView, 2, "not an integer"},
	} {
		_, notes, err := decodeNotes([]byte(c.in), c.view)
		if c.line > 1 {
			// A bad record is skipped, as Paraver skips it, and counted
			// with its cause.
			if err != nil {
				t.Errorf("%q: %v, want the record skipped", c.in, err)
				continue
			}
			var skips []string
			for _, n := range notes {
				if !strings.HasPrefix(n, "incomplete: ") {
					skips = append(skips, n)
				}
			}
			if len(skips) != 1 || !strings.Contains(skips[0], c.want) ||
				!strings.Contains(skips[0], fmt.Sprintf("(first: line %d: ", c.line)) {
				t.Errorf("%q: notes %q, want one about line %d and %q", c.in, notes, c.line, c.want)
			}
			continue
		}
		var fe *errs.FormatError
		if !errors.As(err, &fe) {
			t.Errorf("%q: got %v, want a FormatError", c.in, err)
			continue
		}
		if !strings.Contains(fe.Err.Error(), c.want) || fe.Line != c.line || fe.File != "t.prv" {
			t.Errorf("%q: got %v (line %d), want line %d and %q", c.in, fe, fe.Line, c.line, c.want)
		}
	}
}

// TestBadRecordsSkipped: the records around a bad one are read, and the
// notes count the skipped records by kind.
func TestBadRecordsSkipped(t *testing.T) {
	in := twoThreads + "1:1:1:1:1:0:5:1\n1:1:1:1:1:9:5:1\n1:1:1:1:1:9:x:1\n2:1:1:1:1:0:5\n1:1:1:1:2:0:5:1\n" +
		"1:2:1:2:1:5:7:2\n9:junk\n"
	tr, notes, err := decodeNotes([]byte(in), threadView)
	if err != nil {
		t.Fatal(err)
	}
	if tr.States.Len() != 2 {
		t.Errorf("%d states, want the 2 good ones", tr.States.Len())
	}
	want := []string{
		"skipped 3 state records (1:) that Paraver's reader also rejects (first: line 3: state ends at 5, before it begins at 9)",
		"skipped 1 event records (2:) that Paraver's reader also rejects (first: line 5: an event record has 6 fields and type:value pairs, this one has 7 fields)",
		"skipped 1 lines that are not records that Paraver's reader also rejects (first: line 8: field 2 is \"junk\", not an integer)",
	}
	if !equal(notes, want) {
		t.Errorf("notes:\n%q\nwant\n%q", notes, want)
	}
}

// TestStateWithoutEnd: a state whose end is -1 lasts, as in Paraver, until
// the end of the trace the header gives.
func TestStateWithoutEnd(t *testing.T) {
	tr, notes, err := decodeNotes([]byte(twoThreads+"1:1:1:1:1:100:-1:1\n"), threadView)
	if err != nil || len(notes) != 0 {
		t.Fatalf("%v %q", err, notes)
	}
	if tr.States.Len() != 1 || tr.States.At(0).Start != 100 || tr.States.At(0).End != tr.End {
		t.Errorf("states %+v, trace ends at %d", tr.States, tr.End)
	}
}

func TestTruncatedGzip(t *testing.T) {
	needFiles(t, qsort+".gz")
	full, err := os.ReadFile(qsort + ".gz")
	if err != nil {
		t.Fatal(err)
	}
	// Cut in the header, or before a line comes out: nothing to read.
	for _, cut := range []int{5, 20} {
		_, err := decode(full[:cut], threadView)
		var fe *errs.FormatError
		if !errors.As(err, &fe) {
			t.Errorf("cut at %d: got %v", cut, err)
		}
	}
	// Cut later: read as the plain file cut where decompression stops,
	// and noted incomplete at the byte of the cut.
	for _, cut := range []int{len(full) / 2, len(full) - 4} {
		got, notes, err := decodeNotes(full[:cut], threadView)
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		want, _, err := decodeNotes(readertest.Decompressible(t, full[:cut], "gzip"), threadView)
		if err != nil {
			t.Fatalf("cut at %d, plain: %v", cut, err)
		}
		if diff := readertest.Difference(got, want); diff != "" || got.States.Len() == 0 {
			t.Errorf("cut at %d: %d states, not those of the plain cut: %s", cut, got.States.Len(), diff)
		}
		where := fmt.Sprintf("incomplete: t.prv: the compressed data ends at byte %d,", cut)
		if !slices.ContainsFunc(notes, func(n string) bool { return strings.HasPrefix(n, where) }) {
			t.Errorf("cut at %d: notes %q, want %q", cut, notes, where)
		}
	}
}

func TestBadConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := dir + "/" + name
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		pcf, row string
		line     int
		want     string
	}{
		{pcf: "STATES\n0 Idle\nx Bad\n", line: 3, want: "expected a number"},
		{pcf: "VALUES\n1 a\n", line: 2, want: "VALUES without an EVENT_TYPE"},
		{pcf: "EVENT_TYPE\n6\n", line: 2, want: "expected a gradient, a type and a name"},
		{pcf: "EVENT_TYPE\n6 x name\n", line: 2, want: "bad event type"},
		{pcf: "STATES_COLOR\n0 {1,2}\n", line: 2, want: "not {r,g,b}"},
		{pcf: "STATES\n0 \xe9t\xe9\n", line: 2, want: "not valid UTF-8"},
		{row: "LEVEL THREAD SIZE 2\nTHREAD 1.1.1\n", line: 2, want: "declares 2 names"},
		{row: "LEVEL THREAD\n", line: 1, want: "LEVEL <name> SIZE <n>"},
		{row: "LEVEL THREAD SIZE x\n", line: 1, want: "bad size"},
	} {
		var pcf, row string
		if c.pcf != "" {
			pcf = write("t.pcf", c.pcf)
		}
		if c.row != "" {
			row = write("t.row", c.row)
		}
		_, err := loadConfig(pcf, row)
		var fe *errs.FormatError
		if !errors.As(err, &fe) || fe.Line != c.line || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q%q: got %v, want line %d and %q", c.pcf, c.row, err, c.line, c.want)
		}
	}
	// A trace whose .pcf is broken does not read.
	prv := write("t.prv", twoThreads)
	write("t.pcf", "STATES\nbad\n")
	if _, err := readFile(prv); err == nil || !strings.Contains(err.Error(), "t.pcf:2") {
		t.Errorf("broken .pcf: %v", err)
	}
}

// maxFuzzInput bounds the inputs FuzzDecode reads: the fuzzer minimizes
// every new input at one execution per byte removed, so long inputs
// would stall it.
const maxFuzzInput = 8 << 10

// FuzzDecode checks that no input makes the reader panic, that every
// failure is a FormatError naming the file, that the calls to the sink
// keep its contract, and that the states lie within the trace, in one of
// the two views (chosen by an input byte).
func FuzzDecode(f *testing.F) {
	readertest.BoundMinimization(f)
	records := "1:2:1:2:1:0:10:1\n2:1:1:1:1:7:100:1:200:42\n3:1:1:1:1:10:11:2:1:2:1:12:20:64:7\n4:2:1:2:1:30:1:8:8:11:0\nc:1:2:2:1:2\n"
	f.Add([]byte(twoThreads+records), uint8(0))
	f.Add([]byte(twoThreads+records), uint8(1))
	f.Add(readertest.Compress(f, []byte(twoThreads+records), "gzip"), uint8(0))
	f.Add([]byte("#Paraver (x):1000_ns:2(2,1):2:2(2:1,1:2),1(1:1)\n1:3:1:1:2:0:1000:1\n1:1:2:1:1:5:9:2\n"), uint8(1))
	// The head of a real trace, cut after a line.
	if b, err := os.ReadFile(qsort); err == nil {
		head := b[:bytes.LastIndexByte(b[:2048], '\n')+1]
		f.Add(head, uint8(0))
	}
	// A header of a few bytes may declare a million threads, each a
	// container: valid, but too slow for fuzzing.
	saved := maxResources
	f.Cleanup(func() { maxResources = saved })
	maxResources = 64
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		if len(data) > maxFuzzInput {
			return
		}
		view := []viewKind{threadView, cpuView}[which%2]
		tr := trace.New()
		sink := readertest.NewContract(tr)
		err := decodeStream(bytes.NewReader(data), "t.prv", int64(len(data)), nil, view, sink, trace.ReadOptions{})
		readertest.CheckRead(t, "t.prv", err, sink)
		if err != nil {
			return
		}
		for _, s := range tr.States.All() {
			if s.Container <= 0 || s.End > tr.End {
				t.Fatalf("bad state %+v in a trace ending at %v", s, tr.End)
			}
		}
	})
}

// TestCutLastLine: a last line without its end marks the trace incomplete.
func TestCutLastLine(t *testing.T) {
	const head = "#Paraver (x):1000_ns:1(1):1:1(1:1)\n1:1:1:1:1:0:1000:1\n"
	for _, c := range []struct {
		in  string
		cut bool
	}{{head, false}, {head + "1:1:1:1:1:0:1", true}, {head + "2:1:1:1:1:5:7:1", true}} {
		_, notes, err := decodeNotes([]byte(c.in), threadView)
		if err != nil {
			t.Fatal(err)
		}
		cut := len(notes) > 0 && strings.HasPrefix(notes[0], "incomplete: t.prv: the last line (3) has no end of line")
		if cut != c.cut {
			t.Errorf("%q: notes %q, cut %v", c.in, notes, c.cut)
		}
	}
}
