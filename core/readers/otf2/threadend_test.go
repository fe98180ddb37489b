package otf2

import (
	"slices"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestRegionsOpenAtThreadEnd: regions still entered when their location's
// ThreadEnd comes end with it, not with the trace (EZTrace 2.0's OMPT module
// leaves a pool thread's implicit task and barrier entered so), and the
// read says how many; regions open at the end of a thread that records no
// ThreadEnd still end with the trace, with a warning that counts them and
// their locations, and so does a Leave naming a region deeper in the stack.
func TestRegionsOpenAtThreadEnd(t *testing.T) {
	l0, l1 := &enc{}, &enc{}
	evTime(l0, 1001)
	evRegion(l0, evEnter, regionMain)
	evTime(l0, 1002)
	evRegion(l0, evEnter, regionWork)
	evTime(l0, 1003)
	evRegion(l0, evEnter, regionWork)
	evTime(l0, 1004)
	evRegion(l0, evLeave, regionMain) // closes the innermost work
	evTime(l0, 1005)
	l0.rec(evThreadEnd, false, func(r *enc) { r.u32(undefined32).u64(4) })
	evTime(l1, 1001)
	evRegion(l1, evEnter, regionMain)
	a := testArchive{defs: baseDefs(false).b, locations: map[uint64][]byte{0: chunked(false, 0, l0.b), 1: chunked(false, 0, l1.b)},
		localDefs: map[uint64][]byte{0: emptyLocalDefs(), 1: emptyLocalDefs()}}
	anchor := a.write(t, t.TempDir())
	tr := trace.New(anchor)
	notes := &trace.Notes{}
	if err := Read(anchor, tr, trace.ReadOptions{Notes: notes}); err != nil {
		t.Fatal(err)
	}
	var states []string
	for _, s := range tr.States.All() {
		states = append(states, tr.Containers[tr.Containers[s.Container].Parent].Name+" "+tr.Values[s.Value].Name+" "+s.Start.String()+"-"+s.End.String())
	}
	sameList(t, states, []string{
		"P0 work 0.000000003-0.000000004",
		"P0 work 0.000000002-0.000000005",
		"P0 main 0.000000001-0.000000005",
		"P1 main 0.000000001-0.000000100",
	})
	// The Leave of main over work, the two regions ThreadEnd closed and P1's
	// main, which no record ends, are each said with their counts.
	want := []string{
		"2 region(s) were still entered when their thread ended (ThreadEnd, without their Leave): they end with their thread",
		"1 Leave record(s) named another region than the innermost one entered, on 1 location(s): each closed the innermost one, as Scalasca and ViTE read them",
		"1 region(s) (Enter without Leave or ThreadEnd) were still open at the end of the trace, on 1 location(s): they end with it, at 0.000000100 s",
	}
	if msgs := notes.Messages(); !slices.Equal(msgs, want) {
		t.Errorf("notes %q, want %q", msgs, want)
	}
	if tr.Events.Len() != 1 || tr.Values[tr.Events.At(0).Value].Name != "ThreadEnd" {
		t.Errorf("%d events, want the ThreadEnd", tr.Events.Len())
	}
}
