package perfetto

import "testing"

// stateDesc is a TrackDescriptor's StateDescriptor (field 18), empty: it
// marks a state track.
func stateDesc() []byte { return sub(18) }

// TestStateTracks reads TYPE_STATE events (type 5) as Perfetto's own
// tests of them expect: the states of test_track_event_simple_state
// (state_active 1000-3000, state_idle 3000-4000, then none), and the
// process, thread and global state tracks of track_event_state.textproto,
// here with a state track described before its parent. The last state of
// a track ends with the trace; an event on a track that is not a state
// track, one without a track and one earlier than its track's last event
// are skipped and counted.
func TestStateTracks(t *testing.T) {
	data := traceOf(
		pkt(ts(0), trackDesc(20, parentUUID(3), trackName("ProcState"), stateDesc())),
		pkt(ts(0), trackDesc(3, processDesc(5, "Browser"))),
		pkt(ts(0), trackDesc(1, parentUUID(3), threadDesc(5, 10, "t1"))),
		pkt(ts(0), trackDesc(21, parentUUID(1), trackName("ThreadState"), stateDesc())),
		pkt(ts(0), trackDesc(22, trackName("GlobalState"), stateDesc())),
		pkt(ts(0), trackDesc(10, trackName("MyStateTrack"), stateDesc())),
		pkt(ts(0), trackDesc(101, trackName("Regular Track"))),
		pkt(ts(1000), te(evType(state), onTrack(10), str(22, "state_cat"), named("state_active"))),
		pkt(ts(1000), te(evType(state), onTrack(20), named("Foreground"))),
		pkt(ts(1000), te(evType(state), onTrack(101), named("High"))),
		pkt(ts(1500), te(evType(state), named("no track"))),
		pkt(ts(2000), te(evType(state), onTrack(21), named("Running"))),
		pkt(ts(3000), te(evType(state), onTrack(10), named("state_idle"))),
		pkt(ts(2500), te(evType(state), onTrack(10), named("late"))),
		pkt(ts(3000), te(evType(state), onTrack(22), named("Active"))),
		pkt(ts(4000), te(evType(state), onTrack(10))),
		pkt(ts(5000), te(evType(instant), onTrack(1), named("end"))),
	)
	tr, notes := mustRead(t, data)
	checkRender(t, tr, `
		container Browser 5 Process alias=5
		container Browser 5/ProcState Track alias=20
		container Browser 5/t1 10 Thread alias=10
		container Browser 5/t1 10/ThreadState Track alias=21
		container GlobalState Track alias=22
		container MyStateTrack Track alias=10
		container Regular Track Track alias=101
		state MyStateTrack State "state_active" 1000 3000 d0 o0
		state MyStateTrack State "state_idle" 3000 4000 d0 o1
		state Browser 5/ProcState State "Foreground" 1000 5000 d0 o0
		state Browser 5/t1 10/ThreadState State "Running" 2000 5000 d0 o0
		state GlobalState State "Active" 3000 5000 d0 o0
		event Browser 5/t1 10 Instant "end" 5000
		span 0 5000
	`)
	checkTypes(t, tr)
	checkNotes(t, notes,
		"skipped 1 categories of track events (not kept)",
		"skipped 1 state events on tracks that are not state tracks",
		"skipped 1 state events without a track",
		"skipped 1 state events earlier than the last event of their track")
}
