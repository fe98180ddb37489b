package perfetto

import (
	"reflect"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestHierarchyAndSlices covers the containers track descriptors and
// process trees make, nested slices, instants, an unterminated slice and
// an end with nothing open.
func TestHierarchyAndSlices(t *testing.T) {
	data := traceOf(
		pkt(trackDesc(1, processDesc(10, "app"))),
		pkt(trackDesc(2, threadDesc(10, 11, "main"))),
		pkt(trackDesc(3, parentUUID(1), trackName("async"))),
		pkt(trackDesc(4, parentUUID(2), trackName("thread-child"))),
		pkt(trackDesc(5, trackName("global-custom"))),
		pkt(trackDesc(6, parentUUID(5), trackName("nested"))),
		pkt(sub(2, // ProcessTree
			sub(1, vint(1, 20), str(3, "/bin/daemon"), str(3, "--flag")),
			sub(2, vint(1, 21), vint(3, 20), str(2, "worker")),
			sub(2, vint(1, 11), vint(3, 10), str(2, "not-main")))),
		pkt(ts(50), te(evType(instant), named("global-instant"))),
		pkt(ts(100), te(evType(begin), onTrack(2), named("outer"), str(22, "cat"), vint(3, 1), sub(4, str(10, "k")))),
		pkt(ts(105), te(evType(begin), onTrack(3), named("req"))),
		pkt(ts(110), te(evType(begin), onTrack(2), named("inner"))),
		pkt(ts(120), te(evType(end), onTrack(2))),
		pkt(ts(125), te(evType(instant), onTrack(2), named("tick"))),
		pkt(ts(130), te(evType(begin), onTrack(2), named("inner"))),
		pkt(ts(140), te(evType(end), onTrack(2))),
		pkt(ts(150), te(evType(end), onTrack(2))),
		pkt(ts(160), te(evType(end), onTrack(6))),
		pkt(ts(300), te(evType(end), onTrack(3))),
		pkt(ts(310), te(evType(begin), onTrack(4), named("open"))),
		pkt(ts(400), te(evType(instant), onTrack(5), named("last"))),
	)
	tr, notes := mustRead(t, data)
	checkRender(t, tr, `
		container app 10 Process alias=10
		container app 10/main 11 Thread alias=11
		container app 10/async Track alias=3
		container app 10/main 11/thread-child Track alias=4
		container global-custom Track alias=5
		container global-custom/nested Track alias=6
		container /bin/daemon 20 Process alias=20
		container /bin/daemon 20/worker 21 Thread alias=21
		container Global Track alias=0
		state app 10/main 11 Slice "inner" 110 120 d1 o1
		state app 10/main 11 Slice "inner" 130 140 d1 o2
		state app 10/main 11 Slice "outer" 100 150 d0 o0
		state app 10/async Slice "req" 105 300 d0 o0
		state app 10/main 11/thread-child Slice "open" 310 400 d0 o0
		event Global Instant "global-instant" 50
		event app 10/main 11 Instant "tick" 125
		event global-custom Instant "last" 400
		span 50 400
	`)
	checkTypes(t, tr)
	checkNotes(t, notes,
		"1 slices were still open at the end of the trace, on 1 tracks: they end with it, at 0.000000400 s",
		"skipped 1 categories of track events (not kept)",
		"skipped 1 arguments of track events (debug annotations, typed fields: not kept)",
		"skipped 1 slice ends with no open slice on their track")
	for i, c := range tr.Containers[1:] {
		if c.Start != 50 || c.End != 400 {
			t.Errorf("container %d lives %v..%v, want the trace's span", i+1, c.Start, c.End)
		}
	}
}

// TestInterningAndClocks covers interned names, the incremental state of
// sequences (cleared, lost, never set), defaults (track, clock), an
// incremental sequence-scoped clock with a unit, and a built-in clock
// before and after a snapshot relates it to boot time.
func TestInterningAndClocks(t *testing.T) {
	names := map[uint64]string{1: "alpha", 2: "beta"}
	data := traceOf(
		pkt(trackDesc(2, threadDesc(1, 2, "t"))),
		// Sequence 7: the SDK's way, deltas of microseconds on clock 64.
		pkt(seqID(7), flags(cleared), interned(names, 1, 2),
			sub(59, vint(58, 64), sub(11, vint(11, 2))),
			sub(6, sub(1, vint(1, 6), vint(2, 1000)),
				sub(1, vint(1, 64), vint(2, 10), vint(3, 1), vint(4, 1000)))),
		pkt(seqID(7), flags(needs), ts(5), te(evType(begin), nameIID(1))),
		pkt(seqID(7), flags(needs), ts(3), te(evType(end))),
		pkt(seqID(7), flags(needs), ts(2), te(evType(instant), nameIID(9))),
		pkt(seqID(7), flags(needs), dropped(), ts(1), te(evType(instant), nameIID(2))),
		pkt(seqID(7), flags(cleared|needs), interned(map[uint64]string{1: "gamma"}, 1),
			ts(20000), te(evType(instant), nameIID(1))),
		pkt(seqID(8), flags(needs), ts(30000), te(evType(instant), named("x"))),
		// Sequence 9: CLOCK_MONOTONIC (3), related to boot time later.
		pkt(seqID(9), clockID(3), ts(500), te(evType(instant), onTrack(2), named("mono"))),
		pkt(seqID(9), sub(6, sub(1, vint(1, 6), vint(2, 50000)), sub(1, vint(1, 3), vint(2, 1000)))),
		pkt(seqID(9), clockID(3), ts(1500), te(evType(instant), onTrack(2), named("mono2"))),
		// Sequence 10: a sequence-scoped clock without a snapshot.
		pkt(seqID(10), clockID(64), ts(5), te(evType(instant), onTrack(2), named("lost"))),
	)
	tr, notes := mustRead(t, data)
	checkRender(t, tr, `
		container Process 1 Process alias=1
		container Process 1/t 2 Thread alias=2
		container Global Track alias=0
		state Process 1/t 2 Slice "alpha" 6000 9000 d0 o0
		event Process 1/t 2 Instant "iid 9" 11000
		event Global Instant "gamma" 20000
		event Process 1/t 2 Instant "mono" 500
		event Process 1/t 2 Instant "mono2" 50500
		span 500 50500
	`)
	checkTypes(t, tr)
	checkNotes(t, notes,
		"1 packets have timestamps on clock 3, which no clock snapshot relates to boot time: they are used as they are",
		"skipped 1 event names whose interned id is unknown on their sequence (named by the id)",
		"skipped 2 packets whose sequence's incremental state was lost or never set",
		"skipped 1 packets on a sequence-scoped clock with no clock snapshot on their sequence")
}

// TestCountersAndFlows covers counter tracks (unit multiplier,
// incremental values, double values, two counters of one name), extra
// counter values through the sequence's defaults, and flows: a chain, a
// terminated flow and flows of one event.
func TestCountersAndFlows(t *testing.T) {
	data := traceOf(
		pkt(trackDesc(1, threadDesc(1, 1, "t"))),
		pkt(trackDesc(100, parentUUID(1), trackName("mem"), counterDesc(vint(4, 1024)))),
		pkt(trackDesc(101, trackName("load"), counterDesc(vint(5, 1)))),
		pkt(trackDesc(102, parentUUID(1), trackName("mem"), counterDesc())),
		pkt(trackDesc(103, parentUUID(1), trackName("cpu_time"), counterDesc(vint(1, 1)))),
		pkt(seqID(1), flags(cleared), sub(59, sub(11, vint(11, 1), vint(31, 103)))),
		pkt(seqID(1), flags(needs), ts(10), te(evType(counter), onTrack(100), vint(30, 2))),
		pkt(seqID(1), flags(needs), ts(15), te(evType(counter), onTrack(101), vint(30, 5))),
		pkt(seqID(1), flags(needs), ts(20), te(evType(counter), onTrack(100), dbl(44, 1.5))),
		pkt(seqID(1), flags(needs), ts(25), te(evType(counter), onTrack(101), vint(30, 3))),
		pkt(seqID(1), flags(needs), ts(30), te(evType(counter), onTrack(102), vint(30, 7))),
		pkt(seqID(1), flags(needs), ts(40), te(evType(begin), named("a"), vint(12, 100), fix64(47, 77))),
		pkt(seqID(1), flags(needs), ts(50), te(evType(end), vint(12, 150))),
		pkt(seqID(1), flags(needs), ts(60), te(evType(instant), named("b"), fix64(47, 77))),
		pkt(seqID(1), flags(needs), ts(70), te(evType(instant), onTrack(0), named("c"), fix64(48, 77))),
		pkt(seqID(1), flags(needs), ts(80), te(evType(instant), named("d"), fix64(47, 78))),
		pkt(seqID(1), flags(needs), ts(90), te(evType(instant), named("e"), fix64(48, 79))),
	)
	tr, notes := mustRead(t, data)
	checkRender(t, tr, `
		container Process 1 Process alias=1
		container Process 1/t 1 Thread alias=1
		container Global Track alias=0
		state Process 1/t 1 Slice "a" 40 50 d0 o0
		event Process 1/t 1 Instant "b" 60
		event Global Instant "c" 70
		event Process 1/t 1 Instant "d" 80
		event Process 1/t 1 Instant "e" 90
		variable Process 1/t 1 mem 10 20 2048
		variable Process 1/t 1 mem 20 90 1536
		variable / load 15 25 5
		variable / load 25 90 8
		variable Process 1/t 1 mem 102 30 90 7
		variable Process 1/t 1 cpu_time 40 50 100
		variable Process 1/t 1 cpu_time 50 90 150
		link Flow "a" Process 1/t 1 -> Process 1/t 1 40 60 key=77
		link Flow "b" Process 1/t 1 -> Global 60 70 key=77
		span 10 90
	`)
	checkTypes(t, tr)
	checkNotes(t, notes, "skipped 2 flow points no other event continues (flows of one event)")
}

// TestSched covers sched_switch events of ftrace bundles and their
// compact encoding, the idle task, and ftrace events of other kinds.
func TestSched(t *testing.T) {
	sw := func(at uint64, comm string, pid uint64) []byte {
		return sub(2, vint(1, at), vint(2, 99), sub(4, str(1, "prev"), vint(2, 99), str(5, comm), vint(6, pid)))
	}
	packed := func(num int, vals ...uint64) []byte {
		var b []byte
		for _, v := range vals {
			b = append(b, vint(0, v)[1:]...) // a varint without its tag
		}
		return sub(protowireNumber(num), b)
	}
	data := traceOf(
		pkt(sub(2, sub(2, vint(1, 8), vint(3, 8), str(2, "named-by-tree")))),
		pkt(sub(1, vint(1, 0), sw(100, "A", 5), sw(200, "swapper/0", 0),
			sub(2, vint(1, 250), sub(3, str(2, "print"))), sw(300, "B", 6))),
		pkt(sub(1, vint(1, 1), sub(4, str(5, "C"), str(5, ""),
			packed(1, 150, 50, 100), packed(3, 7, 8, 0), packed(6, 0, 1, 0),
			packed(7, 160, 10), packed(8, 7, 7)))),
		pkt(ts(500), sub(35)),
	)
	tr, notes := mustRead(t, data)
	checkRender(t, tr, `
		container Process 8 Process alias=8
		container Process 8/named-by-tree 8 Thread alias=8
		container CPU 0 CPU alias=0
		container CPU 1 CPU alias=1
		state CPU 0 Running "A [5]" 100 200 d0 o0
		state CPU 1 Running "C [7]" 150 200 d0 o0
		state CPU 1 Running "named-by-tree [8]" 200 300 d0 o1
		state CPU 0 Running "B [6]" 300 500 d0 o1
		span 100 500
	`)
	checkTypes(t, tr)
	// The values name the threads that run: marked so, which groups them
	// by thread name (names.GroupThread) and no other "<name> [<n>]".
	for _, v := range tr.Values {
		if v.Role != trace.RoleScheduledThread {
			t.Errorf("value %q of type %q has role %q, want %q", v.Name, tr.Types[v.Type].Name, v.Role, trace.RoleScheduledThread)
		}
	}
	if len(tr.Values) != 4 {
		t.Errorf("%d values, want 4", len(tr.Values))
	}
	checkNotes(t, notes,
		"skipped 1 ftrace print events that are no atrace annotation (text, malformed annotations)",
		"skipped 2 compact sched_waking events",
		"skipped 1 packets of kind trace_stats")
}

// TestLegacyEvents covers old writers: a ThreadDescriptor packet giving
// the sequence's thread and reference time, microsecond timestamps
// (deltas and absolute), and legacy phases, complete slices (X) nested by
// their times among them.
func TestLegacyEvents(t *testing.T) {
	legacy := func(phase byte, durUS uint64) []byte {
		parts := [][]byte{vint(2, uint64(phase))}
		if durUS > 0 {
			parts = append(parts, vint(3, durUS))
		}
		return sub(6, parts...)
	}
	delta := func(us uint64) []byte { return vint(1, us) }
	data := traceOf(
		pkt(seqID(5), sub(44, vint(1, 3), vint(2, 4), str(5, "legacy"), vint(6, 1000))),
		pkt(seqID(5), te(delta(10), named("outer"), legacy('X', 50))),
		pkt(seqID(5), te(delta(5), named("inner"), legacy('X', 10))),
		pkt(seqID(5), te(delta(40), named("after"), legacy('I', 0))),
		pkt(seqID(5), te(vint(16, 2000), named("b2"), legacy('B', 0))),
		pkt(seqID(5), te(delta(1000), legacy('E', 0))),
		pkt(seqID(5), te(delta(1), named("ctr"), legacy('C', 0))),
		pkt(seqID(5), te(named("untimed"), evType(instant))),
	)
	tr, notes := mustRead(t, data)
	checkRender(t, tr, `
		container Process 3 Process alias=3
		container Process 3/legacy 4 Thread alias=4
		state Process 3/legacy 4 Slice "inner" 1015000 1025000 d1 o1
		state Process 3/legacy 4 Slice "outer" 1010000 1060000 d0 o0
		state Process 3/legacy 4 Slice "b2" 2000000 2055000 d0 o2
		event Process 3/legacy 4 Instant "after" 1055000
		span 1000000 2056000
	`)
	checkTypes(t, tr)
	checkNotes(t, notes,
		"skipped 1 legacy track events of phase 'C'",
		"skipped 1 track events without a timestamp")
}

// TestCompressedAndSkipped covers packets compressed inside the trace and
// the counts of packets of kinds the model has no place for.
func TestCompressedAndSkipped(t *testing.T) {
	inner := traceOf(
		pkt(trackDesc(1, trackName("zipped"))),
		pkt(ts(10), te(evType(begin), onTrack(1), named("z"))),
	)
	data := traceOf(
		pkt(sub(50, zlibbed(t, inner))),
		pkt(ts(20), te(evType(end), onTrack(1))),
		pkt(ts(5), sub(93, str(1, "layers"))),
		pkt(ts(30), sub(93, str(1, "layers"))),
		pkt(sub(1500, str(1, "extension"))),
		pkt(sub(36, str(1, "marker"))),
	)
	tr, notes := mustRead(t, data)
	checkRender(t, tr, `
		container zipped Track alias=1
		state zipped Slice "z" 10 20 d0 o0
		span 5 30
	`)
	checkNotes(t, notes,
		"skipped 2 packets of kind winscope/surfaceflinger_layers_snapshot",
		"skipped 1 packets of kind 1500 (a TracePacket field this reader does not know)",
		"skipped 1 packets of kind synchronization_marker")
}

// TestChromeClocks lays out clocks as Chromium's own tracing writes them
// (--trace-startup-format=proto): the tracing service's snapshot relates
// MONOTONIC (3) to boot time; each sequence's first packet sets the
// default clock to the incremental microsecond clock 64, carries a
// timestamp on it, and holds the snapshot that relates clocks 64 and 65
// (absolute microseconds) to MONOTONIC only. Before the fix every packet
// of such a sequence was skipped as having no snapshot.
func TestChromeClocks(t *testing.T) {
	data := traceOf(
		pkt(trackDesc(2, threadDesc(1, 2, "t"))),
		pkt(seqID(1), sub(6, sub(1, vint(1, 6), vint(2, 1_000_000)), sub(1, vint(1, 3), vint(2, 400_000)))),
		pkt(seqID(7), flags(cleared), ts(0), sub(59, vint(58, 64)),
			sub(6, sub(1, vint(1, 3), vint(2, 500_000)),
				sub(1, vint(1, 64), vint(2, 500), vint(3, 1), vint(4, 1000)),
				sub(1, vint(1, 65), vint(2, 500), vint(4, 1000)))),
		pkt(seqID(7), flags(needs), ts(2), te(evType(begin), onTrack(2), named("a"))),
		pkt(seqID(7), flags(needs), ts(3), te(evType(end), onTrack(2))),
		pkt(seqID(7), flags(needs), clockID(65), ts(510), te(evType(instant), onTrack(2), named("abs"))),
	)
	tr, notes := mustRead(t, data)
	// monotonic 502 µs is boot time 1,102,000 ns; 505 µs 1,105,000;
	// 510 µs 1,110,000.
	checkRender(t, tr, `
		container Process 1 Process alias=1
		container Process 1/t 2 Thread alias=2
		state Process 1/t 2 Slice "a" 1102000 1105000 d0 o0
		event Process 1/t 2 Instant "abs" 1110000
		span 1000000 1110000
	`)
	checkNotes(t, notes)
}

// TestLateCounterValues covers counter values that come out of time
// order, as Chromium writes V8's heap counters from several threads
// hundreds of milliseconds late: within the reorder window they take
// their place; one earlier than a value already placed (past the window)
// is skipped and counted.
func TestLateCounterValues(t *testing.T) {
	packets := [][]byte{
		pkt(trackDesc(1, threadDesc(1, 1, "t"))),
		pkt(trackDesc(100, parentUUID(1), trackName("heap"), counterDesc())),
		pkt(seqID(1), flags(cleared)),
		pkt(seqID(1), flags(needs), ts(10), te(evType(counter), onTrack(100), vint(30, 1))),
		pkt(seqID(1), flags(needs), ts(30), te(evType(counter), onTrack(100), vint(30, 3))),
		pkt(seqID(1), flags(needs), ts(20), te(evType(counter), onTrack(100), vint(30, 2))), // late
		pkt(seqID(1), flags(needs), ts(30), te(evType(counter), onTrack(100), vint(30, 4))), // same time: after
		pkt(seqID(1), flags(needs), ts(40), te(evType(instant), onTrack(1), named("end"))),
	}
	tr, notes := mustRead(t, traceOf(packets...))
	checkRender(t, tr, `
		container Process 1 Process alias=1
		container Process 1/t 1 Thread alias=1
		event Process 1/t 1 Instant "end" 40
		variable Process 1/t 1 heap 10 20 1
		variable Process 1/t 1 heap 20 30 2
		variable Process 1/t 1 heap 30 30 3
		variable Process 1/t 1 heap 30 40 4
		span 10 40
	`)
	checkNotes(t, notes)

	// Past the window, a late value is skipped.
	packets = packets[:3]
	for i := 0; i <= counterWindow+1; i++ {
		packets = append(packets, pkt(seqID(1), flags(needs), ts(uint64(100+i)), te(evType(counter), onTrack(100), vint(30, uint64(i)))))
	}
	packets = append(packets, pkt(seqID(1), flags(needs), ts(100), te(evType(counter), onTrack(100), vint(30, 9))))
	tr, notes = mustRead(t, traceOf(packets...))
	if tr.Variables.Len() != counterWindow+2 {
		t.Errorf("%d values, want %d", tr.Variables.Len(), counterWindow+2)
	}
	checkNotes(t, notes, "skipped 1 counter values earlier than values of their track already placed")
}

// TestProcessNameAfterCommandLine covers Chromium's way of describing a
// process twice: first with its command line and an empty process_name,
// then with its name. The name wins over the command line, whichever
// comes first; a command line names a process that has no name.
func TestProcessNameAfterCommandLine(t *testing.T) {
	cmdOnly := func(pid uint64, cmd string) []byte { return sub(3, vint(1, pid), str(2, cmd), str(6, "")) }
	withName := func(pid uint64, cmd, name string) []byte { return sub(3, vint(1, pid), str(2, cmd), str(6, name)) }
	data := traceOf(
		pkt(trackDesc(1, cmdOnly(5, "/usr/lib/chromium/chromium --type=gpu-process"))),
		pkt(trackDesc(1, withName(5, "/usr/lib/chromium/chromium --type=gpu-process", "GPU Process"))),
		pkt(trackDesc(2, cmdOnly(6, "/usr/bin/other"))),
		pkt(ts(10), te(evType(instant), onTrack(1), named("a"))),
		pkt(ts(20), te(evType(instant), onTrack(2), named("b"))),
	)
	tr, _ := mustRead(t, data)
	checkRender(t, tr, `
		container GPU Process 5 Process alias=5
		container /usr/bin/other 6 Process alias=6
		event GPU Process 5 Instant "a" 10
		event /usr/bin/other 6 Instant "b" 20
		span 10 20
	`)
}

// TestThreadFullNameAfterComm covers Chromium's way of describing a
// thread twice: first with its 15-byte kernel name, then with its full
// one, which wins; a process tree's name yields to a descriptor's.
func TestThreadFullNameAfterComm(t *testing.T) {
	tree := sub(2, sub(2, vint(1, 8), str(2, "treeName"), vint(3, 5)))
	data := traceOf(
		pkt(tree),
		pkt(trackDesc(1, threadDesc(5, 7, "ThreadPoolForeg"))),
		pkt(trackDesc(1, threadDesc(5, 7, "ThreadPoolForegroundWorker"))),
		pkt(trackDesc(2, threadDesc(5, 8, "Compositor"))),
		pkt(ts(10), te(evType(instant), onTrack(1), named("a"))),
		pkt(ts(20), te(evType(instant), onTrack(2), named("b"))),
	)
	tr, _ := mustRead(t, data)
	checkRender(t, tr, `
		container Process 5 Process alias=5
		container Process 5/Compositor 8 Thread alias=8
		container Process 5/ThreadPoolForegroundWorker 7 Thread alias=7
		event Process 5/ThreadPoolForegroundWorker 7 Instant "a" 10
		event Process 5/Compositor 8 Instant "b" 20
		span 10 20
	`)
}

// TestOutlinedBodyRole: the slices of the bodies GCC and Clang outline
// for OpenMP's parallel regions (f._omp_fn.N, .omp_outlined.) are
// parallel regions (trace.RoleParallelRegion, which POP reads); other
// slices are not.
func TestOutlinedBodyRole(t *testing.T) {
	data := traceOf(
		pkt(trackDesc(1, processDesc(10, "app"))),
		pkt(trackDesc(2, threadDesc(10, 11, "main"))),
		pkt(ts(100), te(evType(begin), onTrack(2), named("main._omp_fn.0"))),
		pkt(ts(110), te(evType(begin), onTrack(2), named("work"))),
		pkt(ts(120), te(evType(end), onTrack(2))),
		pkt(ts(130), te(evType(end), onTrack(2))),
		pkt(ts(140), te(evType(begin), onTrack(2), named(".omp_outlined._debug__"))),
		pkt(ts(150), te(evType(end), onTrack(2))),
		pkt(ts(160), te(evType(begin), onTrack(2), named("ncclDevKernel_AllReduce_Sum_f32_RING_LL"))),
		pkt(ts(170), te(evType(end), onTrack(2))),
	)
	tr, _ := mustRead(t, data)
	got := map[string]trace.Role{}
	for _, s := range tr.States.All() {
		got[tr.Values[s.Value].Name] = tr.Values[s.Value].Role
	}
	want := map[string]trace.Role{"main._omp_fn.0": trace.RoleParallelRegion, ".omp_outlined._debug__": trace.RoleParallelRegion,
		"work": trace.RoleNone, "ncclDevKernel_AllReduce_Sum_f32_RING_LL": trace.RoleCommunicationKernel}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("roles %v, want %v", got, want)
	}
}
