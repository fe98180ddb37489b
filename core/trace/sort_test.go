package trace

import (
	"cmp"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// SortFunc and SortStableFunc with an open channel or none sort as the
// standard library does; with one closed at the 1,000th comparison they
// stop within StopEvery comparisons more, return ErrComputationCanceled
// and leave a permutation of the items; a comparison's own panic goes
// through.
func TestSortCancel(t *testing.T) {
	rng := rand.New(rand.NewPCG(46, 24))
	in := make([][2]int, 200_000)
	for i := range in {
		in[i] = [2]int{rng.IntN(1000), i} // many equal keys: stability shows
	}
	byKey := func(a, b [2]int) int { return cmp.Compare(a[0], b[0]) }
	for _, c := range []struct {
		name string
		sort func([][2]int, func(a, b [2]int) int, *Looker) error
		std  func([][2]int, func(a, b [2]int) int)
	}{
		{"SortFunc", SortFunc[[][2]int], slices.SortFunc[[][2]int]},
		{"SortStableFunc", SortStableFunc[[][2]int], slices.SortStableFunc[[][2]int]},
	} {
		want := slices.Clone(in)
		c.std(want, byKey)
		for _, look := range []*Looker{nil, {}, {Cancel: make(chan struct{})}} {
			got := slices.Clone(in)
			if err := c.sort(got, byKey, look); err != nil || !slices.Equal(got, want) {
				t.Errorf("%s with %+v: %v, or not sorted as by the standard library", c.name, look, err)
			}
		}
		cancel := make(chan struct{})
		compared, after := 0, 0
		got := slices.Clone(in)
		err := c.sort(got, func(a, b [2]int) int {
			if compared++; compared == 1000 {
				close(cancel)
			} else if compared > 1000 {
				after++
			}
			return byKey(a, b)
		}, &Looker{Cancel: cancel})
		if !errors.Is(err, ErrComputationCanceled) || after > StopEvery {
			t.Errorf("%s closed at the 1,000th comparison: %v after %d more", c.name, err, after)
		}
		slices.SortFunc(got, func(a, b [2]int) int { return cmp.Compare(a[1], b[1]) })
		for i, x := range got {
			if x != in[i] {
				t.Fatalf("%s canceled: item %d is %v, not %v: not a permutation", c.name, i, x, in[i])
			}
		}
		func() {
			defer func() {
				if p := recover(); p != "own" {
					t.Errorf("%s: the comparison's panic became %v", c.name, p)
				}
			}()
			_ = c.sort(slices.Clone(in), func(a, b [2]int) int { panic("own") }, &Looker{Cancel: make(chan struct{})})
		}()
	}
}
