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
		"skipped 2 ftrace print events that are no atrace slice, instant or counter (text, async slices)",
		"skipped 1 atrace slice ends (E) with no open slice on their thread")
}
