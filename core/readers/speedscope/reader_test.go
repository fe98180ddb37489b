package speedscope_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/readers/speedscope"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// span is a state as the tests compare them: its thread, frame name,
// depth and times.
type span struct {
	thread, name string
	depth        int32
	start, end   trace.Time
}

func spans(tr *trace.Trace) []span {
	var out []span
	for _, s := range tr.States.All() {
		out = append(out, span{tr.Containers[s.Container].Name, tr.Values[s.Value].Name, s.Depth, s.Start, s.End})
	}
	slices.SortFunc(out, func(a, b span) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
	return out
}

func readPath(t *testing.T, path string, v ingest.Values) (*trace.Trace, error) {
	t.Helper()
	return readertest.ReadFormat(t, speedscope.Format, path, v)
}

func write(t *testing.T, name, data string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const schema = `"$schema":"https://www.speedscope.app/file-format-schema.json"`

// twoSampled is speedscope's sample two-sampled.speedscope.json (0.6.0).
const twoSampled = `{"version":"0.6.0",` + schema + `,"name":"Two Samples","activeProfileIndex":1,"profiles":[
{"type":"sampled","name":"one","unit":"seconds","startValue":0,"endValue":14,"samples":[[0,1,2],[0,1,2],[0,1,3],[0,1,2],[0,1]],"weights":[1,1,4,3,5]},
{"type":"sampled","name":"two","unit":"milliseconds","startValue":0,"endValue":14,"samples":[[0,1,2],[0,1,2],[0,1,3],[0,1,2],[0,1]],"weights":[1,1,4,3,5]}],
"shared":{"frames":[{"name":"a"},{"name":"b"},{"name":"c"},{"name":"d"}]}}`

// A sampled profile's time is the running sum of its weights; frames a
// stack shares with the one ahead of it stay open (speedscope's time
// order view of the same file: a and b over 14, c over 2, d over 4, c
// over 3).
func TestSampledClosedForm(t *testing.T) {
	tr, err := readPath(t, write(t, "two.json", twoSampled), nil)
	if err != nil {
		t.Fatal(err)
	}
	var want []span
	for _, p := range []struct {
		name string
		unit trace.Time
	}{{"one", trace.Second}, {"two", trace.Second / 1000}} {
		u := p.unit
		want = append(want, span{p.name, "a", 0, 0, 14 * u}, span{p.name, "b", 1, 0, 14 * u},
			span{p.name, "c", 2, 0, 2 * u}, span{p.name, "d", 2, 2 * u, 6 * u}, span{p.name, "c", 2, 6 * u, 9 * u})
	}
	slices.SortFunc(want, func(a, b span) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
	if got := spans(tr); !slices.Equal(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	if got := tr.Containers[1].End; got != 14*trace.Second {
		t.Errorf("thread one ends at %v, want 14 s", got)
	}
}

// simple is speedscope's sample simple.speedscope.json (0.0.1), evented,
// in unit "none".
const simple = `{` + schema + `,"profiles":[{"endValue":14,"events":[{"at":0,"frame":0,"type":"O"},{"at":0,"frame":1,"type":"O"},
{"at":0,"frame":2,"type":"O"},{"at":2,"frame":2,"type":"C"},{"at":2,"frame":3,"type":"O"},{"at":6,"frame":3,"type":"C"},
{"at":6,"frame":2,"type":"O"},{"at":9,"frame":2,"type":"C"},{"at":14,"frame":1,"type":"C"},{"at":14,"frame":0,"type":"C"}],
"name":"simple.txt","startValue":0,"type":"evented","unit":"none"}],"shared":{"frames":[{"name":"a"},{"name":"b"},{"name":"c"},{"name":"d"}]},"version":"0.0.1"}`

// Counts ("none") are refused unless the user says what a count lasts.
func TestEventedCounts(t *testing.T) {
	path := write(t, "simple.speedscope.json", simple)
	if _, err := readPath(t, path, nil); err == nil || !strings.Contains(err.Error(), `count_unit`) || !strings.Contains(err.Error(), path) {
		t.Fatalf("unit none read without count_unit: %v", err)
	}
	tr, err := readPath(t, path, ingest.Values{"count_unit": "ms"})
	if err != nil {
		t.Fatal(err)
	}
	ms := trace.Second / 1000
	want := []span{{"simple.txt", "a", 0, 0, 14 * ms}, {"simple.txt", "b", 1, 0, 14 * ms},
		{"simple.txt", "c", 2, 0, 2 * ms}, {"simple.txt", "c", 2, 6 * ms, 9 * ms}, {"simple.txt", "d", 2, 2 * ms, 6 * ms}}
	slices.SortFunc(want, func(a, b span) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
	if got := spans(tr); !slices.Equal(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	// rbspy's 100 Hz: a count lasts 10 ms.
	tr, err = readPath(t, path, ingest.Values{"count_unit": "10ms"})
	if err != nil {
		t.Fatal(err)
	}
	if got := spans(tr)[0]; got != (span{"simple.txt", "a", 0, 0, 140 * ms}) {
		t.Errorf("with 10ms counts, %v", got)
	}
	for _, bad := range []string{"ms10", "-1ms", "0s", "1e300s", "NaNms", "10"} {
		v, err := speedscope.Format.Check(ingest.Values{"count_unit": bad})
		if err == nil {
			_, err = speedscope.Format.Open(path, v)
		}
		if err == nil || !strings.Contains(err.Error(), "count_unit") {
			t.Errorf("count_unit=%q: %v", bad, err)
		}
	}
}

// rawDoc is an independent decoding of a file, for the oracles.
type rawDoc struct {
	Shared struct {
		Frames []struct{ Name string }
	}
	Profiles []struct {
		Type, Name, Unit string
		StartValue       float64
		Samples          [][]int
		Weights          []float64
		Events           []struct {
			Type  string
			At    float64
			Frame int
		}
	}
}

func decode(t *testing.T, path string) rawDoc {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d rawDoc
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

func ns(v float64) trace.Time { return trace.Time(math.Round(v * 1e9)) }

// py-spy's output (py-spy 0.4.3, record --format speedscope -r 200 of a
// loop): the time each frame spends at each depth, summed over the
// states, is the sum of the weights of the samples whose stack holds it
// there, sample by sample (no merging of consecutive stacks).
func TestPySpyOracle(t *testing.T) {
	const path = "testdata/pyspy.speedscope.json"
	tr, err := readPath(t, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := decode(t, path)
	type key struct {
		name  string
		depth int
	}
	want, got := map[key]trace.Time{}, map[key]trace.Time{}
	for _, p := range d.Profiles {
		if p.Unit != "seconds" || p.Type != "sampled" {
			t.Fatalf("py-spy wrote a %s profile in %s", p.Type, p.Unit)
		}
		at := p.StartValue
		for k, stack := range p.Samples {
			from, to := ns(at), ns(at+p.Weights[k])
			at += p.Weights[k]
			for depth, f := range stack {
				want[key{d.Shared.Frames[f].Name, depth}] += to - from
			}
		}
	}
	n := 0
	for _, s := range tr.States.All() {
		got[key{tr.Values[s.Value].Name, int(s.Depth)}] += s.End - s.Start
		n++
	}
	if len(want) < 20 || n == 0 {
		t.Fatalf("the file has %d frame depths, the trace %d states", len(want), n)
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%v: %v, want %v", k, got[k], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d frame depths, want %d", len(got), len(want))
	}
}

// pyinstrument's speedscope renderer (pyinstrument -r speedscope):
// evented. Each O event's state ends at the C event that brings the
// depth back to where it was, found by counting.
func TestPyinstrumentOracle(t *testing.T) {
	const path = "testdata/pyinstrument.speedscope.json"
	tr, err := readPath(t, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := decode(t, path)
	var want []span
	for _, p := range d.Profiles {
		depth := 0
		for k, e := range p.Events {
			if e.Type != "O" {
				depth--
				continue
			}
			level := 0
			for _, c := range p.Events[k+1:] {
				if c.Type == "O" {
					level++
					continue
				}
				if level == 0 {
					if c.Frame != e.Frame {
						t.Fatalf("event %d closed by frame %d", k, c.Frame)
					}
					want = append(want, span{p.Name, d.Shared.Frames[e.Frame].Name, int32(depth), ns(e.At), ns(c.At)})
					break
				}
				level--
			}
			depth++
		}
	}
	slices.SortFunc(want, func(a, b span) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
	if len(want) < 3 {
		t.Fatalf("%d frames in the file", len(want))
	}
	if got := spans(tr); !slices.Equal(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

// Bad files end with an error naming the file and the profile and event
// (or the byte, for JSON errors), never a panic.
func TestErrors(t *testing.T) {
	frames := `"shared":{"frames":[{"name":"a"},{"name":"b"}]}`
	ev := func(events string) string {
		return `{` + schema + `,` + frames + `,"profiles":[{"type":"evented","name":"t","unit":"microseconds","startValue":0,"endValue":9,"events":[` + events + `]}]}`
	}
	sm := func(unit, samples, weights string) string {
		return `{` + schema + `,` + frames + `,"profiles":[{"type":"sampled","name":"t","unit":"` + unit + `","startValue":0,"endValue":9,"samples":` + samples + `,"weights":` + weights + `}]}`
	}
	for _, c := range []struct{ name, data, says string }{
		{"unbalanced", ev(`{"type":"O","at":0,"frame":0}`), `profile 0 ("t"): 1 frames are still open`},
		{"close other", ev(`{"type":"O","at":0,"frame":0},{"type":"C","at":1,"frame":1}`), "event 1 closes frame 1, but the innermost open frame is 0"},
		{"close none", ev(`{"type":"C","at":1,"frame":1}`), "event 0 closes frame 1, but no frame is open"},
		{"bad index", ev(`{"type":"O","at":0,"frame":2}`), "event 0 names frame 2, but shared.frames holds 2"},
		{"negative index", ev(`{"type":"O","at":0,"frame":-1}`), "event 0 names frame -1"},
		{"out of order", ev(`{"type":"O","at":5,"frame":0},{"type":"C","at":4,"frame":0}`), "event 1 is at 4, before the event ahead of it"},
		{"bad type", ev(`{"type":"X","at":0,"frame":0}`), `event 0 has type "X"`},
		{"huge at", ev(`{"type":"O","at":1e300,"frame":0}`), "event 0's at 1e+300 is out of range"},
		{"weights", sm("seconds", `[[0],[1]]`, `[1]`), "2 samples but 1 weights"},
		{"negative weight", sm("seconds", `[[0]]`, `[-1]`), "sample 0 has weight -1"},
		{"sample index", sm("seconds", `[[0,5]]`, `[1]`), "sample 0 names frame 5"},
		{"bytes", sm("bytes", `[[0]]`, `[1]`), `unit "bytes" (a memory profile)`},
		{"unknown unit", sm("hours", `[[0]]`, `[1]`), `unknown unit "hours"`},
		{"float index", sm("seconds", `[[0.5]]`, `[1]`), "byte "},
		{"syntax", `{` + schema + `,"profiles":[}`, "byte 76:"},
		{"no profiles", `{` + schema + `,"profiles":[]}`, "holds no profiles"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := write(t, "x.json", c.data)
			_, err := readPath(t, path, nil)
			var fe *errs.FormatError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), path) {
				t.Errorf("got %v, want a format error naming the file and saying %q", err, c.says)
			}
		})
	}
}

// Detection takes speedscope's files (whatever the writer's key order,
// the schema past the head) and leaves Chrome's JSON to Chrome.
func TestDetect(t *testing.T) {
	frames := strings.Repeat(`{"name":"f","file":"/a/long/path/to/a/module.py"},`, 200)
	late := `{"shared":{"frames":[` + frames + `{"name":"g"}]},` + schema + `,"profiles":[]}`
	for name, c := range map[string]struct {
		data, format string
	}{
		"pyspy.json":              {mustRead(t, "testdata/pyspy.speedscope.json"), "speedscope"},
		"prof.json":               {mustRead(t, "testdata/pyinstrument.speedscope.json"), "speedscope"},
		"export.json":             {`{"exporter":"speedscope@1.20.0",` + schema + `,"profiles":[]}`, "speedscope"},
		"late.speedscope.json":    {late, "speedscope"},
		"trace.json":              {`{"traceEvents":[{"ph":"X","name":"speedscope.app/file-format-schema.json","ts":0,"dur":1,"pid":1,"tid":1}]}`, "chrome"},
		"array.json":              {`[{"ph":"X","name":"a","ts":0,"dur":1,"pid":1,"tid":1}]`, "chrome"},
		"schema-late-chrome.json": {`{"traceEvents":[],"$schema":"https://www.speedscope.app/file-format-schema.json"}`, "chrome"},
	} {
		path := write(t, name, c.data)
		f, err := formats.Detect(path)
		if err != nil || f.Name != c.format {
			t.Errorf("%s: detected %q (%v), want %s", name, f.Name, err, c.format)
		}
	}
}

func mustRead(t *testing.T, path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func speedscopeOpen(t *testing.T, path string) (*ingest.Source, error) {
	v, err := speedscope.Format.Check(nil)
	if err != nil {
		t.Fatal(err)
	}
	return speedscope.Format.Open(path, v)
}

// rbspy --subprocesses gives each profile the weights of every process's
// samples: the first ones are read, as speedscope reads them, and said.
func TestExtraWeights(t *testing.T) {
	doc := `{` + schema + `,"shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"sampled","name":"p","unit":"seconds","startValue":0,"endValue":3,` +
		`"samples":[[0],[0]],"weights":[1,2,4]}]}`
	tr, notes, err := readertest.ReadFormatNotes(t, speedscope.Format, write(t, "rbspy.json", doc), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := spans(tr); !slices.Equal(got, []span{{"p", "a", 0, 0, 3 * trace.Second}}) {
		t.Errorf("got %v", got)
	}
	if msgs := notes.Messages(); len(msgs) != 1 || !strings.Contains(msgs[0], "2 samples but 3 weights") {
		t.Errorf("notes %q", msgs)
	}
}
