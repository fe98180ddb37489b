package profile

import (
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestDeliveryOrder: the exclusive time of nested states is the same
// whether a reader delivers them as they end (the innermost first, as
// the OTF2 and Pajé readers do) or as they begin (the outermost first, as
// the Chrome reader delivers complete events, "ph": "X"). Before, states
// delivered outermost first kept their inclusive time as exclusive: a
// Chrome trace of f0 [0,10) holding f1 [1,8) holding f2 [2,6) gave
// exclusive times of 10, 7 and 4 for 3, 3 and 4.
func TestDeliveryOrder(t *testing.T) {
	type st struct {
		name         int32
		start, end   trace.Time
		depth, order int32
	}
	nested := []st{{0, 0, 10, 0, 0}, {1, 1, 8, 1, 1}, {2, 2, 6, 2, 2}, {1, 12, 15, 1, 4}, {0, 11, 20, 0, 3}}
	preorder := []st{nested[0], nested[1], nested[2], nested[4], nested[3]}
	postorder := []st{nested[2], nested[1], nested[0], nested[3], nested[4]}
	// f0: 10-7 + 9-3; f1: 7-4 + 3; f2: 4.
	want := map[string][2]trace.Time{"f0": {19, 9}, "f1": {10, 6}, "f2": {4, 4}}
	for label, order := range map[string][]st{"as they begin": preorder, "as they end": postorder} {
		tr := trace.New()
		tr.DefineType(trace.Type{Name: "Thread", Kind: trace.KindContainer, Parent: trace.None})
		tr.DefineType(trace.Type{Name: "Slice", Kind: trace.KindState, Parent: 0})
		for _, n := range []string{"f0", "f1", "f2"} {
			tr.DefineValue(trace.Value{Type: 1, Name: n})
		}
		tr.CreateContainer(trace.Container{Name: "t", Type: 0, Parent: 0, End: trace.Unset})
		for _, s := range order {
			tr.State(trace.State{Container: 1, Type: 1, Value: s.name, Start: s.start, End: s.end, Depth: s.depth, Order: s.order})
		}
		tr.Finish(0, 20)
		r, err := Compute(tr, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range r.Flat() {
			w := want[row.Name.Name]
			if row.Inclusive != w[0] || row.Exclusive != w[1] {
				t.Errorf("delivered %s: %s inclusive %d, exclusive %d; want %d, %d", label, row.Name.Name, row.Inclusive, row.Exclusive, w[0], w[1])
			}
		}
	}
}
