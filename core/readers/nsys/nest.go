package nsys

import (
	"cmp"
	"slices"

	"github.com/macroscope-hpc/macroscope/core/readers/nesting"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// span is one state interval until it is delivered: 40 bytes, the only
// per-row record the reader keeps.
type span struct {
	start, end int64
	value      int32 // index into the state type's values
	seq        int32 // rank in the database's order, for ties and links
	depth      int32
	lane       int32
	order      int32 // rank by start on its lane
	delivery   int32 // rank in the order of delivery of its group
}

// nest gives the spans of a group their lane, depth, order and rank of
// delivery (lane by lane, as they complete; t keeps the order of
// completion). They nest as package nesting says: closed intervals (a
// zero-length span at the very end of another is its child), and of two
// identical spans the first in the database is the parent. It returns
// the number of lanes, and false past nesting.DefaultMaxLanes lanes.
func nest(t *nesting.Tracker, sp []span) (int32, bool) {
	slices.SortFunc(sp, func(a, b span) int {
		if c := nesting.Compare(trace.Time(a.start), trace.Time(a.end), trace.Time(b.start), trace.Time(b.end)); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
	var rank int32
	lanes, ok := t.Nest(len(sp),
		func(i int) (trace.Time, trace.Time) { return trace.Time(sp[i].start), trace.Time(sp[i].end) },
		func(i int, at nesting.Placement) { sp[i].lane, sp[i].depth, sp[i].order = at.Lane, at.Depth, at.Order },
		func(i int) { sp[i].delivery = rank; rank++ })
	return int32(lanes), ok
}
