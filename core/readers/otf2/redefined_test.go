package otf2

import (
	"fmt"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// eztraceDefs defines two processes P0 and P1 of one thread each as
// EZTrace 2.0 does: Group 0 three times (MPI_COMM_WORLD's COMM_LOCATIONS,
// its COMM_GROUP, then MPI_COMM_SELF's COMM_GROUP) and Comm 0 twice
// (MPI_COMM_WORLD, then MPI_Comm_Self), before its regions.
func eztraceDefs() *enc {
	const sSelf = 13
	e := baseDefsWithoutComms()
	defStr(e, sSelf, "MPI_Comm_Self")
	defGroupRec(e, 0, groupTypeCommLocations, paradigmMPI, 0, 1)
	defGroupRec(e, 0, groupTypeCommGroup, paradigmMPI, 0, 1)
	defCommRec(e, 0, sWorld, 0)
	defGroupRec(e, 0, groupTypeCommGroup, paradigmMPI, 0)
	defCommRec(e, 0, sSelf, 0)
	return e
}

// baseDefsWithoutComms is baseDefs without its groups and communicators.
func baseDefsWithoutComms() *enc {
	e := &enc{}
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
	return e
}

// TestGroupsAndCommsRedefined: a Group or Comm ID defined again, as EZTrace
// 2.0 writes them, keeps its first definition (OTF2's reader passes them
// on and otf2-print warns; python3-otf2 refuses them): Comm 0 is the
// world over the two locations, where a broadcast's root is rank 1, P1.
// The read warns once, naming the file and the first redefinition's byte.
// Other definitions given twice are still refused.
func TestGroupsAndCommsRedefined(t *testing.T) {
	l0, l1 := &enc{}, &enc{}
	for i, e := range []*enc{l0, l1} {
		evTime(e, 1001)
		evRegion(e, evEnter, regionMain)
		evTime(e, 1002+uint64(i))
		e.rec(evMpiCollectiveEnd, false, func(r *enc) { r.u8(opBcast).u32(0).u32(1).u64(8).u64(8) })
		evTime(e, 1010)
		evRegion(e, evLeave, regionMain)
	}
	a := testArchive{defs: eztraceDefs().b, locations: map[uint64][]byte{0: chunked(false, 0, l0.b), 1: chunked(false, 0, l1.b)},
		localDefs: map[uint64][]byte{0: emptyLocalDefs(), 1: emptyLocalDefs()}}
	anchor := a.write(t, t.TempDir())
	tr := trace.New(anchor)
	notes := &trace.Notes{}
	if err := Read(anchor, tr, trace.ReadOptions{Notes: notes}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range tr.Events.All() {
		v := tr.Values[e.Value]
		got = append(got, fmt.Sprintf("%s %s on %s alias %q", tr.Containers[tr.Containers[e.Container].Parent].Name, v.Name, v.Category, v.Alias))
	}
	sameList(t, got, []string{`P0 BCAST on MPI_COMM_WORLD alias ""`, `P1 BCAST on MPI_COMM_WORLD alias "root"`})
	if tr.States.Len() != 2 {
		t.Errorf("%d states, want 2", tr.States.Len())
	}
	msgs := notes.Messages()
	if len(msgs) != 1 || !strings.Contains(msgs[0], "traces.def: 2 Group and 1 Comm definition(s) give an ID already defined (the first at byte ") ||
		!strings.Contains(msgs[0], "EZTrace 2.0") {
		t.Errorf("notes %q", msgs)
	}

	e := baseDefsWithoutComms()
	defRegionRec(e, regionWork, sMain)
	a.defs = e.b
	anchor = a.write(t, t.TempDir())
	if err := Read(anchor, trace.New(anchor), trace.ReadOptions{}); err == nil || !strings.Contains(err.Error(), "Region 1 is defined twice") {
		t.Errorf("a region defined twice: %v", err)
	}
}
