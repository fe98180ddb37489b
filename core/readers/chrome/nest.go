package chrome

import (
	"cmp"
	"slices"

	"github.com/macroscope-hpc/macroscope/core/readers/nesting"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// compareSlices orders a thread's slices so that a parent comes before its
// children: by start, then longer first, then in file order, so that of
// two identical slices the first in the file is the parent (the rules
// HTA's call-stack tests pin down).
func compareSlices(a, b slice) int {
	if c := nesting.Compare(a.start, a.end, b.start, b.end); c != 0 {
		return c
	}
	return cmp.Compare(a.seq, b.seq)
}

// sortSlices sorts a thread's slices by compareSlices. Writers put them
// nearly in order (Kineto writes an operator when it ends, so after its
// children): the slices already in order are kept in place, the few that
// come late are sorted apart and merged in. The order is total (seq is
// unique), so this gives what any sort gives.
func sortSlices(sl []slice) {
	// A few runs in order (a writer that flushed its buffers in turn):
	// merged.
	bounds := []int{0}
	for i := 1; i < len(sl) && len(bounds) <= maxRuns; i++ {
		if compareSlices(sl[i-1], sl[i]) > 0 {
			bounds = append(bounds, i)
		}
	}
	if len(bounds) == 1 {
		return
	}
	if len(bounds) <= maxRuns {
		mergeRuns(sl, append(bounds, len(sl)))
		return
	}
	var late []slice
	k := 0
	for i := range sl {
		if k == 0 || compareSlices(sl[k-1], sl[i]) <= 0 {
			sl[k] = sl[i]
			k++
		} else {
			late = append(late, sl[i])
		}
	}
	if len(late) == 0 {
		return
	}
	if len(late) > len(sl)/8 { // not nearly sorted after all
		copy(sl[k:], late)
		slices.SortFunc(sl, compareSlices)
		return
	}
	slices.SortFunc(late, compareSlices)
	// Merge from the back, where late's places are.
	i, w := k-1, len(sl)-1
	for j := len(late) - 1; j >= 0; w-- {
		if i >= 0 && compareSlices(sl[i], late[j]) > 0 {
			sl[w] = sl[i]
			i--
		} else {
			sl[w] = late[j]
			j--
		}
	}
}

// maxRuns is the number of runs in order past which sortSlices does not
// merge them.
const maxRuns = 16

// mergeRuns sorts sl, made of the runs in order that start at bounds (its
// last element is len(sl)), by merging them two by two.
func mergeRuns(sl []slice, bounds []int) {
	src, dst := sl, make([]slice, len(sl))
	for len(bounds) > 2 {
		next := bounds[:0:0]
		for i := 0; i+1 < len(bounds); i += 2 {
			lo, mid, hi := bounds[i], bounds[i+1], bounds[i+1]
			if i+2 < len(bounds) {
				hi = bounds[i+2]
			}
			a, b, out := src[lo:mid], src[mid:hi], dst[lo:lo]
			for len(a) > 0 && len(b) > 0 {
				if compareSlices(a[0], b[0]) <= 0 {
					out, a = append(out, a[0]), a[1:]
				} else {
					out, b = append(out, b[0]), b[1:]
				}
			}
			_ = append(append(out, a...), b...) // into dst[lo:hi], which has the room
			next = append(next, lo)
		}
		bounds = append(next, len(sl))
		src, dst = dst, src
	}
	if &src[0] != &sl[0] {
		copy(sl, src)
	}
}

// nestThread sorts the slices of one thread, gives each its nesting depth
// and lane, and binds the thread's flow points (the indices in fl of its
// points, in time order) to slices.
//
// Slices of one thread normally nest like a call stack. One that starts
// inside another and ends after it cannot nest; it goes to an overlap
// lane, a sibling container of the thread, so that depths stay
// meaningful. Package nesting places them: closed intervals, so a
// zero-length slice at the end of another is its child. It reports the
// number of lanes, 1 when every slice nests, and false past
// nesting.DefaultMaxLanes lanes.
func nestThread(t *nesting.Tracker, sl []slice, fl []flowPoint, points []int32) (int32, bool) {
	sortSlices(sl)
	t.Reset()
	next := 0
	for i := range sl {
		s := &sl[i]
		for next < len(points) && fl[points[next]].ts < s.start {
			bindEnclosing(t, sl, &fl[points[next]])
			next++
		}
		at, ok := t.Place(s.start, s.end)
		if !ok {
			return 0, false
		}
		s.lane, s.depth = at.Lane, at.Depth
	}
	for ; next < len(points); next++ {
		bindEnclosing(t, sl, &fl[points[next]])
	}
	var bySeq map[int32]int32
	for i := range points {
		p := &fl[points[i]]
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
	return int32(t.Lanes()), true
}

// bindEnclosing attaches p to its time and, if it binds to the enclosing
// slice, to the lane of the innermost slice open at p.ts. The slices
// placed so far start at or before p.ts, those placed after it later.
func bindEnclosing(t *nesting.Tracker, sl []slice, p *flowPoint) {
	p.lane, p.at = 0, p.ts
	if !p.enclosing {
		return
	}
	if i, ok := t.Innermost(p.ts); ok {
		p.lane = sl[i].lane
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
