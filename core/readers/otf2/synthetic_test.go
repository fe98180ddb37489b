package otf2

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Strings and IDs of the synthetic archives.
const (
	sEmpty, sMachine, sM0, sProcess, sP0, sP1, sThread, sMain, sWork, sWorld, sPower, sTemp, sW = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12
	regionMain, regionWork                                                                      = 0, 1
	commWorld, commSelf                                                                         = 0, 1
)

// baseDefs defines a machine m0 with two processes P0 and P1 of one thread
// each (locations 0 and 1), the regions main and work, MPI_COMM_WORLD and
// a self communicator. The clock counts nanoseconds from tick 1000; the
// trace lasts 100 ticks.
func baseDefs(big bool) *enc {
	e := &enc{big: big}
	defClock(e, 1e9, 1000, 100)
	for id, s := range []string{"", "machine", "m0", "process", "P0", "P1", "thread", "main", "work", "MPI_COMM_WORLD", "power", "temp", "W"} {
		defStr(e, uint32(id), s)
	}
	defNode(e, 0, sM0, sMachine, undefined32)
	defLGroup(e, 0, sP0, groupProcess, 0)
	defLGroup(e, 1, sP1, groupProcess, 0)
	defLoc(e, 0, sThread, locationCPUThread, 0, 0)
	defLoc(e, 1, sThread, locationCPUThread, 0, 1)
	defRegionRec(e, regionMain, sMain)
	defRegionRec(e, regionWork, sWork)
	defGroupRec(e, 0, groupTypeCommLocations, paradigmMPI, 0, 1)
	defGroupRec(e, 1, groupTypeCommGroup, paradigmMPI, 0, 1)
	defGroupRec(e, 2, groupTypeCommSelf, paradigmMPI)
	defCommRec(e, commWorld, sWorld, 1)
	defCommRec(e, commSelf, sEmpty, 2)
	return e
}

func readSynthetic(t *testing.T, a testArchive) (*trace.Trace, error) {
	t.Helper()
	tr, _, err := readSyntheticNotes(t, a)
	return tr, err
}

// readSyntheticNotes is readSynthetic with the read's notes.
func readSyntheticNotes(t *testing.T, a testArchive) (*trace.Trace, []string, error) {
	t.Helper()
	anchor := a.write(t, t.TempDir())
	tr := trace.New(anchor)
	notes := &trace.Notes{}
	err := Read(anchor, tr, trace.ReadOptions{Notes: notes})
	return tr, notes.Messages(), err
}

// describe renders the entities of a trace, in emission order.
func describe(tr *trace.Trace) []string {
	var out []string
	name := func(c int32) string { return tr.Containers[c].Name }
	for _, s := range tr.States.All() {
		out = append(out, fmt.Sprintf("state %s %s %v-%v depth %d order %d", name(s.Container), tr.Values[s.Value].Name, s.Start, s.End, s.Depth, s.Order))
	}
	for _, l := range tr.Links.All() {
		out = append(out, fmt.Sprintf("link %s->%s %s key %s %v-%v size %v", name(l.From), name(l.To), tr.Values[l.Value].Name, l.Key, l.Start, l.End, l.Size))
	}
	for _, v := range tr.Variables.All() {
		out = append(out, fmt.Sprintf("variable %s %s %v-%v = %v", name(v.Container), tr.Types[v.Type].Name, v.Start, v.End, v.Value))
	}
	for _, e := range tr.Events.All() {
		out = append(out, fmt.Sprintf("event %s %s %s at %v", name(e.Container), tr.Types[e.Type].Name, tr.Values[e.Value].Name, e.Time))
	}
	return out
}

func sameList(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// TestSyntheticArchive reads a big-endian archive whose event files span
// several small chunks, with an attribute list, a record of a type this
// reader does not know (in the 9-byte length form), region definitions
// with an attribute from a later OTF2 version and a non-blocking message.
func TestSyntheticArchive(t *testing.T) {
	const chunk = 64
	c1, c2, c3, c4 := &enc{big: true}, &enc{big: true}, &enc{big: true}, &enc{big: true}
	evTime(c1, 1000)
	evRegion(c1, evEnter, regionMain)
	evTime(c2, 1010)
	c2.rec(attrList, false, func(r *enc) { r.u32(1).u32(0).u8(typeUint64).u64(4096) })
	evRegion(c2, evEnter, regionWork)
	c3.rec(200, true, func(r *enc) { r.u64(1).u64(2) })
	evTime(c3, 1020)
	evRegion(c3, evLeave, regionWork)
	evP2P(c3, evMpiIsend, 1, commWorld, 5, 100)
	evTime(c4, 1030)
	evRegion(c4, evLeave, regionMain)

	l1 := &enc{big: true}
	evTime(l1, 1005)
	evRegion(l1, evEnter, regionMain)
	evTime(l1, 1025)
	evP2P(l1, evMpiIrecv, 0, commWorld, 5, 100)
	evTime(l1, 1040)
	evRegion(l1, evLeave, regionMain)

	tr, err := readSynthetic(t, testArchive{
		big: true, chunkEvents: chunk, defs: baseDefs(true).b,
		locations: map[uint64][]byte{
			0: chunked(true, chunk, c1.b, c2.b, c3.b, c4.b),
			1: chunked(true, chunk, l1.b),
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	sameList(t, describe(tr), []string{
		"state thread work 0.000000010-0.000000020 depth 1 order 1",
		"state thread main 0.000000000-0.000000030 depth 0 order 0",
		"state thread main 0.000000005-0.000000040 depth 0 order 0",
		"link thread->thread MPI_COMM_WORLD key 5 0.000000020-0.000000025 size 100",
	})
	if tr.Start != 0 || tr.End != 100 {
		t.Errorf("trace spans %v-%v, want 0-100 ns (the clock's length)", tr.Start, tr.End)
	}
	// The hierarchy: machine > process > thread, named after OTF2.
	var got []string
	for _, c := range tr.Containers[1:] {
		got = append(got, fmt.Sprintf("%s %s (%s) in %s", tr.Types[c.Type].Name, c.Name, c.Alias, tr.Containers[c.Parent].Name))
	}
	sameList(t, got, []string{
		"machine m0 (systemtreenode:0) in 0",
		"process P0 (locationgroup:0) in m0",
		"process P1 (locationgroup:1) in m0",
		"thread thread (location:0) in P0",
		"thread thread (location:1) in P1",
	})
}

// TestUnbalancedLeave: a Leave with no open region is an error that names
// the event file and the offset of the record.
func TestUnbalancedLeave(t *testing.T) {
	l := &enc{}
	evTime(l, 1000)
	evRegion(l, evEnter, regionMain)
	evRegion(l, evLeave, regionMain)
	evRegion(l, evLeave, regionMain) // at 18 + 9 + 2 + 2
	_, err := readSynthetic(t, testArchive{defs: baseDefs(false).b, locations: map[uint64][]byte{0: chunked(false, 0, l.b)}})
	var fe *errs.FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("got %v, want a FormatError", err)
	}
	if filepath.Base(fe.File) != "0.evt" || fe.Offset != 31 || !strings.Contains(fe.Error(), "Leave") {
		t.Errorf("got %v (file %s, offset %d), want 0.evt at byte 31", fe, fe.File, fe.Offset)
	}
}

// TestExtremeRegionIDs: regions defined at the largest identifiers are
// read as any other, without tables of their size; an Enter of OTF2's
// undefined region (a compressed 0xff) is an error that says so, naming
// the file and byte.
func TestExtremeRegionIDs(t *testing.T) {
	for _, id := range []uint32{1 << 31, math.MaxUint32 - 1, math.MaxUint32} {
		e := baseDefs(false)
		defStr(e, id, "far")
		defRegionRec(e, id, id)
		l := &enc{}
		evTime(l, 1000)
		evRegion(l, evEnter, id) // at 18 + 9, its ID 2 bytes on
		evTime(l, 1010)
		evRegion(l, evLeave, id)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		tr, err := readSynthetic(t, testArchive{defs: e.b, locations: map[uint64][]byte{0: chunked(false, 0, l.b)}})
		runtime.ReadMemStats(&after)
		if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
			t.Errorf("region %#x: %d MiB allocated", id, got>>20)
		}
		if id == math.MaxUint32 {
			var fe *errs.FormatError
			if !errors.As(err, &fe) || filepath.Base(fe.File) != "0.evt" || fe.Offset != 29 ||
				!strings.Contains(err.Error(), "Enter of the undefined region (OTF2_UNDEFINED_REGION)") {
				t.Errorf("undefined region: %v", err)
			}
			continue
		}
		if err != nil || tr.States.Len() != 1 || tr.Values[tr.States.At(0).Value].Name != "far" {
			t.Errorf("region %#x: %v, %d states", id, err, tr.States.Len())
		}
	}
}

// TestMismatchedLeave: a Leave that names another region than the
// innermost one closes the innermost one, as Scalasca and ViTE do, and the
// read counts such Leaves.
func TestMismatchedLeave(t *testing.T) {
	l := &enc{}
	evTime(l, 1000)
	evRegion(l, evEnter, regionMain)
	evTime(l, 1001)
	evRegion(l, evEnter, regionWork)
	evTime(l, 1002)
	evRegion(l, evLeave, regionMain)
	evTime(l, 1003)
	evRegion(l, evLeave, regionWork)
	tr, notes, err := readSyntheticNotes(t, testArchive{defs: baseDefs(false).b, locations: map[uint64][]byte{0: chunked(false, 0, l.b)}})
	if err != nil {
		t.Fatal(err)
	}
	sameList(t, describe(tr), []string{
		"state thread work 0.000000001-0.000000002 depth 1 order 1",
		"state thread main 0.000000000-0.000000003 depth 0 order 0",
	})
	want := "2 Leave record(s) named another region than the innermost one entered, on 1 location(s): each closed the innermost one, as Scalasca and ViTE read them"
	if !slices.Contains(notes, want) {
		t.Errorf("notes %q, want %q among them", notes, want)
	}
}

// TestLeaveOfRegionsEnteredTogether: two regions entered at the same time
// have no order; a writer that put the outer one's Enter second
// (chrome2otf2, converting rocprof's HSA calls) has its Leaves name them
// inner first. The one left first is the inner one, so each keeps its
// own name and duration. A Leave naming a region entered earlier still
// closes the innermost one (TestMismatchedLeave).
func TestLeaveOfRegionsEnteredTogether(t *testing.T) {
	l := &enc{}
	evTime(l, 1000)
	evRegion(l, evEnter, regionWork)
	evRegion(l, evEnter, regionMain)
	evTime(l, 1002)
	evRegion(l, evLeave, regionWork)
	evTime(l, 1005)
	evRegion(l, evLeave, regionMain)
	tr, notes, err := readSyntheticNotes(t, testArchive{defs: baseDefs(false).b, locations: map[uint64][]byte{0: chunked(false, 0, l.b)}})
	if err != nil {
		t.Fatal(err)
	}
	sameList(t, describe(tr), []string{
		"state thread work 0.000000000-0.000000002 depth 1 order 1",
		"state thread main 0.000000000-0.000000005 depth 0 order 0",
	})
	for _, n := range notes {
		if strings.Contains(n, "Leave record") || strings.Contains(n, "still open") {
			t.Errorf("note %q: a tie is no misnamed Leave", n)
		}
	}
}

// TestMessages: receives recorded before their sends, sends that are never
// received and a message to oneself through a self communicator.
func TestMessages(t *testing.T) {
	l0, l1 := &enc{}, &enc{}
	evTime(l0, 1010)
	evP2P(l0, evMpiSend, 1, commWorld, 7, 8) // received at 1005 by location 1
	evP2P(l0, evMpiSend, 1, commWorld, 7, 9) // never received
	evTime(l0, 1020)
	evP2P(l0, evMpiSend, 0, commSelf, 1, 16)
	evTime(l0, 1021)
	evP2P(l0, evMpiRecv, 0, commSelf, 1, 16)
	evTime(l1, 1005)
	evP2P(l1, evMpiRecv, 0, commWorld, 7, 8)
	evTime(l1, 1006)
	evP2P(l1, evMpiRecv, 0, commWorld, 3, 4) // never sent
	tr, err := readSynthetic(t, testArchive{defs: baseDefs(false).b, locations: map[uint64][]byte{
		0: chunked(false, 0, l0.b), 1: chunked(false, 0, l1.b),
	}})
	if err != nil {
		t.Fatal(err)
	}
	sameList(t, describe(tr), []string{
		"link thread->thread MPI_COMM_WORLD key 7 0.000000010-0.000000005 size 8",
		"link thread->thread Comm 1 key 1 0.000000020-0.000000021 size 16",
		"event thread Unmatched MPI message receive at 0.000000006",
		"event thread Unmatched MPI message send at 0.000000010",
	})
	if tr.Links.At(0).From == tr.Links.At(0).To || tr.Links.At(1).From != tr.Links.At(1).To {
		t.Errorf("links go %d->%d and %d->%d", tr.Links.At(0).From, tr.Links.At(0).To, tr.Links.At(1).From, tr.Links.At(1).To)
	}

	// A rank outside the communicator is an error.
	l0 = &enc{}
	evTime(l0, 1010)
	evP2P(l0, evMpiSend, 2, commWorld, 7, 8)
	_, err = readSynthetic(t, testArchive{defs: baseDefs(false).b, locations: map[uint64][]byte{0: chunked(false, 0, l0.b)}})
	if fe := (*errs.FormatError)(nil); !errors.As(err, &fe) || fe.Offset != 27 || !strings.Contains(err.Error(), "rank 2") {
		t.Errorf("got %v, want an error about rank 2 at byte 27", err)
	}
}

// metricDefs adds two metric members, a class of both and an instance of
// the class that reports on the machine (system tree node 0).
func metricDefs() *enc {
	e := baseDefs(false)
	for id, name := range []uint32{sPower, sTemp} {
		typ := []uint8{typeUint64, typeDouble}[id]
		e.rec(defMetricMember, false, func(r *enc) {
			r.u32(uint32(id)).u32(name).u32(sEmpty).u8(0).u8(0).u8(typ).u8(1).i64(-3).u32(sW)
		})
	}
	e.rec(defMetricClass, false, func(r *enc) { r.u32(0).u8(2).u32(0).u32(1).u8(0).u8(1) })
	e.rec(defMetricInstance, false, func(r *enc) { r.u32(1).u32(0).u64(0).u8(scopeSystemTreeNode).u64(0) })
	return e
}

func evMetric2(e *enc, metric uint32, power uint64, temp float64) {
	e.rec(evMetric, false, func(r *enc) {
		r.u32(metric).u8(2)
		r.u8(typeUint64).u64(power)
		r.u8(typeDouble).u64(math.Float64bits(temp))
	})
}

// TestMetrics: samples of a class belong to the recording location, those
// of an instance to its scope; each holds until the next sample.
func TestMetrics(t *testing.T) {
	l := &enc{}
	evTime(l, 1000)
	evMetric2(l, 0, 10, 1.5)
	evTime(l, 1005)
	evMetric2(l, 1, 7, 0.5)
	evTime(l, 1010)
	evMetric2(l, 0, 20, -2.5)
	tr, err := readSynthetic(t, testArchive{defs: metricDefs().b, locations: map[uint64][]byte{0: chunked(false, 0, l.b)}})
	if err != nil {
		t.Fatal(err)
	}
	sameList(t, describe(tr), []string{
		"variable thread power 0.000000000-0.000000010 = 10",
		"variable thread temp 0.000000000-0.000000010 = 1.5",
		"variable thread power 0.000000010-0.000000100 = 20",
		"variable thread temp 0.000000010-0.000000100 = -2.5",
		"variable m0 power 0.000000005-0.000000100 = 7",
		"variable m0 temp 0.000000005-0.000000100 = 0.5",
	})

	l = &enc{}
	evTime(l, 1000)
	evMetric2(l, 0, 10, math.NaN())
	_, err = readSynthetic(t, testArchive{defs: metricDefs().b, locations: map[uint64][]byte{0: chunked(false, 0, l.b)}})
	if fe := (*errs.FormatError)(nil); !errors.As(err, &fe) || !strings.Contains(err.Error(), "not a finite number") {
		t.Errorf("got %v, want an error about a NaN metric value", err)
	}
}

// TestLocalDefinitions: mapping tables translate the IDs of a location's
// events, clock offsets move its timestamps.
func TestLocalDefinitions(t *testing.T) {
	local := &enc{}
	local.rec(defMappingTable, false, func(r *enc) { r.u8(mapRegion).u64(2).u8(0).u64(regionWork).u64(regionMain) })
	local.rec(defClockOffset, false, func(r *enc) { r.u64Full(1000).i64(10).u64Full(0) })
	local.rec(defClockOffset, false, func(r *enc) { r.u64Full(1100).i64(-10).u64Full(0) })
	l := &enc{}
	evTime(l, 1000)
	evRegion(l, evEnter, 1) // local 1 is main
	evTime(l, 1050)
	evRegion(l, evEnter, 0) // local 0 is work
	evTime(l, 1060)
	evRegion(l, evLeave, 0)
	evRegion(l, evLeave, 1)
	tr, err := readSynthetic(t, testArchive{defs: baseDefs(false).b,
		locations: map[uint64][]byte{0: chunked(false, 0, l.b)},
		localDefs: map[uint64][]byte{0: chunked(false, 0, local.b)},
	})
	if err != nil {
		t.Fatal(err)
	}
	// Offsets +10 at 1000, -10 at 1100: 1050 moves by 0, 1060 by -2.
	sameList(t, describe(tr), []string{
		"state thread work 0.000000050-0.000000058 depth 1 order 1",
		"state thread main 0.000000010-0.000000058 depth 0 order 0",
	})
}

// TestTruncatedFiles: event files that end early are errors, not short
// traces.
func TestTruncatedFiles(t *testing.T) {
	l := &enc{}
	evTime(l, 1000)
	evRegion(l, evEnter, regionMain)
	full := chunked(false, 0, l.b)
	for _, c := range []struct {
		data   []byte
		offset int64
		msg    string
	}{
		{full[:len(full)-2], int64(len(full) - 2), "end-of-file marker"},
		{full[:len(full)-3], int64(len(full) - 3), "end-of-file marker"},
		{full[:10], 0, "unexpected end"},
	} {
		_, err := readSynthetic(t, testArchive{defs: baseDefs(false).b, locations: map[uint64][]byte{0: c.data}})
		var fe *errs.FormatError
		if !errors.As(err, &fe) || fe.Offset < c.offset || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%d bytes: got %v, want %q at byte %d or later", len(c.data), err, c.msg, c.offset)
		}
	}
}

// TestProgressAndPaths: progress reaches the size of the event files;
// the directory of an archive can stand for its anchor file.
func TestProgressAndPaths(t *testing.T) {
	l := &enc{}
	evTime(l, 1000)
	evRegion(l, evEnter, regionMain)
	data := chunked(false, 0, l.b)
	dir := t.TempDir()
	testArchive{defs: baseDefs(false).b, locations: map[uint64][]byte{0: data}}.write(t, dir)
	var last, total int64
	err := Read(dir, trace.New(), trace.ReadOptions{Progress: func(done, all int64) { last, total = done, all }})
	if err != nil {
		t.Fatal(err)
	}
	if last != int64(len(data)) || total != int64(len(data)) {
		t.Errorf("progress ended at %d of %d, want %d of %d", last, total, len(data), len(data))
	}
	var ae *errs.ArgumentError
	if _, err := readFile(filepath.Join(dir, "traces.def")); !errors.As(err, &ae) {
		t.Errorf("reading a definitions file as an anchor: got %v, want an ArgumentError", err)
	}
}

// TestOtherRecords: records without a trace entity of their own become
// events named after them; records of unknown types are skipped.
func TestOtherRecords(t *testing.T) {
	l := &enc{}
	evTime(l, 1001)
	l.rec(evBufferFlush, false, func(r *enc) { r.u64Full(1002) })
	evTime(l, 1003)
	l.rec(53, false, func(r *enc) { r.u8(3).u32(4) }) // ThreadFork
	l.rec(150, false, func(r *enc) { r.u32(1) })      // unknown
	l.u8(evMpiRequestTest).u64(5)                     // request bookkeeping
	l.rec(evMpiCollectiveEnd, false, func(r *enc) { r.u8(11).u32(commWorld).u32(undefined32).u64(8).u64(16) })
	tr, err := readSynthetic(t, testArchive{defs: baseDefs(false).b, locations: map[uint64][]byte{0: chunked(false, 0, l.b)}})
	if err != nil {
		t.Fatal(err)
	}
	sameList(t, describe(tr), []string{
		"event thread Measurement BufferFlush at 0.000000001",
		"event thread Other ThreadFork at 0.000000003",
		"event thread MPI collective ALLREDUCE at 0.000000003",
	})
}
