package critpath

import (
	"reflect"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// The accumulator's attribution, from its states outside MPI calls kept
// while the trace streams, equals the one computed from every state of
// the trace held in memory (attributeHeld): every piece on the path, and
// every state's time on it and in all.
func TestAttributionEqualsHeld(t *testing.T) {
	for _, c := range []struct{ name, path, format string }{
		{"cp_chain", "../../../testdata/critpath/cp_chain.trace", "paje"},
		{"cp_coll", "../../../testdata/critpath/cp_coll.trace", "paje"},
		{"cp_laterecv", "../../../testdata/critpath/cp_laterecv.trace", "paje"},
		{"cp_mixed", "../../../testdata/critpath/cp_mixed.trace", "paje"},
		{"stencil4d-32", "../../../../shared/traces/tracer-stencil4d/stencil4d-otf/traces-32/traces.otf2", "otf2"},
		{"stencil4d-64", "../../../../shared/traces/tracer-stencil4d/stencil4d-otf/traces-64/traces.otf2", "otf2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := read(t, c.path, c.format)
			r, err := Compute(tr, Options{})
			if err != nil {
				t.Fatal(err)
			}
			want := attributeHeld(r, tr)
			got := r.Attribution
			if len(got.Pieces) != len(want.Pieces) {
				t.Fatalf("%d pieces, want %d", len(got.Pieces), len(want.Pieces))
			}
			for i := range want.Pieces {
				if got.Pieces[i] != want.Pieces[i] {
					t.Fatalf("piece %d: %+v, want %+v", i, got.Pieces[i], want.Pieces[i])
				}
			}
			if !reflect.DeepEqual(got.ByState, want.ByState) {
				t.Errorf("by state:\n%+v\nwant\n%+v", got.ByState, want.ByState)
			}
			if !reflect.DeepEqual(got.ByResource, want.ByResource) {
				t.Errorf("by resource:\n%+v\nwant\n%+v", got.ByResource, want.ByResource)
			}
			t.Logf("%d pieces, %d states", len(got.Pieces), len(got.ByState))
		})
	}
}

// innermost on states that do not nest properly (a state outliving its
// parent), against the edge sweep of attributeHeld.
func TestInnermostOverlaps(t *testing.T) {
	spans := []span{
		{0, 100, 0, 0},  // a
		{10, 50, 1, 1},  // b in a
		{20, 120, 2, 2}, // c, outlives a and b
		{30, 40, 3, 3},  // d in c
		{130, 140, 0, 0},
		{130, 135, 1, 1}, // opens with its parent, deeper
		{140, 150, 0, 2}, // begins where the last ends
	}
	names := []string{"a", "b", "c", "d"}
	tr := trace.New()
	tr.DefineType(trace.Type{Name: "S", Kind: trace.KindState})
	for _, n := range names {
		tr.DefineValue(trace.Value{Name: n, Type: 0})
	}
	var states []trace.State
	for _, s := range spans {
		states = append(states, trace.State{Start: s.start, End: s.end, Depth: s.depth, Value: s.name})
	}
	want := innermostHeld(states, tr)
	got := innermost(append([]span(nil), spans...), nil)
	if len(got) != len(want) {
		t.Fatalf("pieces %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].start != want[i].Start || got[i].end != want[i].End || names[got[i].name] != want[i].State {
			t.Errorf("piece %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}
