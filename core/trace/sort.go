package trace

import "slices"

// stopSort is what a comparison panics with to leave a sort once its
// Looker has stopped: the sorts of the standard library take no cancel,
// and a sort of millions of items takes seconds.
type stopSort struct{}

// SortFunc sorts x as slices.SortFunc does, looking at look every
// StopEvery comparisons (counted as items of look's work). Once look has
// stopped it returns ErrComputationCanceled, x left in some order of its
// items, else nil. A nil look, or one without a Cancel, sorts with cmp
// itself: nothing is added to the comparisons.
func SortFunc[S ~[]E, E any](x S, cmp func(a, b E) int, look *Looker) error {
	return sortCancel(x, cmp, look, slices.SortFunc[S, E])
}

// SortStableFunc is SortFunc for slices.SortStableFunc: equal items keep
// their order.
func SortStableFunc[S ~[]E, E any](x S, cmp func(a, b E) int, look *Looker) error {
	return sortCancel(x, cmp, look, slices.SortStableFunc[S, E])
}

func sortCancel[S ~[]E, E any](x S, cmp func(a, b E) int, look *Looker, sort func(S, func(a, b E) int)) (err error) {
	if look == nil || look.Cancel == nil {
		sort(x, cmp)
		return nil
	}
	if err := look.Stopped(len(x)); err != nil {
		return err
	}
	defer func() {
		if p := recover(); p != nil {
			if _, ok := p.(stopSort); !ok {
				panic(p) // the comparison's own
			}
			err = ErrComputationCanceled
		}
	}()
	n := 0
	sort(x, func(a, b E) int {
		if n++; n == StopEvery {
			n = 0
			if look.Stopped(StopEvery) != nil {
				panic(stopSort{})
			}
		}
		return cmp(a, b)
	})
	return nil
}
