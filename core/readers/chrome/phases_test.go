package chrome

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// decodeNotes decodes text into a trace that keeps arguments, with notes.
func decodeNotes(t *testing.T, text string) (*trace.Trace, *trace.Notes) {
	t.Helper()
	tr := trace.New("test.json")
	tr.KeepArgs = true
	notes := &trace.Notes{}
	if err := Decode(strings.NewReader(text), "test.json", 0, tr, trace.ReadOptions{Notes: notes}); err != nil {
		t.Fatal(err)
	}
	return tr, notes
}

// dump writes every entity of tr as one line, with container paths, type
// and value names, categories and times in microseconds, in delivery order.
func dump(tr *trace.Trace) []string {
	val := func(v int32) string {
		if v == trace.None {
			return "-"
		}
		s := tr.Values[v].Name
		if c := tr.Values[v].Category; c != "" {
			s += "[" + c + "]"
		}
		return s
	}
	path := func(c int32) string { return "/" + tr.ContainerPath(c, "/") }
	us := func(t trace.Time) string { return micros(t) }
	var out []string
	for i, s := range tr.States.All() {
		line := fmt.Sprintf("state %s %s %s %s-%s d%d", path(s.Container), tr.TypeName(s.Type), val(s.Value), us(s.Start), us(s.End), s.Depth)
		if a := tr.ArgsOf(trace.KindState, i); a != "" {
			line += " " + a
		}
		out = append(out, line)
	}
	for i, e := range tr.Events.All() {
		line := fmt.Sprintf("event %s %s %s %s", path(e.Container), tr.TypeName(e.Type), val(e.Value), us(e.Time))
		if a := tr.ArgsOf(trace.KindEvent, i); a != "" {
			line += " " + a
		}
		out = append(out, line)
	}
	for _, l := range tr.Links.All() {
		out = append(out, fmt.Sprintf("link %s -> %s %s %s %s-%s", path(l.From), path(l.To), tr.TypeName(l.Type), val(l.Value), us(l.Start), us(l.End)))
	}
	for _, v := range tr.Variables.All() {
		out = append(out, fmt.Sprintf("var %s %s %s-%s = %g", path(v.Container), tr.TypeName(v.Type), us(v.Start), us(v.End), v.Value))
	}
	return out
}

func containerPaths(tr *trace.Trace) []string {
	var out []string
	for i := 1; i < len(tr.Containers); i++ {
		c := tr.Containers[i]
		out = append(out, fmt.Sprintf("%s (%s, alias %s)", tr.ContainerPath(int32(i), "/"), tr.TypeName(c.Type), c.Alias))
	}
	return out
}

func checkLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got %d:\n\t%s\nwant %d:\n\t%s", what, len(got), strings.Join(got, "\n\t"), len(want), strings.Join(want, "\n\t"))
	}
}

// everyPhase uses each phase of the format once or more, with the forms
// Chrome, Perfetto, catapult and Kineto write.
const everyPhase = `[
{},
{"name":"no ph","pid":1,"tid":1,"ts":1},
{"ph":"M","name":"process_name","pid":1,"args":{"name":"Browser"}},
{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"main"}},
{"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"main"}},
{"ph":"M","name":"process_uptime_seconds","pid":1,"args":{"uptime":3}},
{"ph":"B","name":"task","cat":"toplevel","pid":1,"tid":1,"ts":10,"args":{"src":"a.js"}},
{"ph":"X","name":"run","cat":"v8","pid":1,"tid":1,"ts":12,"dur":3},
{"ph":"E","pid":1,"tid":1,"ts":20},
{"ph":"E","pid":1,"tid":1,"ts":21},
{"ph":"X","name":"cut","cat":"gpu","pid":1,"tid":2,"ts":30},
{"ph":"i","name":"tick","pid":1,"tid":2,"ts":45,"s":"t"},
{"ph":"I","name":"load","pid":1,"ts":5,"s":"p"},
{"ph":"R","name":"mark","pid":1,"tid":1,"ts":6},
{"ph":"i","name":"vsync","ts":7,"s":"g","args":{"frame":1}},
{"ph":"C","name":"heap","pid":1,"ts":10,"args":{"used":5,"total":"8"}},
{"ph":"C","name":"heap","pid":1,"ts":20,"id":"a","args":{"used":6}},
{"ph":"C","name":"heap","pid":1,"ts":30,"args":{"used":7,"note":"n/a"}},
{"ph":"b","name":"req","cat":"net","id":"0x1","pid":1,"tid":1,"ts":11,"args":{"url":"/"}},
{"ph":"b","name":"dns","cat":"net","id":"0x1","pid":1,"tid":2,"ts":12},
{"ph":"n","name":"sent","cat":"net","id":"0x1","pid":1,"tid":1,"ts":13},
{"ph":"e","name":"dns","cat":"net","id":"0x1","pid":1,"tid":1,"ts":14},
{"ph":"e","name":"req","cat":"net","id":"0x1","pid":1,"tid":1,"ts":18},
{"ph":"b","name":"req","cat":"net","id2":{"local":"0x1"},"pid":1,"tid":1,"ts":16},
{"ph":"S","name":"load","id":5,"pid":1,"tid":1,"ts":20},
{"ph":"T","name":"load","id":5,"pid":1,"tid":1,"ts":22,"args":{"step":"parse"}},
{"ph":"p","name":"load","id":5,"pid":1,"tid":1,"ts":23},
{"ph":"F","name":"load","id":5,"pid":1,"tid":1,"ts":25},
{"ph":"s","name":"post","cat":"ipc","id":1,"pid":1,"tid":1,"ts":12},
{"ph":"f","name":"post","cat":"ipc","id":1,"pid":2,"tid":1,"ts":40},
{"ph":"X","name":"recv","pid":2,"tid":1,"ts":41,"dur":2},
{"ph":"X","name":"launch","cat":"cuda_runtime","pid":2,"tid":1,"ts":44,"dur":1,"bind_id":77,"flow_out":true},
{"ph":"X","name":"kernel","cat":"kernel","pid":2,"tid":"stream 7","ts":46,"dur":4.0005,"bind_id":77,"flow_in":true},
{"ph":"N","name":"obj","id":"0x2","pid":1,"ts":1},
{"ph":"O","name":"obj","id":"0x2","pid":1,"ts":2,"args":{"snapshot":{}}},
{"ph":"D","name":"obj","id":"0x2","pid":1,"ts":3},
{"ph":"P","name":"sample","pid":1,"tid":1,"ts":4},
{"ph":"v","name":"dump","pid":1,"ts":5,"id":"1","args":{"dumps":{}}},
{"ph":"V","name":"dump","ts":5,"id":"1"},
{"ph":"c","name":"clock_sync","ts":5,"args":{"sync_id":"x"}},
{"ph":"(","name":"ctx","pid":1,"tid":1,"ts":5,"id":"c"},
{"ph":")","name":"ctx","pid":1,"tid":1,"ts":6,"id":"c"},
{"ph":"Q","name":"future","pid":1,"tid":1,"ts":6},
{"ph":"ZZ","name":"weird"}
]`

func TestEveryPhase(t *testing.T) {
	tr, notes := decodeNotes(t, everyPhase)
	checkLines(t, "entities", dump(tr), []string{
		// B/E matched per thread; the E at 21 closes nothing.
		`state /Browser/main 1 Slice task[toplevel] 10.000-20.000 d0 {"src":"a.js"}`,
		`state /Browser/main 1 Slice run[v8] 12.000-15.000 d1`,
		// X without dur: until the last instant of its thread (tick, 45).
		`state /Browser/main 2 Slice cut[gpu] 30.000-45.000 d0`,
		`state /2/1 Slice recv 41.000-43.000 d0`,
		`state /2/1 Slice launch[cuda_runtime] 44.000-45.000 d0`,
		// 46 + 4.0005 µs: 50000.5 ns, rounded half away from zero.
		`state /2/stream 7 Slice kernel[kernel] 46.000-50.001 d0`,
		// Nestable async: one track per (cat, id), in the group of its
		// process and first name; dns nests in req; the args begin with
		// the id.
		`state /Browser/req Async slice req[net] 11.000-18.000 d0 {"id":"0x1","url":"/"}`,
		`state /Browser/req Async slice dns[net] 12.000-14.000 d1 {"id":"0x1"}`,
		// id2.local 0x1 is another track of the group, open while the
		// first is: on the next lane. Never ended, it ends at its track's
		// last event, its own start.
		`state /Browser/req (overlap lane 1) Async slice req[net] 16.000-16.000 d0 {"id":"0x1"}`,
		// Legacy async: S..F, steps T and p.
		`state /Browser/load Async slice load 20.000-25.000 d0 {"id":"5"}`,
		`event / Global instant vsync 7.000 {"frame":1}`,
		`event /Browser Process instant load 5.000`,
		`event /Browser/main 1 Instant mark 6.000`,
		`event /Browser/main 2 Instant tick 45.000`,
		`event /Browser/req Async instant sent[net] 13.000 {"id":"0x1"}`,
		`event /Browser/load Async step parse 22.000 {"id":"5","step":"parse"}`,
		`event /Browser/load Async step load 23.000 {"id":"5"}`,
		// flow_out/flow_in with bind_id: from launch to kernel.
		`link /2/1 -> /2/stream 7 Flow launch 44.000-46.000`,
		// s binds to the enclosing slice (run, at 12); f without bp "e"
		// to the next slice (recv, at 41).
		`link /Browser/main 1 -> /2/1 Flow post 12.000-41.000`,
		`var /Browser heap used 10.000-30.000 = 5`,
		`var /Browser heap used 30.000-50.001 = 7`,
		`var /Browser heap total 10.000-50.001 = 8`,
		`var /Browser heap id: a used 20.000-50.001 = 6`,
	})
	checkLines(t, "containers", containerPaths(tr), []string{
		"Browser (Process, alias 1)",
		// Two threads, one name: two containers, told apart by tid.
		"Browser/main 1 (Thread, alias 1)",
		"Browser/main 2 (Thread, alias 2)",
		// Two tracks of one name, open at once: one group, two lanes.
		"Browser/req (Async track, alias )",
		"Browser/req (overlap lane 1) (Async track, alias #1)",
		"Browser/load (Async track, alias )",
		"2 (Process, alias 2)",
		"2/1 (Thread, alias 1)",
		"2/stream 7 (Thread, alias stream 7)",
	})
	checkLines(t, "notes", notes.Messages(), []string{
		"1 complete events (ph X) without dur, cut at the end of their thread's recording",
		"1 async begin events without end, cut at the last event of their track",
		"skipped 2 entries without ph",
		`skipped 1 metadata events (ph M) "process_uptime_seconds" (not modelled)`,
		"skipped 1 counter values that are not numbers",
		"skipped 3 object events (ph N, O, D)",
		"skipped 1 sample events (ph P)",
		"skipped 2 memory dump events (ph v, V)",
		"skipped 1 clock sync events (ph c)",
		"skipped 2 context events (ph ( and ))",
		"skipped 1 events of unknown phase 'Q'",
		`skipped 1 events of unknown phase "ZZ"`,
		"skipped 1 end events (ph E) that close nothing",
	})
	// Skipped events do not extend the time range (the object at 1 µs).
	if tr.Start != 5000 || tr.End != 50001 {
		t.Errorf("range [%d, %d], want [5000, 50001]", tr.Start, tr.End)
	}
	if r := notes.IncompleteReasons(); r != nil {
		t.Errorf("incomplete: %q", r)
	}
}

// TestSkippedNotRefused checks events the model cannot hold: each is
// counted under its reason, and the rest of the trace is read.
func TestSkippedNotRefused(t *testing.T) {
	const ok = `{"ph":"X","name":"ok","pid":1,"tid":1,"ts":1,"dur":1}`
	for _, c := range []struct{ in, want string }{
		{`{"ph":"X","name":"a","pid":1,"tid":1,"ts":"100a","dur":1}`, `skipped 1 events whose ts is a string that is not a number`},
		{`{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":"invalid"}`, `skipped 1 events whose dur is a string that is not a number`},
		{`{"ph":"B","name":"a","pid":1,"tid":1}`, `skipped 1 events of phase 'B' without ts`},
		{`{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":-2}`, "skipped 1 complete events (ph X) with a negative dur"},
		{`{"ph":"X","name":"a","pid":1,"tid":1,"ts":9223372036854775,"dur":1}`, "skipped 1 complete events (ph X) ending beyond the time range"},
		{`{"ph":"s","pid":1,"tid":1,"ts":1}`, "skipped 1 flow events (ph s, t, f) without id"},
		{`{"ph":"s","pid":1,"tid":1,"ts":1,"id2":{"x":1}}`, "skipped 1 flow events (ph s, t, f) without id"},
		{`{"ph":"b","name":"a","pid":1,"ts":1}`, "skipped 1 nestable async events (ph b, e, n) without id"},
		{`{"ph":"S","name":"a","pid":1,"ts":1}`, "skipped 1 async events (ph S, T, p, F) without id"},
		{`{"ph":"e","name":"a","id":1,"pid":1,"ts":1}`, "skipped 1 async end events (ph e) that close nothing"},
		{`{"ph":"F","name":"a","id":1,"pid":1,"ts":1}`, "skipped 1 async finish events (ph F) that close nothing"},
		{`{"ph":"i","s":"x","pid":1,"tid":1,"ts":1}`, `skipped 1 instant events with a scope s other than "g", "p" or "t"`},
		{`{"ph":"C","name":"c","pid":1,"ts":1,"args":{"v":"abc","w":[1],"z":null}}`, "skipped 3 counter values that are not numbers"},
		{`{"ph":"M","name":"thread_name","tid":1,"args":{"name":"t"}}`, `skipped 1 metadata events (ph M) "thread_name" without pid`},
		{`{"ph":"M","name":"process_sort_index","pid":1,"args":{"sort_index":1.5}}`, `skipped 1 metadata events (ph M) "process_sort_index" without an integer args.sort_index`},
		{`{"args":{"sort_index":"x"},"ph":"M","name":"process_sort_index","pid":1}`, `skipped 1 metadata events (ph M) "process_sort_index" without an integer args.sort_index`},
		{`{"ph":"M","name":"process_name","pid":1,"args":{"name":7}}`, `skipped 1 metadata events (ph M) "process_name" without args.name`},
		{`{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1,"flow_out":true}`, "skipped 1 flow_in/flow_out of complete events without bind_id"},
	} {
		tr, notes := decodeNotes(t, "["+ok+",\n"+c.in+"]")
		if got := notes.Messages(); len(got) != 1 || got[0] != c.want {
			t.Errorf("%s: notes %q, want %q", c.in, got, c.want)
		}
		n := 0
		for _, s := range tr.States.All() {
			if tr.ValueName(s.Value) == "ok" {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s: the other event was not read", c.in)
		}
	}
}

// TestAsyncMatching checks the trace viewer's rules: an end closes the
// innermost open begin of its name; begins above it end with it.
func TestAsyncMatching(t *testing.T) {
	tr, notes := decodeNotes(t, `[
{"ph":"b","name":"outer","cat":"c","id":1,"pid":1,"ts":1},
{"ph":"b","name":"mid","cat":"c","id":1,"pid":1,"ts":2},
{"ph":"b","name":"inner","cat":"c","id":1,"pid":1,"ts":3},
{"ph":"e","name":"mid","cat":"c","id":1,"pid":1,"ts":5},
{"ph":"e","name":"nothing","cat":"c","id":1,"pid":1,"ts":6},
{"ph":"e","name":"outer","cat":"c","id":1,"pid":1,"ts":7},
{"ph":"b","name":"other cat","cat":"d","id":1,"pid":1,"ts":1},
{"ph":"e","name":"other cat","cat":"d","id":1,"pid":2,"ts":9}
]`)
	checkLines(t, "entities", dump(tr), []string{
		`state /1/outer Async slice outer[c] 1.000-7.000 d0 {"id":"1"}`,
		`state /1/outer Async slice mid[c] 2.000-5.000 d1 {"id":"1"}`,
		`state /1/outer Async slice inner[c] 3.000-5.000 d2 {"id":"1"}`,
		// Another category is another track, even with the same id; a
		// global id continues across processes, on the first's track.
		`state /1/other cat Async slice other cat[d] 1.000-9.000 d0 {"id":"1"}`,
	})
	checkLines(t, "notes", notes.Messages(), []string{
		"1 async begin events without end, cut at the end of their enclosing async slice",
		"skipped 1 async end events (ph e) that close nothing",
	})
}

// TestThreadIdentity checks that threads are told apart by (pid, tid),
// never by name, that pid and tid compare as text (7 and "7" are one),
// and that metadata applies wherever it comes in the file.
func TestThreadIdentity(t *testing.T) {
	tr, _ := decodeNotes(t, `[
{"ph":"X","name":"a","pid":7,"tid":1,"ts":1,"dur":1},
{"ph":"X","name":"b","pid":"7","tid":"1","ts":2,"dur":1},
{"ph":"X","name":"c","pid":8,"tid":1,"ts":3,"dur":1},
{"ph":"X","name":"d","pid":"Spans","tid":"PyTorch Profiler","ts":4,"dur":1},
{"ph":"M","name":"thread_name","pid":7,"tid":1,"args":{"name":"worker"}},
{"ph":"M","name":"thread_name","pid":8,"tid":1,"args":{"name":"worker"}},
{"ph":"M","name":"process_name","pid":7,"args":{"name":"same"}},
{"ph":"M","name":"process_name","pid":8,"args":{"name":"same"}}
]`)
	checkLines(t, "entities", dump(tr), []string{
		"state /same 7/worker Slice a 1.000-2.000 d0",
		"state /same 7/worker Slice b 2.000-3.000 d0",
		"state /same 8/worker Slice c 3.000-4.000 d0",
		"state /Spans/PyTorch Profiler Slice d 4.000-5.000 d0",
	})
	if tr.States.At(0).Container != tr.States.At(1).Container || tr.States.At(1).Container == tr.States.At(2).Container {
		t.Errorf("containers of a, b, c: %d %d %d; want a and b together, c apart",
			tr.States.At(0).Container, tr.States.At(1).Container, tr.States.At(2).Container)
	}
	checkLines(t, "containers", containerPaths(tr), []string{
		// Two processes of one name: told apart by pid, so that no two
		// containers share a path.
		"same 7 (Process, alias 7)", "same 7/worker (Thread, alias 1)",
		"same 8 (Process, alias 8)", "same 8/worker (Thread, alias 1)",
		"Spans (Process, alias Spans)", "Spans/PyTorch Profiler (Thread, alias PyTorch Profiler)",
	})
}

// TestCategoriesAreValues checks that values are told apart by category:
// one name in two categories is two values, each carrying its category.
func TestCategoriesAreValues(t *testing.T) {
	tr, _ := decodeNotes(t, `[
{"ph":"X","name":"copy","cat":"gpu_memcpy","pid":1,"tid":1,"ts":1,"dur":1},
{"ph":"X","name":"copy","cat":"cpu_op","pid":1,"tid":1,"ts":3,"dur":1},
{"ph":"X","name":"copy","cat":"cpu_op","pid":1,"tid":1,"ts":5,"dur":1},
{"ph":"X","name":"copy","pid":1,"tid":1,"ts":7,"dur":1}
]`)
	var got []string
	for _, v := range tr.Values {
		got = append(got, fmt.Sprintf("%s %s/%s", tr.TypeName(v.Type), v.Name, v.Category))
	}
	checkLines(t, "values", got, []string{"Slice copy/gpu_memcpy", "Slice copy/cpu_op", "Slice copy/"})
	if v := []int32{tr.States.At(0).Value, tr.States.At(1).Value, tr.States.At(2).Value, tr.States.At(3).Value}; !slices.Equal(v, []int32{0, 1, 1, 2}) {
		t.Errorf("state values %v", v)
	}
}

// TestArgsOnlyForArgsSinks checks that the arguments are kept as their
// JSON text, from before or after ph, for a sink that keeps them, and not
// gathered for one that does not or a trace not asked to.
func TestArgsOnlyForArgsSinks(t *testing.T) {
	text := `[
{"args":{"b": [1, {"c": "\u00e9"}]},"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1},
{"ph":"X","name":"e","pid":1,"tid":1,"ts":3,"dur":1,"args":{}},
{"ph":"i","name":"i","pid":1,"tid":1,"ts":5,"args":{"x":null}},
{"ph":"C","name":"c","pid":1,"ts":5,"args":{"x":1}}
]`
	tr, _ := decodeNotes(t, text)
	if got, want := tr.StateArgs, []string{`{"b": [1, {"c": "\u00e9"}]}`}; !slices.Equal(got, want) {
		t.Errorf("state args %q, want %q", got, want)
	}
	if got, want := tr.EventArgs, []string{`{"x":null}`}; !slices.Equal(got, want) {
		t.Errorf("event args %q, want %q", got, want)
	}
	var c trace.Counter
	if err := Decode(strings.NewReader(text), "t.json", 0, &c, trace.ReadOptions{}); err != nil || c.States != 2 || c.Events != 1 {
		t.Errorf("counter sink: %v %+v", err, c)
	}
	plain := trace.New()
	if err := Decode(strings.NewReader(text), "t.json", 0, plain, trace.ReadOptions{}); err != nil || plain.StateArgs != nil || plain.EventArgs != nil {
		t.Errorf("trace without KeepArgs: %v, args %q %q", err, plain.StateArgs, plain.EventArgs)
	}
}

// TestObjectFormKeys checks the keys of the object form besides
// traceEvents: ftrace text is counted, the sampling profile (stackFrames,
// samples) read as the stacks of the sampled thread (tid 1, whose process
// the samples without pid are put in), the others ignored, and
// displayTimeUnit does not change the unit of ts.
func TestObjectFormKeys(t *testing.T) {
	tr, notes := decodeNotes(t, `{"displayTimeUnit":"ns","otherData":{"version":"x"},
"systemTraceEvents":"# tracer: nop\n  <idle>-0 [000] 1.0: sched_switch\n  a-1 [001] 2.0: sched_wakeup",
"stackFrames":{"1":{"name":"main"},"2":{"name":"f","parent":"1"}},
"samples":[{"cpu":0,"tid":1,"ts":1,"sf":2},{"cpu":0,"tid":1,"ts":2,"sf":1}],
"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1.5,"dur":1}],
"traceEvents":[{"ph":"X","name":"b","pid":1,"tid":1,"ts":3,"dur":1}],
"unknown":[1,{"x":[]}]}`)
	checkLines(t, "entities", dump(tr), []string{
		"state /1/1 Slice a 1.500-2.500 d0",
		"state /1/1 Slice b 3.000-4.000 d0",
		"state /1/1 (CPU profile) Slice main 1.000-2.000 d0",
		"state /1/1 (CPU profile) Slice f 1.000-2.000 d1",
	})
	checkLines(t, "notes", notes.Messages(), []string{
		"skipped 3 lines of ftrace text (systemTraceEvents)",
	})
}

// TestRecordSizes pins the sizes of the records kept until the end of the
// input, which the package documentation gives.
func TestRecordSizes(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"slice", unsafe.Sizeof(slice{}), 40},
		{"mark", unsafe.Sizeof(mark{}), 32},
		{"instant", unsafe.Sizeof(instant{}), 32},
		{"sample", unsafe.Sizeof(sample{}), 32},
		{"asyncEvent", unsafe.Sizeof(asyncEvent{}), 32},
		{"flowPoint", unsafe.Sizeof(flowPoint{}), 56},
	} {
		if c.got != c.want {
			t.Errorf("%s: %d bytes, the documentation says %d", c.name, c.got, c.want)
		}
	}
}

// TestBeginsWithoutEnd: B events never ended (a trace cut short) end at
// the last event of their thread, as the trace viewer ends them, and the
// read says how many there were and on how many threads.
func TestBeginsWithoutEnd(t *testing.T) {
	tr, notes := decodeNotes(t, `[
{"ph":"B","name":"outer","pid":1,"tid":1,"ts":1},
{"ph":"B","name":"inner","pid":1,"tid":1,"ts":2},
{"ph":"i","name":"tick","pid":1,"tid":1,"ts":6},
{"ph":"B","name":"done","pid":1,"tid":2,"ts":1},
{"ph":"E","pid":1,"tid":2,"ts":3},
{"ph":"B","name":"cut","pid":1,"tid":2,"ts":4},
{"ph":"X","name":"later","pid":1,"tid":3,"ts":1,"dur":20}
]`)
	checkLines(t, "states", dump(tr), []string{
		`state /1/1 Slice outer 1.000-6.000 d0`,
		`state /1/1 Slice inner 2.000-6.000 d1`,
		`state /1/2 Slice done 1.000-3.000 d0`,
		`state /1/2 Slice cut 4.000-4.000 d0`,
		`state /1/3 Slice later 1.000-21.000 d0`,
		`event /1/1 Instant tick 6.000`,
	})
	want := []string{"3 begin events (ph B) without end were still open at the end of the trace, on 2 threads: they end at the last event of their thread, as the trace viewer ends them"}
	if got := notes.Messages(); !slices.Equal(got, want) {
		t.Errorf("notes %q, want %q", got, want)
	}
}

// TestEndArgsJoinBegin checks that the arguments of an end event (E, e,
// F) join those of its begin on the slice, as the trace viewer shows them.
func TestEndArgsJoinBegin(t *testing.T) {
	tr, _ := decodeNotes(t, `[
{"ph":"B","name":"a","pid":1,"tid":1,"ts":1,"args":{"in":1}},
{"ph":"E","pid":1,"tid":1,"ts":2,"args":{ "out" : [2] } },
{"ph":"B","name":"b","pid":1,"tid":1,"ts":3},
{"ph":"E","pid":1,"tid":1,"ts":4,"args":{"out":3}},
{"ph":"B","name":"c","pid":1,"tid":1,"ts":5,"args":{"in":4}},
{"ph":"E","pid":1,"tid":1,"ts":6,"args":{}},
{"ph":"b","name":"r","cat":"net","id":1,"pid":1,"ts":1,"args":{"url":"/"}},
{"ph":"e","name":"r","cat":"net","id":1,"pid":1,"ts":9,"args":{"status":200}},
{"ph":"S","name":"l","id":2,"pid":1,"ts":1},
{"ph":"F","name":"l","id":2,"pid":1,"ts":9,"args":{"ok":true}},
{"ph":"B","name":"d","pid":1,"tid":1,"ts":7,"args":[1]},
{"ph":"E","pid":1,"tid":1,"ts":8,"args":{"x":1}},
{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":"not an object"}
]`)
	checkLines(t, "states", dump(tr), []string{
		`state /1/1 Slice a 1.000-2.000 d0 {"in":1, "out" : [2] }`, // verbatim text
		`state /1/1 Slice b 3.000-4.000 d0 {"out":3}`,
		`state /1/1 Slice c 5.000-6.000 d0 {"in":4}`,
		`state /1/1 Slice d 7.000-8.000 d0 [1]`, // not objects: the begin's
		`state /1/r Async slice r[net] 1.000-9.000 d0 {"id":"1","url":"/","status":200}`,
		`state /1/l Async slice l 1.000-9.000 d0 {"id":"2","ok":true}`,
	})
	for _, a := range tr.StateArgs {
		if a != "" && !json.Valid([]byte(a)) {
			t.Errorf("args %q are not JSON", a)
		}
	}
}

// TestManyAsyncTracks interleaves more async tracks than
// collector.recentTracks has slots, nestable and legacy ones with the same
// ids whose category and name are one interned string (keys that differ
// only in legacy), and process-local ids on two processes: each track gets
// its own events, as the map alone gives them. The legacy tracks share a
// name and are all open at once: one group of n lanes, in order of start.
func TestManyAsyncTracks(t *testing.T) {
	const n = 3 * trackSlots
	var b strings.Builder
	b.WriteString("[\n")
	event := func(ph string, name, cat string, id any, pid, ts int) {
		fmt.Fprintf(&b, `{"ph":%q,"name":%q,"cat":%q,"id2":{"local":%v},"pid":%d,"ts":%d},`+"\n", ph, name, cat, id, pid, ts)
	}
	for i := range n {
		event("b", fmt.Sprint("n", i), "x", i, 1, 10+i)
		event("S", "x", "c", i, 1, 10+i)
	}
	for i := range n {
		event("b", fmt.Sprint("n", i), "x", i, 2, 20+i)
	}
	var want []string
	for i := n - 1; i >= 0; i-- { // the ends in reverse: the cache's slots are long overwritten
		event("e", "end", "x", i, 1, 1000-i)
		event("F", "x", "c", i, 1, 2000-i)
		event("e", "end", "x", i, 2, 3000-i)
		lane := ""
		if i > 0 {
			lane = fmt.Sprintf(" (overlap lane %d)", i)
		}
		want = append(want,
			fmt.Sprintf(`state /1/n%d Async slice n%d[x] %d.000-%d.000 d0 {"id":"%d"}`, i, i, 10+i, 1000-i, i),
			fmt.Sprintf(`state /1/x%s Async slice x[c] %d.000-%d.000 d0 {"id":"%d"}`, lane, 10+i, 2000-i, i),
			fmt.Sprintf(`state /2/n%d Async slice n%d[x] %d.000-%d.000 d0 {"id":"%d"}`, i, i, 20+i, 3000-i, i))
	}
	b.WriteString(`{"ph":"M","name":"process_uptime_seconds","pid":1}]`)
	tr, _ := decodeNotes(t, b.String())
	got := dump(tr)
	slices.Sort(got)
	slices.Sort(want)
	checkLines(t, "states", got, want)
}
