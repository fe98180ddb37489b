package nsys

import (
	"cmp"
	"slices"
)

// maxLanes bounds the overlap lanes of one container. Well-formed API
// calls and push/pop ranges need none; start/end ranges and the odd
// overlapping kernel need a few. Each span is placed by looking at every
// lane, so the bound also bounds the time.
const maxLanes = 4096

// span is one state interval until it is delivered: 40 bytes, the only
// per-row record the reader keeps.
type span struct {
	start, end int64
	value      int32 // index into the state type's values
	seq        int32 // rank in the database's order, for ties and links
	depth      int32
	lane       int32
	order      int32 // rank by start on its lane
}

// byStart orders spans so that a parent comes before its children: by
// start, then longer first, then in database order.
func byStart(a, b span) int {
	if c := cmp.Compare(a.start, b.start); c != 0 {
		return c
	}
	if c := cmp.Compare(b.end, a.end); c != 0 {
		return c
	}
	return cmp.Compare(a.seq, b.seq)
}

// byCompletion orders spans as a stack of nested states completes, the
// order the streaming model builder expects: lane by lane, by end, inner
// before outer when they end together.
func byCompletion(a, b span) int {
	if c := cmp.Compare(a.lane, b.lane); c != 0 {
		return c
	}
	if c := cmp.Compare(a.end, b.end); c != 0 {
		return c
	}
	if c := cmp.Compare(b.depth, a.depth); c != 0 {
		return c
	}
	return cmp.Compare(a.order, b.order)
}

// nest gives each span its lane and depth. Spans nest when one contains
// the other (closed intervals: a zero-length span at the very end of
// another is its child, and of two identical spans the first in the
// database is the parent). A span that starts inside another and ends
// after it cannot nest: it goes to the lane whose innermost open span
// contains it (the latest started), else to the first lane with nothing
// open, else to a new lane. It returns the number of lanes, and false
// past maxLanes.
func nest(sp []span) (int32, bool) {
	slices.SortFunc(sp, byStart)
	lanes := [][]int32{nil}
	var orders []int32
	for i := range sp {
		s := &sp[i]
		best, empty := -1, -1
		for l, stack := range lanes {
			for len(stack) > 0 {
				top := &sp[stack[len(stack)-1]]
				if top.end >= s.end || top.end > s.start {
					break // contains s, or overlaps it
				}
				stack = stack[:len(stack)-1] // ended before s starts
			}
			lanes[l] = stack
			if len(stack) == 0 {
				if empty < 0 {
					empty = l
				}
				continue
			}
			top := &sp[stack[len(stack)-1]]
			if top.end >= s.end && (best < 0 || innerThan(top, &sp[last(lanes[best])])) {
				best = l
			}
		}
		switch {
		case best >= 0:
		case empty >= 0:
			best = empty
		default:
			if len(lanes) == maxLanes {
				return 0, false
			}
			best = len(lanes)
			lanes = append(lanes, nil)
		}
		for len(orders) <= best {
			orders = append(orders, 0)
		}
		s.lane = int32(best)
		s.depth = int32(len(lanes[best]))
		s.order = orders[best]
		orders[best]++
		lanes[best] = append(lanes[best], int32(i))
	}
	return int32(len(lanes)), true
}

func last(stack []int32) int32 { return stack[len(stack)-1] }

// innerThan tells whether open span a is nested deeper in time than b: it
// started later, or at the same time deeper.
func innerThan(a, b *span) bool {
	if a.start != b.start {
		return a.start > b.start
	}
	return a.depth > b.depth
}
