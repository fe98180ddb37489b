package critpath

// gallop returns the least i in [from, end] with past(i), past being
// false then true over the range and true at end. It searches out from
// hint (clamped to the range), doubling its step, then halves what it
// stepped over: the delay costs ask, resource by resource, for answers a
// step or two from the last one, where halving the whole range each time
// reads across memory.
func gallop[I int | int32](from, end, hint I, past func(I) bool) I {
	h := min(max(hint, from), end)
	// !past(lo) (lo == from-1: none below) and past(hi): the answer is
	// in (lo, hi].
	lo, hi := from-1, h
	if past(h) {
		for step := I(1); hi > from; step *= 2 {
			m := max(hi-step, from)
			if !past(m) {
				lo = m
				break
			}
			hi = m
		}
	} else {
		lo = h
		for step := I(1); ; step *= 2 {
			m := min(lo+step, end)
			if past(m) {
				hi = m
				break
			}
			lo = m
		}
	}
	for hi-lo > 1 {
		m := lo + (hi-lo)/2
		if past(m) {
			hi = m
		} else {
			lo = m
		}
	}
	return hi
}
