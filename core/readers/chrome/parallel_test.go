package chrome

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// withParts makes reads cut the event array into parts of about size
// bytes, read by n parsers, until the test ends.
func withParts(t testing.TB, size, n int) {
	oldSize, oldN := partSize, parsers
	partSize, parsers = size, n
	t.Cleanup(func() { partSize, parsers = oldSize, oldN })
}

// readResult is everything a read gives: the trace, the notes and the
// error.
type readResult struct {
	tr    *trace.Trace
	notes []string
	err   error
}

func readWith(in []byte, keepArgs bool, size, n int) readResult {
	oldSize, oldN := partSize, parsers
	partSize, parsers = size, n
	defer func() { partSize, parsers = oldSize, oldN }()
	tr := trace.New()
	tr.KeepArgs = keepArgs
	var notes trace.Notes
	err := Decode(bytes.NewReader(in), "in.json", 0, tr, trace.ReadOptions{Notes: &notes})
	return readResult{tr, notes.Messages(), err}
}

// sameRead reports how two reads differ, "" if they do not.
func sameRead(got, want readResult) string {
	if fmt.Sprint(got.err) != fmt.Sprint(want.err) {
		return fmt.Sprintf("error %v, want %v", got.err, want.err)
	}
	if fmt.Sprint(got.notes) != fmt.Sprint(want.notes) {
		return fmt.Sprintf("notes %q, want %q", got.notes, want.notes)
	}
	if want.err != nil {
		return ""
	}
	return readertest.Difference(got.tr, want.tr)
}

// checkParts reads in on one core and in parts on several, with and
// without arguments, and fails on any difference. It returns how many
// parts the reads in parts took.
func checkParts(t *testing.T, name string, in []byte, size int) int64 {
	t.Helper()
	before := partsRead.Load()
	for _, keep := range []bool{false, true} {
		want := readWith(in, keep, size, 1)
		for _, n := range []int{2, 3} {
			if d := sameRead(readWith(in, keep, size, n), want); d != "" {
				t.Errorf("%s (args %v, %d parsers, parts of %d bytes): %s", name, keep, n, size, d)
			}
		}
	}
	return partsRead.Load() - before
}

// nastyTrace writes a trace of n events whose strings hold what a cut
// must not be fooled by: brackets, braces and commas, escaped quotes and
// backslashes, \u escapes (a surrogate pair among them), multi-byte
// UTF-8, raw control characters, and args holding arrays of objects, so
// that "}, {" appears inside events; some events are indented over many
// lines, some on one line, and some args end with a trailing comma.
func nastyTrace(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	names := []string{`a]b`, `c}d`, `e,f`, `g\"h`, `back\\slash`, `{\"x\":[1,2]}`, `uni\u00e9\ud83d\ude00`,
		"caf\u00e9 \u4e2d", "tab\tand\nnewline", `\"},{\"ph\":\"X\"`, `}, {`, `],[{`, `\\`}
	pick := func(s []string) string { return s[r.IntN(len(s))] }
	var b bytes.Buffer
	b.WriteString(`{"otherData": {"a]": "}, {"}, "traceEvents": [` + "\n")
	for i := range n {
		if i > 0 {
			b.WriteString(pick([]string{",", ",\n", ",\n  ", " ,\n  ", ",\r\n"}))
		}
		ph := pick([]string{"X", "X", "X", "B", "E", "i", "C", "M", "s", "f", "b", "e", "n"})
		name := pick(names) + fmt.Sprint(r.IntN(20))
		if ph == "M" {
			name = pick([]string{"process_name", "thread_name", "thread_sort_index", "process_labels"})
		}
		fields := []string{
			fmt.Sprintf(`"ph": "%s"`, ph),
			fmt.Sprintf(`"name": "%s"`, name),
			fmt.Sprintf(`"cat": "%s"`, pick([]string{"cpu_op", "kernel", `x}, {y`, `fwd\"bwd`})),
			fmt.Sprintf(`"pid": %s`, pick([]string{"1", "2", `"3"`, `"p]"`})),
			fmt.Sprintf(`"tid": %d`, r.IntN(4)),
			fmt.Sprintf(`"ts": %d.%03d`, r.IntN(1_000_000), r.IntN(1000)),
		}
		switch ph {
		case "X":
			fields = append(fields, fmt.Sprintf(`"dur": %d.%03d`, r.IntN(100), r.IntN(1000)))
		case "s", "f", "b", "e", "n":
			fields = append(fields, fmt.Sprintf(`"id": %d`, r.IntN(5)))
		}
		switch ph {
		case "C":
			fields = append(fields, fmt.Sprintf(`"args": {"v": %g, "w]": %d, "s": "1e3"}`, r.Float64()*1e3, r.IntN(9)-4))
		case "M":
			fields = append(fields, fmt.Sprintf(`"args": {"name": "%s", "sort_index": %d, "labels": "l}, {"}`, pick(names), r.IntN(9)))
		default:
			trailing := ""
			if r.IntN(10) == 0 {
				trailing = ","
			}
			fields = append(fields, fmt.Sprintf(`"args": {"k": [{"a": "%s"}, {"b": [1, {"z": "]"}]}], "esc": "a\\\"b]"%s}`, pick(names), trailing))
		}
		r.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
		if r.IntN(2) == 0 {
			b.WriteString("{" + strings.Join(fields, ", ") + "}")
		} else {
			b.WriteString("{\n    " + strings.Join(fields, ",\n    ") + "\n  }")
		}
	}
	b.WriteString("\n], \"displayTimeUnit\": \"ns\"}\n")
	return b.Bytes()
}

// TestPartsEqualSingle checks that reading a trace in parts on several
// cores gives exactly what reading it on one gives, the trace, its notes
// and its errors, on generated traces whose strings hold brackets, commas
// and escapes, cut, damaged and in the array form, with parts small
// enough that every event boundary comes close to a cut.
func TestPartsEqualSingle(t *testing.T) {
	full := nastyTrace(3000, 1)
	start := bytes.Index(full, []byte("[")) + 1
	events := bytes.TrimSpace(full[start:bytes.LastIndexByte(full, ']')])
	mid := bytes.Index(full[len(full)/2:], []byte(`"ts"`)) + len(full)/2
	inputs := map[string][]byte{
		"nasty":               full,
		"other seed":          nastyTrace(2000, 2),
		"cut in an event":     full[:len(full)*2/3],
		"cut after a comma":   full[:bytes.Index(full[len(full)/2:], []byte("},"))+len(full)/2+2],
		"damaged":             append(append(bytes.Clone(full[:mid]), `"ts": 1x2, `...), full[mid+4:]...),
		"array form":          append(append([]byte("["), events...), ']'),
		"array form, open":    append(append([]byte("["), events...), ",\n"...),
		"array form, comma":   append(append([]byte("["), events...), ",]"...),
		"garbage after event": append(append([]byte("["), events[:len(events)/2]...), " x "...),
	}
	for name, in := range inputs {
		if n := checkParts(t, name, in, 512); n == 0 && name == "nasty" {
			t.Errorf("%s was not read in parts", name)
		}
	}
	// Cuts at every few bytes around the events' ends.
	for _, size := range []int{1, 37, 4096} {
		checkParts(t, fmt.Sprintf("parts of %d bytes", size), full, size)
	}
}

// TestPartsEqualSingleCorpus checks the same on the real traces of the
// corpus.
func TestPartsEqualSingleCorpus(t *testing.T) {
	files := corpusFiles(t)
	if len(files) == 0 {
		t.Skip("corpus not available")
	}
	parts := int64(0)
	for _, f := range files {
		in, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		size := 64 << 10
		if len(in) < 1<<20 {
			size = 2 << 10
		}
		parts += checkParts(t, filepath.Base(f), in, size)
	}
	if parts == 0 {
		t.Error("no trace was read in parts")
	}
}

// TestPartsReadError checks that a reader failing during a read in parts
// fails it as on one core, after the events before the failure.
func TestPartsReadError(t *testing.T) {
	withParts(t, 256, 2)
	boom := errors.New("disk on fire")
	in := nastyTrace(500, 3)
	for _, cut := range []int{len(in) / 3, len(in) / 2} {
		for _, r := range []io.Reader{
			io.MultiReader(bytes.NewReader(in[:cut]), iotest.ErrReader(boom)),
			iotest.HalfReader(io.MultiReader(bytes.NewReader(in[:cut]), iotest.ErrReader(boom))),
		} {
			err := Decode(r, "slow.json", 0, trace.New(), trace.ReadOptions{})
			if !errors.Is(err, boom) {
				t.Errorf("cut at %d: got %v", cut, err)
			}
		}
	}
	gz := readertest.Compress(t, in, "gzip")
	want := readWith(gz[:len(gz)/2], false, 256, 1)
	if d := sameRead(readWith(gz[:len(gz)/2], false, 256, 2), want); d != "" {
		t.Errorf("cut gzip: %s", d)
	}
}

// FuzzParts checks that any input reads the same in parts as on one
// core: the same trace, notes and error.
func FuzzParts(f *testing.F) {
	readertest.BoundMinimization(f)
	f.Add(nastyTrace(20, 1), uint8(40))
	f.Add([]byte(cpuProfileTrace), uint8(150))
	f.Add([]byte(`[{"ph":"X","name":"a}, {","pid":1,"tid":1,"ts":1,"dur":1}, {"ph":"i","name":"b","ts":2,"args":{"k":[{"a":1}, {"b":2}]}},]`), uint8(8))
	f.Add([]byte(`{"traceEvents":[{"ph":"B","name":"x","pid":1,"tid":1,"ts":1} , {"ph":"E","pid":1,"tid":1,"ts":2}], "x": 1}`), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, size uint8) {
		if len(data) > maxFuzzInput {
			return
		}
		// Past the scanner's first window, so that the parts are tried.
		in := append(bytes.Repeat([]byte(" "), firstWindow), data...)
		for _, keep := range []bool{false, true} {
			want := readWith(in, keep, int(size)+1, 1)
			if d := sameRead(readWith(in, keep, int(size)+1, 2), want); d != "" {
				t.Fatalf("args %v, parts of %d bytes: %s", keep, int(size)+1, d)
			}
		}
	})
}

// TestPackedFields guards packedEvent: a field added to rawEvent must be
// either packed (pack, unpack) or tested by packs, which sends an event
// holding it to part.rare whole (argsText and argsLine serve the decoder
// only, as do tsQuoted, beginNs and endNs: readEvent has moved ts and dur
// to them before the event is packed); then the list below is updated.
func TestPackedFields(t *testing.T) {
	var names []string
	rt := reflect.TypeFor[rawEvent]()
	for i := range rt.NumField() {
		names = append(names, rt.Field(i).Name)
	}
	const want = "ph badPh name cat pid tid id idLocal bindID flowIn flowOut ts dur hasTs hasDur badTime bindEnclosing scope " +
		"argName argLabels argStep sortIndex hasSortIndex badSortIndex counters badCounters argsText argsLine profile args " +
		"gpuCat correlation waitRecord waitStream tsQuoted beginNs endNs line offset"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("rawEvent's fields are now\n%s\nwere\n%s\nsee packs, pack and unpack", got, want)
	}
}

// TestUnpackClean checks that unpacking an event into the one unpacked
// before it (writing only the packed fields) gives what unpacking it
// into a fresh rawEvent gives, whatever came before: events of every
// phase, rare ones among them, and pid and tid changed in between as the
// collector changes them.
func TestUnpackClean(t *testing.T) {
	events := []string{
		`{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 2, "ts": 10.5, "dur": 3, "args": {"External id": 7}}`,
		`{"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 11, "dur": 2, "args": {"correlation": 9, "stream": 7}}`,
		`{"ph": "X", "name": "flow", "pid": "p", "tid": 3, "ts": 12, "dur": 1, "bind_id": 4, "flow_in": true, "flow_out": true}`,
		`{"ph": "C", "name": "mem", "pid": 1, "ts": 13, "args": {"used": 5}}`,
		`{"ph": "f", "id": 4, "cat": "ac2g", "name": "ac2g", "pid": 0, "tid": 7, "ts": 14, "bp": "e"}`,
		`{"ph": "M", "name": "thread_name", "pid": 1, "tid": 2, "args": {"name": "main"}}`,
		`{"ph": "i", "name": "mark", "pid": 1, "tid": 2, "ts": 15, "s": "p"}`,
		`{"ph": "b", "cat": "net", "name": "req", "pid": 1, "tid": 2, "ts": 16, "id2": {"local": "0x1"}}`,
		`{"ph": "E", "pid": 1, "tid": 2, "ts": 17}`,
		`{"ph": "X", "pid": 1, "tid": 2, "ts": 18}`,
		`{"ph": "T", "cat": "c", "name": "step", "pid": 1, "tid": 2, "ts": 19, "id": 3, "args": {"step": "s1"}}`,
		`{"ph": "?", "pid": 1, "tid": 2, "ts": "later"}`,
	}
	r := rand.New(rand.NewPCG(7, 29))
	var data []byte
	for range 400 {
		data = append(append(append(data, '\n'), events[r.IntN(len(events))]...), ',')
	}
	p := &part{data: data}
	p.parse("test", false)
	if p.err != nil || len(p.events) != 400 {
		t.Fatalf("%d events, %v", len(p.events), p.err)
	}
	var fast rawEvent
	clean := false
	for i := range p.events {
		var full rawEvent
		p.unpack(&p.events[i], &full, false)
		clean = p.unpack(&p.events[i], &fast, clean)
		if !reflect.DeepEqual(fast, full) {
			t.Fatalf("event %d: unpacked into the one before\n%+v\nfresh\n%+v", i, fast, full)
		}
		fast.pid, fast.tid = 99, 98 // as the collector's lacks may
	}
}
