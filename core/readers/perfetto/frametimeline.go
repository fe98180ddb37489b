package perfetto

import (
	"strconv"

	"github.com/macroscope-hpc/macroscope/core/readers/pbwalk"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// SurfaceFlinger's FrameTimeline (Android 12 and later) writes, in packets
// of their own (frame_timeline_event.proto), the expected and the actual
// span of every frame: a start (ExpectedDisplayFrameStart and
// ActualDisplayFrameStart for SurfaceFlinger's own work,
// ExpectedSurfaceFrameStart and ActualSurfaceFrameStart for an app's) with
// a cookie, the process id and the frame's token, then a FrameEnd with the
// cookie alone. As the trace processor does, they become slices named by
// the token on the process's tracks "Expected Timeline" and "Actual
// Timeline": here async atrace slices of those groups (atraceasync.go),
// whose overlapping frames take overlap lanes, states "Frame" (a group
// apart from atrace's tracks of the same name). The jank and present types
// are not kept (the model has no place for them).

// FrameTimelineEvent (android/frame_timeline_event.proto).
const (
	ftlExpectedDisplayStart = 1
	ftlActualDisplayStart   = 2
	ftlExpectedSurfaceStart = 3
	ftlActualSurfaceStart   = 4
	ftlFrameEnd             = 5
	ftlCookie               = 1 // in every one of them
	ftlToken                = 2 // in the starts
	ftlDisplayPID           = 3 // ExpectedDisplayFrameStart, ActualDisplayFrameStart
	ftlSurfacePID           = 4 // ExpectedSurfaceFrameStart, ActualSurfaceFrameStart
)

// The tracks of a process that frame timeline slices go on, as the trace
// processor names them.
const (
	expectedTimeline = "Expected Timeline"
	actualTimeline   = "Actual Timeline"
)

// frameTimeline reads a FrameTimelineEvent packet at time ts.
func (d *decoder) frameTimeline(f field, ts trace.Time, timed bool) error {
	if !f.IsBytes() {
		d.skip("frame timeline events that are not a message", 1)
		return nil
	}
	var kind int32
	var body field
	if err := pbwalk.Each(f.B, f.Off, func(g field) error {
		if g.Num >= ftlExpectedDisplayStart && g.Num <= ftlFrameEnd && g.IsBytes() {
			kind, body = int32(g.Num), g
		}
		return nil
	}); err != nil {
		return err
	}
	if kind == 0 {
		d.skip("frame timeline events of an unknown kind", 1)
		return nil
	}
	if !timed {
		d.skip("frame timeline events without a timestamp", 1)
		return nil
	}
	var cookie, token int64
	var pid int32
	pidField := uint64(ftlSurfacePID)
	if kind == ftlExpectedDisplayStart || kind == ftlActualDisplayStart {
		pidField = ftlDisplayPID
	}
	if err := pbwalk.Each(body.B, body.Off, func(g field) error {
		if !g.IsVarint() {
			return nil
		}
		switch uint64(g.Num) {
		case ftlCookie:
			cookie = g.Int64()
		case ftlToken:
			token = g.Int64()
		case pidField:
			pid = g.Int32()
		}
		return nil
	}); err != nil {
		return err
	}
	if kind == ftlFrameEnd {
		k, ok := d.frameCookies[cookie]
		if !ok {
			d.skip("frame timeline ends whose cookie no start has", 1)
			return nil
		}
		delete(d.frameCookies, cookie)
		d.atrace = append(d.atrace, atraceEvent{at: ts, tgid: k.tgid, phase: 'F', name: k.name, value: cookie, frame: true})
		return nil
	}
	if pid <= 0 {
		d.skip("frame timeline starts without a process id", 1)
		return nil
	}
	k := atraceGroupKey{tgid: pid, name: actualTimeline, frame: true}
	if kind == ftlExpectedDisplayStart || kind == ftlExpectedSurfaceStart {
		k.name = expectedTimeline
	}
	if d.frameCookies == nil {
		d.frameCookies = map[int64]atraceGroupKey{}
	}
	d.frameCookies[cookie] = k
	d.atrace = append(d.atrace, atraceEvent{at: ts, tgid: pid, phase: 'S', name: k.name, slice: strconv.FormatInt(token, 10), value: cookie, frame: true})
	return nil
}
