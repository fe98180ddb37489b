package otf2

import (
	"slices"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// keepTrace is a trace in memory that keeps the unmatched messages.
type keepTrace struct {
	*trace.Trace
	msgs *Messages
}

func (k *keepTrace) KeepMessages(m *Messages) { k.msgs = m }

// The location groups read apart, then their messages matched, give the
// links and unmatched ends of the whole read, none skipped.
func TestMessagesAcrossGroups(t *testing.T) {
	l0, l1 := &enc{}, &enc{}
	evTime(l0, 1010)
	evP2P(l0, evMpiSend, 1, commWorld, 7, 8)  // received at 1005 by location 1
	evP2P(l0, evMpiSend, 1, commWorld, 7, 9)  // never received
	evP2P(l0, evMpiIsend, 1, commWorld, 5, 2) // received at 1007
	evTime(l0, 1020)
	evP2P(l0, evMpiSend, 0, commSelf, 1, 16) // within the group
	evTime(l0, 1021)
	evP2P(l0, evMpiRecv, 0, commSelf, 1, 16)
	evTime(l1, 1005)
	evP2P(l1, evMpiRecv, 0, commWorld, 7, 8)
	evTime(l1, 1006)
	evP2P(l1, evMpiRecv, 0, commWorld, 3, 4) // never sent
	evTime(l1, 1007)
	evP2P(l1, evMpiIrecv, 0, commWorld, 5, 2)
	anchor := testArchive{defs: baseDefs(false).b, locations: map[uint64][]byte{
		0: chunked(false, 0, l0.b), 1: chunked(false, 0, l1.b),
	}}.write(t, t.TempDir())
	whole := trace.New(anchor)
	if err := Read(anchor, whole, trace.ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	var got []string
	var parts []*Messages
	for _, g := range []uint32{0, 1} {
		part := &keepTrace{Trace: trace.New(anchor)}
		notes := &trace.Notes{}
		if err := ReadGroups(anchor, []uint32{g}, part, trace.ReadOptions{Notes: notes}); err != nil {
			t.Fatal(err)
		}
		if len(notes.Skipped()) > 0 {
			t.Errorf("group %d: skipped %v", g, notes.Skipped())
		}
		got = append(got, describe(part.Trace)...)
		parts = append(parts, part.msgs)
	}
	if parts[0].Len() != 3 || parts[1].Len() != 3 {
		t.Errorf("%d and %d message ends left, want 3 (the sends to group 1) and 3 (the receives from group 0)", parts[0].Len(), parts[1].Len())
	}
	matched := trace.New(anchor)
	if err := MatchMessages(anchor, parts, matched, whole.Start, whole.End, trace.ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	got = append(got, describe(matched)...)
	want := describe(whole)
	slices.Sort(got)
	slices.Sort(want)
	sameList(t, got, want)
	if len(matched.Links) != 2 || len(matched.Events) != 2 || matched.Start != whole.Start || matched.End != whole.End {
		t.Errorf("matched: %d links, %d events, [%d, %d]; want 2, 2, [%d, %d]",
			len(matched.Links), len(matched.Events), matched.Start, matched.End, whole.Start, whole.End)
	}
}

// Instances on the machine (a system tree node) recorded in two groups
// make an archive inseparable, in one group not; the corpus archives'
// groups add up (the MI300 run: instances on the node, all recorded in
// the process).
func TestSeparable(t *testing.T) {
	check := func(what string, defs *enc, want bool) {
		t.Helper()
		anchor := testArchive{defs: defs.b, locations: map[uint64][]byte{}}.write(t, t.TempDir())
		if ok, err := Separable(anchor); err != nil || ok != want {
			t.Errorf("%s: separable %v, %v; want %v", what, ok, err, want)
		}
	}
	check("no metric", baseDefs(false), true)
	check("an instance on the machine", metricDefs(), true)
	two := metricDefs()
	two.rec(defMetricInstance, false, func(r *enc) { r.u32(2).u32(0).u64(1).u8(scopeSystemTreeNode).u64(0) })
	check("instances on the machine from two groups", two, false)
	other := metricDefs()
	other.rec(defMetricInstance, false, func(r *enc) { r.u32(2).u32(0).u64(1).u8(scopeLocation).u64(0) })
	check("an instance on a location of another group", other, false)
	for _, p := range []string{
		"tracer-stencil4d/stencil4d-otf/traces-64",
		"pipit/tests/data/ping-pong-otf2-papi",
		"fastotf2/sample-traces/simple-mi300-example-run",
	} {
		ok, err := Separable(archivePath(t, p))
		if err != nil || !ok {
			t.Errorf("%s: separable %v, %v", p, ok, err)
		}
	}
}
