package nesting

import (
	"cmp"
	"math"
	"slices"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// DefaultMaxLanes is the bound on the lanes of a Tracker whose MaxLanes
// is 0.
const DefaultMaxLanes = 4096

// Containment says whether a slice's end belongs to it.
type Containment uint8

const (
	// Closed intervals [start, end]: a slice that starts at the end of
	// another and ends there too is nested in it.
	Closed Containment = iota
	// HalfOpen intervals [start, end): a slice that starts at the end of
	// another comes after it.
	HalfOpen
)

// Compare orders slices for Place: by start, then the longer first, so
// that a slice comes before the slices nested in it. It returns 0 for
// slices with the same start and end; callers break that tie by the
// slices' order in the file, so that the first is the parent.
func Compare(aStart, aEnd, bStart, bEnd trace.Time) int {
	if c := cmp.Compare(aStart, bStart); c != 0 {
		return c
	}
	return cmp.Compare(bEnd, aEnd)
}

// Placement is where Place put a slice.
type Placement struct {
	Lane  int32 // 0 for the thread itself, k for its k-th overlap lane
	Depth int32 // the number of slices it is nested in, on its lane
	Order int32 // its rank among the slices of its lane, by start
}

// A Tracker places the slices of one thread, given in the order of
// Compare, on the thread's lanes (see the package documentation for the
// policies). Set its fields before the first Place; the zero Tracker
// nests closed intervals on at most DefaultMaxLanes lanes. Reset makes it
// ready for the next thread, keeping its memory.
type Tracker struct {
	Containment Containment
	MaxLanes    int // 0 for DefaultMaxLanes
	// KeepCompletion makes the Tracker record the order in which the
	// slices complete, for Completed: 4 bytes a slice, which readers that
	// deliver slices in another order do without.
	KeepCompletion bool

	// stacks[l] holds the open slices of lane l, outermost first.
	stacks [][]open
	// placed[l] is the number of slices placed on lane l so far.
	placed []int32
	// done[l] lists the slices of lane l that completed, in that order.
	done [][]int32

	n int32 // slices placed so far: the index of the next one
	// The latest instant the input reached (a start, or Innermost's
	// instant) and the end of the last slice placed when it started
	// there, to check the order of the input.
	now, nowEnd trace.Time
	begun       bool
}

// open is a slice on a lane's stack.
type open struct {
	start, end trace.Time
	index      int32
}

// Reset forgets the slices placed, for the next thread.
func (t *Tracker) Reset() {
	for l := range t.stacks {
		t.stacks[l] = t.stacks[l][:0]
		t.done[l] = t.done[l][:0]
	}
	t.stacks, t.placed, t.done = t.stacks[:0], t.placed[:0], t.done[:0]
	t.n, t.begun = 0, false
}

// Grow makes room for the order of completion of n more slices, for
// callers that know how many come, so that it is not copied as it grows.
// Most slices go to lane 0, where Grow makes the room.
func (t *Tracker) Grow(n int) {
	if !t.KeepCompletion {
		return
	}
	if cap(t.done) == 0 {
		t.done = make([][]int32, 0, 1)
	}
	lane0 := t.done[:1] // lane 0 may be unused yet: keep len(t.done)
	lane0[0] = slices.Grow(lane0[0], n)
}

// Lanes returns the number of lanes in use: 1 when every slice nests (or
// none was placed), more with overlap lanes.
func (t *Tracker) Lanes() int { return max(len(t.stacks), 1) }

// Place places the next slice, from start to end (start <= end), and
// returns where it went. The slices of a thread must come in the order of
// Compare, and none may start before an instant given to Innermost. It
// returns false, and places nothing, when the slice would need more than
// MaxLanes lanes.
func (t *Tracker) Place(start, end trace.Time) (Placement, bool) {
	t.advance(start, end)
	closed := t.Containment == Closed
	best, empty := -1, -1
	var bestStart trace.Time
	var bestDepth int
	for l, stack := range t.stacks {
		// Complete the slices that end before this one starts, unless
		// (closed) this one is a zero-length slice at their very end.
		for len(stack) > 0 {
			top := stack[len(stack)-1].end
			if top > start || closed && top == end {
				break
			}
			t.complete(l, stack[len(stack)-1].index)
			stack = stack[:len(stack)-1]
		}
		t.stacks[l] = stack
		if len(stack) == 0 {
			if empty < 0 {
				empty = l
			}
			continue
		}
		top := &stack[len(stack)-1]
		if end <= top.end && (best < 0 || top.start > bestStart || top.start == bestStart && len(stack) > bestDepth) {
			best, bestStart, bestDepth = l, top.start, len(stack)
		}
	}
	switch {
	case best >= 0:
	case empty >= 0:
		best = empty
	case len(t.stacks) < t.maxLanes():
		best = t.addLane()
	default:
		return Placement{}, false
	}
	p := Placement{Lane: int32(best), Depth: int32(len(t.stacks[best])), Order: t.placed[best]}
	t.stacks[best] = append(t.stacks[best], open{start, end, t.n})
	t.placed[best]++
	t.n++
	t.now, t.nowEnd = start, end
	return p, true
}

// Innermost returns the index (the rank of its Place call) of the
// innermost slice open at instant at, and false if none is. Every slice
// placed so far must start at or before at, and every slice placed after
// at or after it: readers bind the points of a thread (flow arrows) to
// the slices around them as they place the slices, points and slices in
// time order.
func (t *Tracker) Innermost(at trace.Time) (int, bool) {
	first := !t.begun
	t.advance(at, at)
	closed := t.Containment == Closed
	best := -1
	var bestStart trace.Time
	var bestDepth int
	for l, stack := range t.stacks {
		for len(stack) > 0 {
			top := stack[len(stack)-1].end
			if top > at || closed && top == at {
				break
			}
			t.complete(l, stack[len(stack)-1].index)
			stack = stack[:len(stack)-1]
		}
		t.stacks[l] = stack
		if n := len(stack); n > 0 && (best < 0 || stack[n-1].start > bestStart || stack[n-1].start == bestStart && n > bestDepth) {
			best, bestStart, bestDepth = int(stack[n-1].index), stack[n-1].start, n
		}
	}
	if first || at > t.now {
		// The next slice may start at at and end anywhere.
		t.now, t.nowEnd = at, math.MaxInt64
	}
	return best, best >= 0
}

// advance checks that the input goes on in order from where it is.
func (t *Tracker) advance(start, end trace.Time) {
	if end < start {
		panic("nesting: a slice ends before it starts")
	}
	if t.begun && (start < t.now || start == t.now && end > t.nowEnd) {
		panic("nesting: slices out of the order of Compare")
	}
	t.begun = true
}

// complete records that slice i of lane l completed.
func (t *Tracker) complete(l int, i int32) {
	if t.KeepCompletion {
		t.done[l] = append(t.done[l], i)
	}
}

func (t *Tracker) maxLanes() int {
	if t.MaxLanes > 0 {
		return t.MaxLanes
	}
	return DefaultMaxLanes
}

// addLane opens a new lane, reusing the memory of a lane of a former
// thread if there is one (Reset emptied it).
func (t *Tracker) addLane() int {
	l := len(t.stacks)
	t.stacks = slices.Grow(t.stacks, 1)[:l+1]
	t.done = slices.Grow(t.done, 1)[:l+1]
	t.placed = append(t.placed, 0)
	return l
}

// Completed returns the indices (the rank of their Place call) of the
// slices of lane in the order they complete, the slices still open
// completing at the end of the input, innermost first. Call it once every
// slice of the thread is placed; it needs KeepCompletion. Readers deliver
// lane after lane, from 0 to Lanes()-1. The result is valid until Reset.
func (t *Tracker) Completed(lane int) []int32 {
	if !t.KeepCompletion {
		panic("nesting: Completed without KeepCompletion")
	}
	if lane >= len(t.stacks) {
		return nil // lane 0 of a thread without slices
	}
	stack := t.stacks[lane]
	for i := len(stack) - 1; i >= 0; i-- {
		t.done[lane] = append(t.done[lane], stack[i].index)
	}
	t.stacks[lane] = stack[:0]
	return t.done[lane]
}
