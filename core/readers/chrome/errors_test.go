package chrome

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// decodeError decodes input that must fail and returns the FormatError.
func decodeError(t *testing.T, input []byte) *errs.FormatError {
	t.Helper()
	tr := trace.New()
	err := Decode(bytes.NewReader(input), "bad.json", 0, tr, trace.ReadOptions{})
	var fe *errs.FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("%q: got error %v (%T), want a *errs.FormatError", input, err, err)
	}
	if fe.File != "bad.json" {
		t.Errorf("error names file %q", fe.File)
	}
	if len(tr.Containers) != 1 || len(tr.Types) != 0 {
		t.Errorf("%q: the sink received calls before the error", input)
	}
	return fe
}

const okEvent = `{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1}`

// TestErrors checks the malformed inputs that are refused, and where the
// error says the problem is: the line past the first, the byte offset
// always (a trace written on one line has only that).
func TestErrors(t *testing.T) {
	for _, c := range []struct {
		in   string
		line int // 0: the first line, where only the offset is given
		want string
	}{
		{"", 0, "empty input"},
		{"  \n ", 2, "empty input"},
		{"hello", 0, "not a Chrome trace"},
		{"{", 0, "input ends inside the trace object"},
		{`{"traceEvents": {}}`, 0, "traceEvents is not an array"},
		{`{"displayTimeUnit": "ns"}`, 0, "no traceEvents array"},
		{`{"traceEvents": [}`, 0, "expected an event object"},
		{"[" + okEvent + "] x", 0, "unexpected 'x' after the end of the trace"},
		{"[{\"ph\":\"X\" \"name\":\"a\"}]", 0, "expected ',' or '}' in an event"},
		{"[1, 2]", 0, "expected an event object, found '1'"},
		{"[{\"name\":\"a\xff\"}]", 0, "not valid UTF-8"},
		{`[{"name":"a\qb"}]`, 0, `bad escape 'q'`},
		{`[{"name":"\u12"}]`, 0, `bad \u escape`},
		{`[{"ph":"X","ts":01}]`, 0, `bad number "01"`},
		{`[{"ph":"X","ts":1e999}]`, 0, `ts "1e999"`},
		{`[{"ph":"X","ts":true}]`, 0, "ts must be a number"},
		{`[{"ph":"X","ts":1,,}]`, 0, "expected a string, found ','"},
		{`[{"ph":"X","ts":1},,]`, 0, "expected an event object, found ','"},
		{`[{"ph":"X","pid":[1]}]`, 0, "pid must be a number or a string"},
		{`[{"x": tru}]`, 0, "bad literal"},
		{`[{"x": [[[[` + strings.Repeat("[", 600), 0, "nested more than 512 deep"},
		{"[\n{\"ph\":\"X\" \"name\":\"a\"}]", 2, "expected ',' or '}' in an event"},
	} {
		fe := decodeError(t, []byte(c.in))
		if !strings.Contains(fe.Err.Error(), c.want) {
			t.Errorf("%q: got %q, want it to contain %q", c.in, fe.Err, c.want)
		}
		if fe.Line != c.line {
			t.Errorf("%q: error on line %d, want line %d (%v)", c.in, fe.Line, c.line, fe)
		}
		if c.line == 0 && fe.Offset > 0 && !strings.Contains(fe.Error(), fmt.Sprintf(": byte %d: ", fe.Offset)) {
			t.Errorf("%q: the message %q does not give the byte offset %d", c.in, fe, fe.Offset)
		}
	}
}

// TestErrorOffsetOneLine checks that an error in a trace written on one
// line names its byte offset.
func TestErrorOffsetOneLine(t *testing.T) {
	in := "[" + okEvent + "," + okEvent + ",{\"ph\":\"X\" 7}]"
	fe := decodeError(t, []byte(in))
	want := int64(strings.Index(in, "7"))
	if fe.Offset != want || fe.Line != 0 {
		t.Errorf("got line %d offset %d, want offset %d", fe.Line, fe.Offset, want)
	}
	if msg := fmt.Sprintf("bad.json: byte %d: expected ',' or '}' in an event, found '7'", want); fe.Error() != msg {
		t.Errorf("got %q, want %q", fe.Error(), msg)
	}
}

// TestErrorOffset checks that errors give the byte offset too.
func TestErrorOffset(t *testing.T) {
	in := "[\n" + okEvent + ",\n{\"ph\":\"X\" 7}]"
	fe := decodeError(t, []byte(in))
	if want := int64(strings.Index(in, "7")); fe.Offset != want || fe.Line != 3 {
		t.Errorf("got line %d offset %d, want line 3 offset %d", fe.Line, fe.Offset, want)
	}
}

// TestErrorAfterSeparators checks the line and offset of an error after
// events separated in several layouts: the reader passes ",{", ",\n{"
// and ",\n  {" in one step, the others byte by byte.
func TestErrorAfterSeparators(t *testing.T) {
	for _, seps := range [][]string{{",{", ",\n{"}, {",\n{", ", {", ",\n\n{"}, {",\r\n{", ",\n  {", ",{", ",\n{"}, {",\n  {", ",\n {", ",\n   {", ",\n\t{", ",\n  {"}} {
		in := "[\n" + okEvent
		for _, sep := range seps {
			in += sep + okEvent[1:]
		}
		in += ",\n{\"ph\":\"X\" 7}]"
		fe := decodeError(t, []byte(in))
		at := strings.Index(in, "7")
		if line := strings.Count(in[:at], "\n") + 1; fe.Offset != int64(at) || fe.Line != line {
			t.Errorf("%q: got line %d offset %d, want line %d offset %d", in, fe.Line, fe.Offset, line, at)
		}
	}
}

// TestTruncated checks inputs whose writer stopped abruptly: the events
// complete until the cut are read and the trace is noted incomplete,
// naming the byte where the cut event starts. An array form that only
// lacks its closing bracket (and may end with a comma) is complete.
func TestTruncated(t *testing.T) {
	ev := func(name string, ts int) string {
		return fmt.Sprintf(`{"ph":"X","name":%q,"pid":1,"tid":1,"ts":%d,"dur":1}`, name, ts)
	}
	two := "[" + ev("a", 1) + ",\n" + ev("b", 2)
	cutInside := func(in string, line int) string {
		where := fmt.Sprintf("byte %d", strings.LastIndex(in, "{"))
		if line > 1 {
			where += fmt.Sprintf(" (line %d)", line)
		}
		return "the input ends inside an event starting at " + where
	}
	object := `{"traceEvents":[` + ev("a", 1) + "," + ev("b", 2)
	closed := `{"traceEvents":[` + ev("a", 1) + "]"
	other := closed + `, "otherData": {"x": "y`
	withArgs := two + `,{"ph":"X","name":"c","pid":1,"tid":1,"ts":3,"dur":1,"args":{"x":tr`
	for _, c := range []struct {
		in         string
		states     int
		incomplete string
	}{
		{two, 2, ""},
		{two + ",", 2, ""},
		{two + ",\n ", 2, ""},
		{two + ",\n" + ev("c", 3)[:20], 2, cutInside(two+",\n{", 3) + ", as when the program writing it stopped abruptly: the 2 complete events before it were read"},
		{withArgs, 2, cutInside(two+",{", 2) + ", as when the program writing it stopped abruptly: the 2 complete events before it were read"},
		{object, 2, fmt.Sprintf("the input ends at byte %d before the end of the event array: the 2 complete events before it were read", len(object))},
		{closed, 1, fmt.Sprintf("the input ends at byte %d inside the trace object, after its 1 events", len(closed))},
		{other, 1, fmt.Sprintf("the input ends at byte %d inside the trace object, after its 1 events", len(other))},
	} {
		tr, notes := decodeNotes(t, c.in)
		if tr.States.Len() != c.states {
			t.Errorf("%q: %d states, want %d", c.in, tr.States.Len(), c.states)
		}
		got := strings.Join(notes.IncompleteReasons(), "; ")
		if got != c.incomplete {
			t.Errorf("%q:\n got incomplete %q\nwant %q", c.in, got, c.incomplete)
		}
	}
	// Cut before the first complete event: nothing to read, an error.
	for _, in := range []string{two[:30], `{"traceEvents":[` + ev("a", 1)[:20], `{"traceEvents":[`} {
		fe := decodeError(t, []byte(in))
		if !strings.Contains(fe.Error(), "input ends inside") {
			t.Errorf("%q: %v", in, fe)
		}
	}
}

// TestTruncatedGzip cuts a compressed trace anywhere: the events whose
// text arrived whole are read and the trace is noted incomplete; a cut
// before the first complete event leaves nothing to read and is an error.
func TestTruncatedGzip(t *testing.T) {
	text := xEvents([]int{1, 2, 3, 4}, []int{1, 1, 1, 1})
	full := readertest.Compress(t, []byte(text), "gzip")
	if _, err := decodeBytes(full); err != nil {
		t.Fatalf("complete gzip input: %v", err)
	}
	for cut := 1; cut < len(full); cut++ {
		// What gzip yields of the cut input, and the events whole in it.
		var arrived []byte
		if zr, err := gzip.NewReader(bytes.NewReader(full[:cut])); err == nil {
			arrived, _ = io.ReadAll(zr)
		}
		whole := strings.Count(string(arrived), "}")
		tr := trace.New()
		notes := &trace.Notes{}
		err := Decode(bytes.NewReader(full[:cut]), "mem", 0, tr, trace.ReadOptions{Notes: notes})
		if whole == 0 {
			var fe *errs.FormatError
			if !errors.As(err, &fe) {
				t.Errorf("cut at %d, no event whole: got %v, want a FormatError", cut, err)
			}
			continue
		}
		if err != nil || tr.States.Len() != whole {
			t.Errorf("cut at %d: %v, %d states, want the %d whole events", cut, err, tr.States.Len(), whole)
			continue
		}
		reasons := notes.IncompleteReasons()
		if len(reasons) != 1 || !strings.Contains(reasons[0], "byte") {
			t.Errorf("cut at %d: incomplete %q", cut, reasons)
		}
		// Every state read is one of the file's, whole.
		for i, s := range tr.States.All() {
			if want := fmt.Sprintf("e%d", i); tr.ValueName(s.Value) != want || s.Start != trace.Time(i+1)*1000 {
				t.Errorf("cut at %d: state %d is %q at %d", cut, i, tr.ValueName(s.Value), s.Start)
			}
		}
	}
	corrupt := bytes.Clone(full)
	corrupt[len(corrupt)-6] ^= 0xff // the CRC
	if fe := decodeError(t, corrupt); !strings.Contains(fe.Error(), "checksum") {
		t.Errorf("corrupt CRC: %v", fe)
	}
}

func decodeBytes(b []byte) (*trace.Trace, error) {
	tr := trace.New()
	return tr, Decode(bytes.NewReader(b), "mem", 0, tr, trace.ReadOptions{})
}

// TestNotATrace reads two gzip JSON files of HTA's test data that are not
// Chrome traces.
func TestNotATrace(t *testing.T) {
	for file, want := range map[string]string{
		"/hta/tests/data/execution_trace/benchmark_simple_add_et.json.gz": "no traceEvents array",
		"/hta/tests/data/memory_analysis/memory_timeline.raw.gz":          "expected an event object, found '['",
	} {
		_, err := readFile(corpus + file)
		if os.IsNotExist(err) {
			t.Skipf("%s is not available", file)
		}
		var fe *errs.FormatError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), want) || fe.File != corpus+file {
			t.Errorf("%s: got %v, want a FormatError saying %q", file, err, want)
		}
	}
}

func TestMissingFile(t *testing.T) {
	if _, err := readFile("testdata/does-not-exist.json"); !os.IsNotExist(err) {
		t.Errorf("got %v", err)
	}
}

// TestOtherProfilesNamed: JSON profiles of other tools, which the .json
// extension sends to this reader, are refused by what they are rather
// than as objects without traceEvents. The objects have the top-level
// keys of speedscope's samples of each (Firefox 59-79's DevTools
// performance panel, Safari 13's Web Inspector, speedscope 0.0.1-0.6,
// Chrome 69's and Node 10's .heapprofile) and of a Firefox Profiler
// profile; an object with none of them keeps the former message.
func TestOtherProfilesNamed(t *testing.T) {
	for in, want := range map[string]string{
		`{"exporter":"speedscope@0.6.0","$schema":"https://www.speedscope.app/file-format-schema.json","name":"x","activeProfileIndex":0,"profiles":[],"shared":{"frames":[]}}`: "a speedscope file",
		`{"meta":{"version":24,"product":"Firefox"},"libs":[],"threads":[]}`:                                                                                                    "a Firefox Profiler (Gecko) profile, not trace events",
		`{"label":"x","duration":1,"markers":[],"frames":[],"memory":[],"ticks":[],"allocations":{},"profile":{},"version":2}`:                                                  "a recording of Firefox DevTools' former performance panel",
		`{"version":1,"recording":{"records":[]},"overview":{}}`:                                                                                                                "a recording of Safari's Web Inspector timeline",
		`{"head":{"callFrame":{"functionName":"(root)"},"selfSize":0,"id":1,"children":[]}}`:                                                                                    "a V8 heap profile",
		`{"metadata":{"version":1},"frames":[]}`:                                                                                                                                "the trace object has no traceEvents array",
	} {
		fe := decodeError(t, []byte(in))
		if !strings.Contains(fe.Error(), want) {
			t.Errorf("%.40s: got %v, want it to say %q", in, fe, want)
		}
	}
}
