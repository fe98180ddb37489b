package chrome

import (
	"testing"
)

// The inputs below reproduce, in a few events, files of Perfetto's JSON
// parser tests (test/trace_processor/diff_tests/parser/json) and of the
// catapult trace viewer's test data, which their tools load: each must
// read, with the events those tools show.

// TestTrailingCommas: a comma before '}' or ']' is not JSON, but Perfetto
// loads such traces (json trailing_comma, args_ordered), so they read, in
// the events array, an event, its args, id2 and the trace object.
func TestTrailingCommas(t *testing.T) {
	tr, notes := decodeNotes(t, `{"displayTimeUnit":"ms","traceEvents":[
{"name":"Foo","ph":"X","pid":1,"tid":0,"ts":3473608.458,"dur":295555.500,},
{"name":"Bar","ph":"X","pid":1,"tid":0,"ts":4890.000,"dur":3764289.708,"args":{"a":1,}},
{"name":"A","cat":"C","ph":"b","ts":40000,"pid":1,"id2":{"local":1,},"args":{"02.step2":2,}},
{"name":"process_name","ph":"M","pid":1,"args":{"name":"p",},},
],}`)
	checkLines(t, "entities", dump(tr), []string{
		`state /p/0 Slice Bar 4890.000-3769179.708 d0 {"a":1}`,
		"state /p/0 Slice Foo 3473608.458-3769163.958 d1",
		`state /p/A Async slice A[C] 40000.000-40000.000 d0 {"id":"1","02.step2":2}`,
	})
	if m := notes.Messages(); len(m) != 1 || m[0] != "1 async begin events without end, cut at the last event of their track" {
		t.Errorf("notes %q", m)
	}
}

// TestControlCharacterInString: a raw newline inside a string (an
// argument copied from a log line, json pid_tid_zero) is kept.
func TestControlCharacterInString(t *testing.T) {
	tr, _ := decodeNotes(t, "[{\"ph\":\"X\",\"pid\":0,\"tid\":0,\"ts\":0,\"dur\":4000,\"name\":\"a\\tb\tc\",\"args\":{\"raw\":\"cc \n\"}}]")
	checkLines(t, "entities", dump(tr), []string{"state /0/0 Slice a\tb\tc 0.000-4000.000 d0 {\"raw\":\"cc \\u000a\"}"})
}

// TestTimeStringNotANumber: an event whose ts or dur is a string without a
// number is dropped and counted, as Perfetto drops it; a metadata event
// needs no ts, so a bad one does not matter (json
// invalid_string_ts_and_dur, string_ts_trailing_chars,
// metadata_missing_or_invalid_ts).
func TestTimeStringNotANumber(t *testing.T) {
	tr, notes := decodeNotes(t, `[
{"ph":"X","pid":10,"tid":13,"ts":"300","dur":"invalid","name":"InvalidDur"},
{"ph":"X","pid":10,"tid":14,"ts":"invalid","dur":"50","name":"InvalidTs"},
{"ph":"X","pid":10,"tid":16,"ts":"100a","dur":"50","name":"TrailingCharsTs"},
{"ph":"X","pid":10,"tid":15,"ts":"200","dur":"50","name":"Good"},
{"ph":"M","pid":102,"ts":"invalid","name":"process_name","args":{"name":"InvalidTs"}},
{"ph":"M","pid":101,"ts":null,"name":"process_name","args":{"name":"NullTs"}}
]`)
	checkLines(t, "entities", dump(tr), []string{"state /10/15 Slice Good 200.000-250.000 d0"})
	checkLines(t, "containers", containerPaths(tr), []string{
		"10 (Process, alias 10)", "10/15 (Thread, alias 15)",
		"NullTs (Process, alias 101)", "InvalidTs (Process, alias 102)",
	})
	checkLines(t, "notes", notes.Messages(), []string{
		"skipped 1 events whose dur is a string that is not a number",
		"skipped 2 events whose ts is a string that is not a number",
	})
}

// TestMissingPidTid: events without pid are on pid 0, events without tid
// on the thread whose tid is their pid, as in Perfetto, not dropped (json
// trailing_comma has no pid; in x_event_order a Child without tid nests
// under its Parent on tid 1 of pid 1; in metadata PidOnlyEvent of pid 33 is
// on tid 33, and a thread_name without tid names that thread).
func TestMissingPidTid(t *testing.T) {
	tr, notes := decodeNotes(t, `[
{"name":"Foo","ph":"X","tid":0,"ts":1,"dur":2},
{"name":"Bar","ph":"X","pid":0,"ts":4,"dur":1},
{"name":"c","ph":"C","ts":4,"args":{"v":1}},
{"name":"Child","ph":"X","ts":1,"dur":5,"pid":1},
{"name":"Parent","ph":"X","ts":1,"dur":10,"pid":1,"tid":1},
{"name":"PidOnlyEvent","ph":"X","ts":9,"dur":1,"pid":33},
{"name":"thread_name","ph":"M","pid":33,"args":{"name":"main"}}
]`)
	checkLines(t, "entities", dump(tr), []string{
		"state /0/0 Slice Foo 1.000-3.000 d0",
		"state /0/0 Slice Bar 4.000-5.000 d0",
		"state /1/1 Slice Parent 1.000-11.000 d0",
		"state /1/1 Slice Child 1.000-6.000 d1",
		"state /33/main Slice PidOnlyEvent 9.000-10.000 d0",
		"var /0 c v 4.000-11.000 = 1",
	})
	checkLines(t, "notes", notes.Messages(), []string{
		"2 events without pid, put on pid 0",
		"3 events without tid, put on the thread whose tid is their pid",
	})
}

// TestAsyncThreads: the thread an async event was emitted on is a
// container, as the trace viewers create it, even when only async events
// name it (catapult's async_begin_end.json: 6 threads in 4 processes).
func TestAsyncThreads(t *testing.T) {
	tr, _ := decodeNotes(t, `[
{"cat":"r","pid":1,"tid":1,"ts":0,"ph":"S","name":"E","id":"1"},
{"cat":"r","pid":2,"tid":2,"ts":1,"ph":"T","name":"E","id":"1","args":{"step":"X"}},
{"cat":"r","pid":3,"tid":4,"ts":2,"ph":"F","name":"E","id":"1"},
{"cat":"r","pid":3,"tid":5,"ts":3,"ph":"n","name":"i","id":"7"}
]`)
	checkLines(t, "containers", containerPaths(tr), []string{
		"1 (Process, alias 1)", "1/1 (Thread, alias 1)", "1/E (Async track, alias )",
		"2 (Process, alias 2)", "2/2 (Thread, alias 2)",
		"3 (Process, alias 3)", "3/4 (Thread, alias 4)", "3/5 (Thread, alias 5)", "3/i (Async track, alias )",
	})
}

// TestFuchsiaSystemEvents: Fuchsia's trace2json writes systemTraceEvents
// as an object whose events create and name processes (p) and threads (t),
// as the trace viewer's Fuchsia importer does, keys in any order; context
// switches (k) and wake-ups (w) are counted (shape of Fuchsia's
// trace_processing tests/data/model.json and catapult's
// fuchsia_trace.json.gz).
func TestFuchsiaSystemEvents(t *testing.T) {
	tr, notes := decodeNotes(t, `{"displayTimeUnit":"ns","systemTraceEvents":{"events":[
{"name":"process_foo","ph":"p","pid":7009},
{"name":"initial-thread","ph":"t","pid":7009,"tid":7022},
{"name":"process-with-no-trace-events","ph":"p","pid":7011},
{"name":"initial-thread","ph":"t","pid":7011,"tid":5555},
{"ph":"w","ts":697503138,"cpu":0,"tid":7021,"prio":3122},
{"ph":"k","ts":697503138.9531089,"cpu":0,"out":{"tid":7021,"state":3,"prio":3122},"in":{"tid":7022,"prio":3122}},
{"ph":"k","ts":20,"cpu":0,"out":{"tid":1036,"state":3},"in":{"tid":1037}}
],"type":"fuchsia"},
"traceEvents":[
{"cat":"io","name":"Write","ph":"B","pid":7009,"tid":7022,"ts":10},
{"cat":"io","name":"Write","ph":"E","pid":7009,"tid":7022,"ts":12},
{"ph":"M","name":"thread_name","pid":7009,"tid":7022,"args":{"name":"main"}}
]}`)
	checkLines(t, "containers", containerPaths(tr), []string{
		"process_foo (Process, alias 7009)", "process_foo/main (Thread, alias 7022)",
		"process-with-no-trace-events (Process, alias 7011)", "process-with-no-trace-events/initial-thread (Thread, alias 5555)",
	})
	checkLines(t, "entities", dump(tr), []string{"state /process_foo/main Slice Write[io] 10.000-12.000 d0"})
	checkLines(t, "notes", notes.Messages(), []string{
		"skipped 1 Fuchsia wake-ups (systemTraceEvents ph w)",
		"skipped 2 Fuchsia context switches (systemTraceEvents ph k)",
	})
}
