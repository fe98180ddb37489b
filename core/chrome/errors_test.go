package chrome

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
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

func TestErrors(t *testing.T) {
	for _, c := range []struct {
		in   string
		line int
		want string
	}{
		{"", 1, "empty input"},
		{"  \n ", 2, "empty input"},
		{"hello", 1, "not a Chrome trace"},
		{"{", 1, "input ends inside the trace object"},
		{`{"traceEvents": {}}`, 1, "traceEvents is not an array"},
		{`{"displayTimeUnit": "ns"}`, 1, "no traceEvents array"},
		{`{"traceEvents": []`, 1, "input ends inside the trace object"},
		{`{"traceEvents": [], "traceEvents": []}`, 1, "traceEvents appears twice"},
		{`{"traceEvents": [}`, 1, "expected an event object"},
		{"[\n{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,", 2, "input ends inside a string"},
		{"[\n{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1", 2, "input ends inside an event"},
		{"[\n{\"ph\":\"X\", \"name\":\"a", 2, "input ends inside a string"},
		{"[" + okEvent + "] x", 1, "unexpected 'x' after the end of the trace"},
		{"[" + okEvent + ",]", 1, "expected an event object, found ']'"},
		{"[{\"ph\":\"X\" \"name\":\"a\"}]", 1, "expected ',' or '}' in an event"},
		{"[1, 2]", 1, "expected an event object, found '1'"},
		{"[{\"name\":\"a\xff\"}]", 1, "not valid UTF-8"},
		{"[{\"name\":\"a\tb\"}]", 1, "control character 0x09"},
		{`[{"name":"a\qb"}]`, 1, `bad escape 'q'`},
		{`[{"name":"\u12"}]`, 1, `bad \u escape`},
		{`[{"ph":"X","ts":01}]`, 1, `bad number "01"`},
		{`[{"ph":"X","ts":1e999}]`, 1, `ts "1e999"`},
		{`[{"ph":"X","ts":true}]`, 1, "ts must be a number"},
		{`[{"ph":"X","pid":[1]}]`, 1, "pid must be a number or a string"},
		{`[{"ph":"XY"}]`, 1, "not a single character"},
		{`[{"x": tru}]`, 1, "bad literal"},
		{`[{"x": [[[[` + strings.Repeat("[", 600), 1, "nested more than 512 deep"},
		{"[\n{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1}]", 2, `complete event (ph X) "a" has no dur`},
		{`[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":-2}]`, 1, "negative dur"},
		{`[{"ph":"X","name":"a","pid":1,"tid":1,"ts":9223372036854775,"dur":1}]`, 1, "beyond the time range"},
		{`[{"ph":"X","name":"a","tid":1,"ts":1,"dur":1}]`, 1, "has no pid"},
		{`[{"ph":"X","name":"a","pid":1,"ts":1,"dur":1}]`, 1, "has no tid"},
		{`[{"ph":"B","name":"a","pid":1,"tid":1}]`, 1, "has no ts"},
		{"[{\"ph\":\"B\",\"pid\":1,\"tid\":1,\"ts\":5},\n{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":6},\n{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":7}]", 3, "closes nothing"},
		{`[{"ph":"b","name":"async","pid":1,"tid":1,"ts":1,"id":1}]`, 1, `ph 'b' are not supported`},
		{`[{"name":"a","pid":1,"tid":1,"ts":1}]`, 1, "no ph are not supported"},
		{`[{"ph":"s","pid":1,"tid":1,"ts":1}]`, 1, "has no id"},
		{`[{"ph":"s","pid":1,"tid":1,"ts":1,"id2":{"x":1}}]`, 1, `neither "local" nor "global"`},
		{`[{"ph":"i","s":"x","pid":1,"tid":1,"ts":1}]`, 1, "instant scope"},
		{`[{"ph":"C","name":"c","pid":1,"ts":1,"args":{"v":"abc"}}]`, 1, `value "abc" of "v" is not a finite number`},
		{`[{"ph":"C","name":"c","pid":1,"ts":1,"args":{"v":[1]}}]`, 1, "expected a number"},
		{`[{"ph":"M","name":"thread_name","pid":1,"args":{"name":"t"}}]`, 1, "needs a pid and a tid"},
		{`[{"ph":"M","name":"process_sort_index","pid":1,"args":{"sort_index":1.5}}]`, 1, "not an integer"},
		{`[{"args":{"sort_index":"x"},"ph":"M","name":"process_sort_index","pid":1}]`, 1, "not an integer"},
	} {
		fe := decodeError(t, []byte(c.in))
		if !strings.Contains(fe.Err.Error(), c.want) {
			t.Errorf("%q: got %q, want it to contain %q", c.in, fe.Err, c.want)
		}
		if c.line != 0 && fe.Line != c.line {
			t.Errorf("%q: error on line %d, want line %d (%v)", c.in, fe.Line, c.line, fe)
		}
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

func TestTruncatedGzip(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(xEvents([]int{1, 2, 3, 4}, []int{1, 1, 1, 1})))
	zw.Close()
	full := buf.Bytes()
	if _, err := decodeBytes(full); err != nil {
		t.Fatalf("complete gzip input: %v", err)
	}
	// Cut anywhere, including after the whole JSON text but before the
	// gzip trailer: the array form could end early, but the compressed
	// stream says the data is cut.
	for cut := 1; cut < len(full); cut++ {
		fe := decodeError(t, full[:cut])
		if cut > 10 && !strings.Contains(fe.Error(), "truncated") {
			t.Errorf("cut at %d: %v", cut, fe)
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
		_, err := ReadFile(corpus + file)
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
	if _, err := ReadFile("testdata/does-not-exist.json"); !os.IsNotExist(err) {
		t.Errorf("got %v", err)
	}
}
