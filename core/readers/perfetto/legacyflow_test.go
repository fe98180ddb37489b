package perfetto

import "testing"

// TestLegacyFlowV2 rebuilds Perfetto's own diff test
// test/trace_processor/diff_tests/parser/track_event/flow_events_proto_v2
// (complete legacy events joined by LegacyEvent.bind_id and
// flow_direction, as Chrome writes TRACE_EVENT flows) and expects the
// flows the trace processor reports for it:
//
//	"FlowBeginSlice" -> "FlowEndSlice_1"
//	"FlowBeginSlice" -> "FlowStepSlice"
//	"FlowStepSlice"  -> "FlowEndSlice_2"
//
// FLOW_IN leaves the flow open, so that two events end the same flow.
func TestLegacyFlowV2(t *testing.T) {
	const in, out, inout = 1, 2, 3
	complete := func(at uint64, track uint64, name string, bind, dir uint64) []byte {
		return pkt(seqID(1), ts(at), te(named(name), onTrack(track),
			sub(6, vint(8, bind), vint(13, dir), vint(3, 10), vint(2, 'X'))))
	}
	data := traceOf(
		pkt(seqID(1), ts(0), trackDesc(1, threadDesc(1, 1, "t1"))),
		pkt(seqID(1), ts(0), trackDesc(2, threadDesc(2, 2, "t2"))),
		complete(10000, 1, "FlowBeginSlice", 1, out),
		complete(30000, 2, "FlowEndSlice_1", 1, in),
		complete(50000, 1, "FlowStepSlice", 1, inout),
		complete(55000, 2, "FlowEndSlice_2", 1, in),
		// A second start of an active id, and an end of an id never
		// started, are ignored like the trace processor does.
		complete(80000, 1, "Again", 1, out),
		complete(100000, 1, "Orphan", 9, in),
		complete(120000, 1, "NoDirection", 1, 0),
	)
	tr, notes := mustRead(t, data)
	checkRender(t, tr, `
		container Process 1 Process alias=1
		container Process 1/t1 1 Thread alias=1
		container Process 2 Process alias=2
		container Process 2/t2 2 Thread alias=2
		state Process 1/t1 1 Slice "FlowBeginSlice" 10000 20000 d0 o0
		state Process 2/t2 2 Slice "FlowEndSlice_1" 30000 40000 d0 o0
		state Process 1/t1 1 Slice "FlowStepSlice" 50000 60000 d0 o1
		state Process 1/t1 1 Slice "Again" 80000 90000 d0 o2
		state Process 1/t1 1 Slice "Orphan" 100000 110000 d0 o3
		state Process 1/t1 1 Slice "NoDirection" 120000 130000 d0 o4
		state Process 2/t2 2 Slice "FlowEndSlice_2" 55000 65000 d0 o1
		link Flow "FlowBeginSlice" Process 1/t1 1 -> Process 2/t2 2 10000 30000 key=1
		link Flow "FlowBeginSlice" Process 1/t1 1 -> Process 1/t1 1 10000 50000 key=1
		link Flow "FlowStepSlice" Process 1/t1 1 -> Process 2/t2 2 50000 55000 key=1
		span 0 130000
	`)
	checkTypes(t, tr)
	checkNotes(t, notes,
		"skipped 1 legacy flow starts of an id already active (ignored)",
		"skipped 1 legacy flow steps and ends with no flow started",
		"skipped 1 legacy flow events without a direction")
}

// TestCompleteSlicesThatDoNotNest covers complete (legacy X) slices that
// overlap without nesting, and open slices begun inside a complete one
// that outlive it, which Perfetto's trace processor resolves
// (SliceTracker::MaybeCloseStack) by dropping the overlapping complete
// slice and by ending the open slices with the complete one. Every state
// delivered then nests in the one below it.
func TestCompleteSlicesThatDoNotNest(t *testing.T) {
	complete := func(at uint64, name string, durUS uint64) []byte {
		return pkt(seqID(1), ts(at), te(named(name), onTrack(1), sub(6, vint(2, 'X'), vint(3, durUS))))
	}
	data := traceOf(
		pkt(seqID(1), ts(0), trackDesc(1, threadDesc(1, 1, "t"))),
		complete(10000, "outer", 100),    // [10000, 110000)
		complete(20000, "overlaps", 100), // [20000, 120000): dropped
		complete(30000, "inner", 10),     // [30000, 40000): nests
		pkt(seqID(1), ts(50000), te(evType(begin), onTrack(1), named("open"))),
		// An event after outer's end ends "open" and outer at 110000; the
		// end event of "open" then finds nothing to close.
		pkt(seqID(1), ts(150000), te(evType(instant), onTrack(1), named("later"))),
		pkt(seqID(1), ts(160000), te(evType(end), onTrack(1))),
		complete(200000, "last", 100), // [200000, 300000)
		pkt(seqID(1), ts(210000), te(evType(begin), onTrack(1), named("never ended"))),
	)
	tr, notes := mustRead(t, data)
	checkRender(t, tr, `
		container Process 1 Process alias=1
		container Process 1/t 1 Thread alias=1
		state Process 1/t 1 Slice "inner" 30000 40000 d1 o1
		state Process 1/t 1 Slice "open" 50000 110000 d1 o2
		state Process 1/t 1 Slice "outer" 10000 110000 d0 o0
		state Process 1/t 1 Slice "never ended" 210000 300000 d1 o4
		state Process 1/t 1 Slice "last" 200000 300000 d0 o3
		event Process 1/t 1 Instant "later" 150000
		span 0 300000
	`)
	checkTypes(t, tr)
	checkNotes(t, notes,
		"2 slices were still open when the complete slice enclosing them ended: they end with it",
		"skipped 1 complete slices that overlap an enclosing complete slice without nesting in it (dropped, as the trace processor does)",
		"skipped 1 slice ends with no open slice on their track")
}

// TestLegacyAsync rebuilds Perfetto's diff tests legacy_async_event and
// track_event_merged_debug_annotations (parser/track_event): legacy async
// events ('S', 'T', 'p', 'F' of one unscoped id, and a nestable 'b' and
// 'e' written by two threads) form slices and instants on a track of
// their id, as the trace processor reports them: "name1" [1000, 8000)
// holding "name1" [2000, 3000), instants at 3000 and 5000; and one
// nestable slice [1000, 2000) although its ends come from two threads.
func TestLegacyAsync(t *testing.T) {
	legacy := func(phase byte, id uint64) []byte { return sub(6, vint(2, uint64(phase)), vint(6, id)) }
	ev := func(at uint64, parts ...[]byte) []byte {
		return pkt(seqID(1), ts(at), te(append([][]byte{named("name1"), str(22, "cat")}, parts...)...))
	}
	data := traceOf(
		pkt(seqID(1), ts(0), trackDesc(1, threadDesc(5, 1, "t1"))),
		ev(1000, onTrack(1), legacy('S', 1234)),
		ev(2000, onTrack(1), legacy('S', 1234)),
		ev(3000, onTrack(1), legacy('F', 1234)),
		ev(8000, onTrack(1), legacy('F', 1234)),
		ev(3000, onTrack(1), legacy('T', 1234)),
		ev(5000, onTrack(1), legacy('p', 1234)),
		ev(9000, onTrack(1), legacy('F', 1234)),    // nothing left to end
		ev(9000, onTrack(1), sub(6, vint(2, 'S'))), // no id
	)
	tr, notes := mustRead(t, data)
	checkRender(t, tr, `
		container Process 5 Process alias=5
		container Process 5/t1 1 Thread alias=1
		container Process 5/name1 (async 1234) Track alias=1234
		state Process 5/name1 (async 1234) Slice "name1" 2000 3000 d1 o1
		state Process 5/name1 (async 1234) Slice "name1" 1000 8000 d0 o0
		event Process 5/name1 (async 1234) Instant "name1" 3000
		event Process 5/name1 (async 1234) Instant "name1" 5000
		span 0 9000
	`)
	checkTypes(t, tr)
	checkNotes(t, notes,
		"skipped 7 categories of track events (not kept)",
		"skipped 1 legacy async slice ends with no open slice of their id",
		"skipped 1 legacy async events without an id")

	nestable := traceOf(
		pkt(seqID(1), ts(0), trackDesc(1, threadDesc(5, 1, "t1"))),
		pkt(seqID(1), ts(0), trackDesc(2, threadDesc(5, 5, "t5"))),
		pkt(seqID(1), ts(1000), te(named("name1"), onTrack(1), legacy('b', 1234))),
		pkt(seqID(1), ts(1500), te(named("mark"), onTrack(1), legacy('n', 1234))),
		pkt(seqID(1), ts(2000), te(named("name1"), onTrack(2), legacy('e', 1234))),
	)
	tr, _ = mustRead(t, nestable)
	checkRender(t, tr, `
		container Process 5 Process alias=5
		container Process 5/t1 1 Thread alias=1
		container Process 5/t5 5 Thread alias=5
		container Process 5/name1 (async 1234) Track alias=1234
		state Process 5/name1 (async 1234) Slice "name1" 1000 2000 d0 o0
		event Process 5/name1 (async 1234) Instant "mark" 1500
		span 0 2000
	`)
}

// TestLegacyFlowV1 rebuilds Perfetto's diff test flow_events_proto_v1
// (parser/track_event): flow events of phases 's', 't', 'f' bind to the
// slice enclosing them, and an 'f' without bind_to_enclosing to the next
// slice that begins on its thread. The trace processor reports:
//
//	"FlowBeginSlice" -> "FlowEndSlice_1"
//	"FlowEndSlice_1" -> "FlowStepSlice"
//	"FlowStepSlice"  -> "FlowEndSlice_2"
func TestLegacyFlowV1(t *testing.T) {
	x := func(at, track uint64, name string) []byte {
		return pkt(seqID(1), ts(at), te(named(name), onTrack(track), sub(6, vint(3, 10), vint(2, 'X'))))
	}
	flow := func(at, track uint64, name string, phase byte, id uint64, enclosing bool) []byte {
		parts := [][]byte{vint(2, uint64(phase)), vint(6, id)}
		if enclosing {
			parts = append(parts, vint(12, 1))
		}
		return pkt(seqID(1), ts(at), te(named(name), onTrack(track), sub(6, parts...)))
	}
	data := traceOf(
		pkt(seqID(1), ts(0), trackDesc(1, threadDesc(1, 1, "t1"))),
		pkt(seqID(1), ts(0), trackDesc(2, threadDesc(2, 2, "t2"))),
		x(10000, 1, "FlowBeginSlice"),
		flow(10000, 1, "Flow330", 's', 330, false),
		flow(29999, 2, "Flow330", 'f', 330, false),
		x(30000, 2, "FlowEndSlice_1"),
		flow(30001, 2, "Flow331", 's', 331, false),
		x(50000, 1, "FlowStepSlice"),
		flow(50100, 1, "Flow331", 't', 331, false),
		x(55000, 2, "FlowEndSlice_2"),
		flow(55100, 2, "Flow331", 'f', 331, true),
		flow(70000, 2, "Flow999", 'f', 999, false), // no slice follows
	)
	tr, notes := mustRead(t, data)
	checkRender(t, tr, `
		container Process 1 Process alias=1
		container Process 1/t1 1 Thread alias=1
		container Process 2 Process alias=2
		container Process 2/t2 2 Thread alias=2
		state Process 1/t1 1 Slice "FlowBeginSlice" 10000 20000 d0 o0
		state Process 2/t2 2 Slice "FlowEndSlice_1" 30000 40000 d0 o0
		state Process 1/t1 1 Slice "FlowStepSlice" 50000 60000 d0 o1
		state Process 2/t2 2 Slice "FlowEndSlice_2" 55000 65000 d0 o1
		link Flow "FlowBeginSlice" Process 1/t1 1 -> Process 2/t2 2 10000 30000 key=330
		link Flow "FlowEndSlice_1" Process 2/t2 2 -> Process 1/t1 1 30000 50000 key=331
		link Flow "FlowStepSlice" Process 1/t1 1 -> Process 2/t2 2 50000 55000 key=331
		span 0 70000
	`)
	checkTypes(t, tr)
	checkNotes(t, notes, "skipped 1 legacy flow ends (v1) with no slice after them to bind to")
}
