package perfetto

import "testing"

// TestAtrace covers atrace annotations in ftrace print events: begins and
// ends of one thread that migrated between CPUs, written in bundles that
// are not in time order (the end's bundle first), an instant, counter
// values of the process (one with Chromium's category group), a
// tracing_mark_write begin and end, text that is no slice, and a slice
// left open. As in Perfetto's diff test track_event_with_atrace, a
// TrackEvent slice and an atrace slice of one thread both count.
func TestAtrace(t *testing.T) {
	print := func(at, tid uint64, buf string) []byte {
		return sub(2, vint(1, at), vint(2, tid), sub(3, vint(1, 0), str(2, buf)))
	}
	mark := func(at, tid, tgid uint64, name string, begin uint64) []byte {
		return sub(2, vint(1, at), vint(2, tid), sub(80, vint(1, tgid), str(2, name), vint(3, begin)))
	}
	bundle := func(cpu uint64, events ...[]byte) []byte {
		return pkt(sub(1, append([][]byte{vint(1, cpu)}, events...)...))
	}
	data := traceOf(
		pkt(sub(2, sub(1, vint(1, 7), str(3, "app")), sub(2, vint(1, 8), vint(3, 7), str(2, "main")))),
		bundle(1, print(300, 8, "E|7\n"), print(310, 8, "I|7|tick"), print(350, 9, "C|7|counter|9|Blob"), print(400, 8, "E|7")),
		bundle(0, print(100, 8, "B|7|outer\n"), print(200, 8, "B|7|inner|with|bars"),
			print(250, 8, "C|7|counter|5"), print(260, 8, "hello")),
		bundle(0, mark(500, 8, 7, "marked", 1), mark(600, 8, 7, "", 0), print(700, 8, "B|7|open")),
		bundle(0, print(800, 8, "E|7")),
		bundle(1, print(900, 8, "E|7"), print(1000, 8, "B|x|bad tgid")),
	)
	tr, notes := mustRead(t, data)
	checkRender(t, tr, `
		container app 7 Process alias=7
		container app 7/main 8 Thread alias=8
		state app 7/main 8 Atrace slice "inner|with|bars" 200 300 d1 o1
		state app 7/main 8 Atrace slice "outer" 100 400 d0 o0
		state app 7/main 8 Atrace slice "marked" 500 600 d0 o2
		state app 7/main 8 Atrace slice "open" 700 800 d0 o3
		event app 7/main 8 Instant "tick" 310
		variable app 7 counter 250 350 5
		variable app 7 counter 350 900 9
		span 100 900
	`)
	checkTypes(t, tr)
	checkNotes(t, notes,
		"skipped 2 ftrace print events that are no atrace annotation (text, malformed annotations)",
		"skipped 1 atrace slice ends (E) with no open slice on their thread")
}

// TestAtraceAsync reads Android's async atrace slices as Perfetto's diff
// tests of them expect: android_b2b_async_begin.textproto (begins of a
// name and cookie already open ignored; slices "multistart" 1000+30,
// 1015+45 and 1030+20, the third beginning where the first ends and
// taking its track) and process_track_slices_android_async_slice
// ("launching: com.android.chrome", 373,584,672 ns, ended by another
// thread of the process). G and H name the track apart from the slice,
// as async_track_atrace.py expects (on "track": ev 50+25 and 55+15 of
// process 1, ev 60+5 of process 2, an H with or without the name);
// N is an instant on the first track of its group (of its name, created
// if none); an end that closes nothing, a cookie that is no number, an N
// without a name and a slice left open are counted or warned.
func TestAtraceAsync(t *testing.T) {
	print := func(at, tid uint64, buf string) []byte {
		return sub(2, vint(1, at), vint(2, tid), sub(3, vint(1, 0), str(2, buf)))
	}
	bundle := func(cpu uint64, events ...[]byte) []byte {
		return pkt(sub(1, append([][]byte{vint(1, cpu)}, events...)...))
	}
	data := traceOf(
		bundle(3, print(1000, 4064, "S|1204|multistart|0\n"), print(1010, 1257, "S|1204|multistart|0\n"),
			print(1015, 1257, "S|1204|multistart|10\n"), print(1020, 1240, "S|1204|multistart|0\n"),
			print(1030, 4293, "F|1204|multistart|0\n"), print(1030, 1240, "S|1204|multistart|0\n"),
			print(1050, 4293, "F|1204|multistart|0\n"), print(1060, 4293, "F|1204|multistart|10\n")),
		bundle(2, print(74662603008, 1257, "F|1204|launching: com.android.chrome|0\n")),
		bundle(3, print(74289018336, 4064, "S|1204|launching: com.android.chrome|0\n")),
		bundle(0, print(50, 1, "G|1|track|ev|1024\n"), print(55, 1, "G|1|track|ev|2048\n"), print(60, 2, "G|2|track|ev|1024\n"),
			print(65, 2, "H|2|track|ev|1024\n"), print(70, 1, "H|1|track|2048\n"), print(75, 1, "H|1|track|ev|1024\n")),
		bundle(0, print(2000, 7, "G|7|Frames|frame 1|1"), print(2100, 7, "G|7|Frames|frame 2|2"),
			print(2200, 7, "H|7|Frames|1"), print(2300, 7, "H|7|Frames|9"), print(2400, 7, "S|7|x|notanumber"),
			print(2500, 7, "S|7|left open|3"), print(2600, 7, "N|7|Frames|marker"), print(2650, 8, "N|7|Other|tick"),
			print(2700, 7, "N|7|no name")),
	)
	tr, notes := mustRead(t, data)
	checkRender(t, tr, `
		container Process 1 Process alias=1
		container Process 1/track Track alias=
		container Process 1/track (overlap lane 1) Track alias=
		container Process 2 Process alias=2
		container Process 2/track Track alias=
		container Process 1204 Process alias=1204
		container Process 1204/multistart Track alias=
		container Process 1204/multistart (overlap lane 1) Track alias=
		container Process 7 Process alias=7
		container Process 7/Frames Track alias=
		container Process 7/Frames (overlap lane 1) Track alias=
		container Process 7/left open Track alias=
		container Process 7/Other Track alias=
		container Process 1204/launching: com.android.chrome Track alias=
		state Process 2/track Atrace slice "ev" 60 65 d0 o0
		state Process 1/track (overlap lane 1) Atrace slice "ev" 55 70 d0 o0
		state Process 1/track Atrace slice "ev" 50 75 d0 o0
		state Process 1204/multistart Atrace slice "multistart" 1000 1030 d0 o0
		state Process 1204/multistart Atrace slice "multistart" 1030 1050 d0 o1
		state Process 1204/multistart (overlap lane 1) Atrace slice "multistart" 1015 1060 d0 o0
		state Process 7/Frames Atrace slice "frame 1" 2000 2200 d0 o0
		state Process 1204/launching: com.android.chrome Atrace slice "launching: com.android.chrome" 74289018336 74662603008 d0 o0
		state Process 7/Frames (overlap lane 1) Atrace slice "frame 2" 2100 74662603008 d0 o0
		state Process 7/left open Atrace slice "left open" 2500 74662603008 d0 o0
		event Process 7/Frames Instant "marker" 2600
		event Process 7/Other Instant "tick" 2650
		span 50 74662603008
	`)
	checkTypes(t, tr)
	checkNotes(t, notes,
		"2 slices were still open at the end of the trace, on 2 tracks: they end with it, at 74.662603008 s",
		"skipped 2 ftrace print events that are no atrace annotation (text, malformed annotations)",
		"skipped 2 atrace async slice begins (S, G) of a slice already open (same name and cookie: ignored, as the trace processor ignores them)",
		"skipped 1 atrace async slice ends (F, H) with no open slice of their name and cookie")
}
