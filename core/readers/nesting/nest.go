package nesting

import "github.com/macroscope-hpc/macroscope/core/trace"

// Nest is the whole of a reader's work on the slices of one thread, kept
// in its own records: it resets t, places the n slices, given in the
// order of Compare (the caller breaks its ties by their order in the
// file), and hands back where each went, then the order of delivery.
// span(i) is the start and end of slice i; place(i, at) receives its
// placement, for i from 0 to n-1. With done not nil, Nest then calls
// done(i) for each slice in the order of delivery: lane after lane, each
// lane's slices as they complete (the order of Pajé's PopState and OTF2's
// Leave). It returns the thread's lanes, or false at the first slice that
// would need more than MaxLanes of them (the slices before it placed, no
// done call): the records are then no call stack, and the reader reports
// its input as malformed.
//
// Nest sets KeepCompletion to whether done is given; the callbacks are
// called from the caller's goroutine, in order.
func (t *Tracker) Nest(n int, span func(i int) (start, end trace.Time), place func(i int, at Placement), done func(i int)) (lanes int, ok bool) {
	t.Reset()
	t.KeepCompletion = done != nil
	t.Grow(n)
	for i := range n {
		at, ok := t.Place(span(i))
		if !ok {
			return 0, false
		}
		place(i, at)
	}
	if done != nil {
		for lane := range t.Lanes() {
			for _, i := range t.Completed(lane) {
				done(int(i))
			}
		}
	}
	return t.Lanes(), true
}
