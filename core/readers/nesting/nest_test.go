package nesting

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Nest places as the reference does and delivers in the order the depths
// imply, on one Tracker reused thread after thread; past the bound it
// says so after placing the slices before the one that did not fit.
func TestNestAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var tr Tracker
	for range 5000 {
		in := randomSlices(rng, 14, 10)
		c := Containment(rng.IntN(2))
		maxLanes := []int{1, 2, 3, DefaultMaxLanes}[rng.IntN(4)]
		want := reference(c, maxLanes, in)
		tr.Containment, tr.MaxLanes = c, maxLanes
		got := make([]Placement, len(in))
		placed := 0
		var order []int32
		done := func(i int) { order = append(order, int32(i)) }
		if rng.IntN(4) == 0 {
			done = nil
		}
		lanes, ok := tr.Nest(len(in),
			func(i int) (trace.Time, trace.Time) { return in[i].start, in[i].end },
			func(i int, at Placement) {
				if i != placed {
					t.Fatalf("%v: placement %d, want %d", in, i, placed)
				}
				got[i] = at
				placed++
			}, done)
		if !slices.Equal(got[:placed], want) || ok != (len(want) == len(in)) {
			t.Fatalf("%v (containment %d, %d lanes): placed %v (ok %v), reference %v", in, c, maxLanes, got[:placed], ok, want)
		}
		if !ok {
			if lanes != 0 || order != nil {
				t.Fatalf("%v: failed with %d lanes and delivery %v", in, lanes, order)
			}
			continue
		}
		wantLanes := 1
		for _, p := range got {
			wantLanes = max(wantLanes, int(p.Lane)+1)
		}
		if lanes != wantLanes {
			t.Fatalf("%v: %d lanes, placements use %d", in, lanes, wantLanes)
		}
		if w := completion(got); done != nil && !slices.Equal(order, w) {
			t.Fatalf("%v: delivered %v, from the depths %v", in, order, w)
		}
	}
}
