package chrome

import (
	"cmp"
	"slices"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// maxLanes bounds the overlap lanes of one thread. Real traces need a
// handful; more means the events on that thread are not a call stack at
// all, and placing each slice would cost time proportional to the lanes.
const maxLanes = 4096

// compareSlices orders a thread's slices so that a parent comes before its
// children: by start, then longer first, then in file order.
func compareSlices(a, b slice) int {
	if c := cmp.Compare(a.start, b.start); c != 0 {
		return c
	}
	if c := cmp.Compare(b.end, a.end); c != 0 {
		return c
	}
	return cmp.Compare(a.seq, b.seq)
}

// contains tells whether slice a contains slice b, given a.start <= b.start.
// Intervals are closed, so a zero-length slice at the end of another is its
// child, and of two identical slices the first in the file is the parent
// (the rules HTA's call-stack tests pin down).
func contains(a, b *slice) bool { return b.end <= a.end }

// nestThread sorts the slices of one thread, gives each its nesting depth
// and lane, and binds the thread's flow points (sorted by time) to slices.
//
// Slices of one thread normally nest like a call stack. One that starts
// inside another and ends after it cannot nest; it goes to an overlap lane,
// a sibling container of the thread, so that depths stay meaningful. Each
// slice goes to the lane whose innermost open slice encloses it (the one
// that started last), else to the first lane with no open slice, else to a
// new lane. It reports the number of lanes, 1 when every slice nests.
func nestThread(sl []slice, points []flowPoint) (int32, bool) {
	slices.SortFunc(sl, compareSlices)
	lanes := [][]int32{nil}
	next := 0
	for i := range sl {
		s := &sl[i]
		for next < len(points) && points[next].ts < s.start {
			bindEnclosing(sl, lanes, &points[next])
			next++
		}
		best, empty := -1, -1
		for l, stack := range lanes {
			for len(stack) > 0 {
				top := &sl[stack[len(stack)-1]]
				if contains(top, s) || top.end > s.start {
					break
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
			top := &sl[stack[len(stack)-1]]
			if contains(top, s) && (best < 0 || innerThan(top, &sl[lastOf(lanes[best])])) {
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
		s.lane = int32(best)
		s.depth = int32(len(lanes[best]))
		lanes[best] = append(lanes[best], int32(i))
	}
	for ; next < len(points); next++ {
		bindEnclosing(sl, lanes, &points[next])
	}
	var bySeq map[int32]int32
	for i := range points {
		p := &points[i]
		switch {
		case p.own != 0:
			// The flow end of a complete event (flow_in, flow_out)
			// belongs to that slice, whatever else starts with it.
			if bySeq == nil {
				bySeq = make(map[int32]int32, len(sl))
				for k := range sl {
					bySeq[sl[k].seq] = int32(k)
				}
			}
			if k, ok := bySeq[p.own]; ok {
				p.lane, p.at = sl[k].lane, sl[k].start
			}
		case !p.enclosing:
			bindNext(sl, p)
		}
	}
	return int32(len(lanes)), true
}

func lastOf(stack []int32) int32 { return stack[len(stack)-1] }

// innerThan tells whether open slice a is nested deeper in time than b:
// it started later, or at the same time deeper.
func innerThan(a, b *slice) bool {
	if a.start != b.start {
		return a.start > b.start
	}
	return a.depth > b.depth
}

// bindEnclosing attaches p to the innermost slice open at p.ts. Every slice
// on the lane stacks starts at or before p.ts; those that ended before it
// are popped, which cannot harm the placement of later slices since those
// start even later.
func bindEnclosing(sl []slice, lanes [][]int32, p *flowPoint) {
	p.lane, p.at = 0, p.ts
	var inner *slice
	for l, stack := range lanes {
		for len(stack) > 0 && sl[lastOf(stack)].end < p.ts {
			stack = stack[:len(stack)-1]
		}
		lanes[l] = stack
		if len(stack) > 0 {
			top := &sl[lastOf(stack)]
			if inner == nil || innerThan(top, inner) {
				inner = top
			}
		}
	}
	if inner != nil && p.enclosing {
		p.lane = inner.lane
	}
}

// bindNext attaches a flow end without bp "e" to the first slice that
// starts at or after it, where the trace viewers draw its arrow.
func bindNext(sl []slice, p *flowPoint) {
	i, _ := slices.BinarySearchFunc(sl, p.ts, func(s slice, t trace.Time) int { return cmp.Compare(s.start, t) })
	if i < len(sl) {
		p.lane, p.at = sl[i].lane, sl[i].start
	} else {
		p.lane, p.at = 0, p.ts
	}
}
