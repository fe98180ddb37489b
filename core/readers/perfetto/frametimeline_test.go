package perfetto

import (
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// TestFrameTimeline reads SurfaceFlinger's frame timeline as the trace
// processor shows it (an Android 13 trace of Now in Android holds 7,475
// such packets): starts of the expected and actual frames of
// SurfaceFlinger (display frames, the pid in field 3) and of an app
// (surface frames, the pid in field 4) become states "Frame" named by the
// token on the process's tracks "Expected Timeline" and "Actual Timeline",
// overlapping frames on overlap lanes, each ended by the FrameEnd of its
// cookie; an end of no start and a start without a process are counted, a
// frame left open ends with the trace.
func TestFrameTimeline(t *testing.T) {
	frame := func(at uint64, kind protowire.Number, fields ...[]byte) []byte {
		return pkt(vint(8, at), sub(76, sub(kind, fields...)))
	}
	const expDisplay, actDisplay, expSurface, actSurface, end = 1, 2, 3, 4, 5
	data := traceOf(
		frame(100, expDisplay, vint(1, 1), vint(2, 10), vint(3, 458)),
		frame(110, actDisplay, vint(1, 2), vint(2, 10), vint(3, 458), vint(4, 1), vint(7, 1)),
		frame(120, expSurface, vint(1, 3), vint(2, 20), vint(3, 10), vint(4, 9305), str(5, "app#0")),
		frame(130, actSurface, vint(1, 4), vint(2, 20), vint(3, 10), vint(4, 9305), str(5, "app#0"), vint(9, 64)),
		frame(150, end, vint(1, 1)),
		frame(160, end, vint(1, 2)),
		frame(170, expSurface, vint(1, 5), vint(2, 21), vint(3, 11), vint(4, 9305)),
		frame(180, end, vint(1, 3)),
		frame(190, end, vint(1, 5)),
		frame(200, end, vint(1, 4)),
		frame(210, end, vint(1, 99)),
		frame(220, actSurface, vint(1, 6), vint(2, 22), vint(4, 9305)),
		frame(230, actDisplay, vint(1, 7), vint(2, 30)),
		pkt(vint(8, 300)),
	)
	tr, notes := mustRead(t, data)
	checkRender(t, tr, `
		container Process 458 Process alias=458
		container Process 458/Expected Timeline Track alias=
		container Process 458/Actual Timeline Track alias=
		container Process 9305 Process alias=9305
		container Process 9305/Expected Timeline Track alias=
		container Process 9305/Actual Timeline Track alias=
		container Process 9305/Expected Timeline (overlap lane 1) Track alias=
		state Process 458/Expected Timeline Frame "10" 100 150 d0 o0
		state Process 458/Actual Timeline Frame "10" 110 160 d0 o0
		state Process 9305/Expected Timeline Frame "20" 120 180 d0 o0
		state Process 9305/Expected Timeline (overlap lane 1) Frame "21" 170 190 d0 o0
		state Process 9305/Actual Timeline Frame "20" 130 200 d0 o0
		state Process 9305/Actual Timeline Frame "22" 220 300 d0 o1
		span 100 300
	`)
	checkTypes(t, tr)
	checkNotes(t, notes,
		"1 slices were still open at the end of the trace, on 1 tracks: they end with it, at 0.000000300 s",
		"skipped 1 frame timeline ends whose cookie no start has",
		"skipped 1 frame timeline starts without a process id")
}
