package chrome

import (
	"cmp"
	"slices"
	"sort"

	"github.com/macroscope-hpc/macroscope/core/readers/nesting"
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
// come late are sorted apart and merged in, all in the chunks they were
// added to. The order is total (seq is unique), so this gives what any
// sort gives. A few runs are merged, and slices far from order sorted,
// into one array that the chunks then refer to.
func sortSlices(sl *chunks[slice]) {
	n := sl.len()
	// A few runs in order (a writer that flushed its buffers in turn):
	// merged.
	bounds := []int{0}
	var prev *slice
	i := 0
scan:
	for _, chunk := range sl.parts() {
		for j := range chunk {
			if prev != nil && compareSlices(*prev, chunk[j]) > 0 {
				if bounds = append(bounds, i); len(bounds) > maxRuns {
					break scan
				}
			}
			prev = &chunk[j]
			i++
		}
	}
	if len(bounds) == 1 {
		return
	}
	if len(bounds) <= maxRuns {
		sl.setAll(mergeRuns(sl, append(bounds, n)))
		return
	}
	var late []slice
	k := 0
	var kept *slice // the last slice kept in place, at k-1
	for i := range n {
		s := sl.at(i)
		if k == 0 || compareSlices(*kept, *s) <= 0 {
			kept = sl.at(k)
			*kept = *s
			k++
		} else {
			late = append(late, *s)
		}
	}
	if len(late) == 0 {
		return
	}
	if len(late) > n/8 { // not nearly sorted after all
		all := sl.copied()
		copy(all[k:], late)
		slices.SortFunc(all, compareSlices)
		sl.setAll(all)
		return
	}
	slices.SortFunc(late, compareSlices)
	// Merge from the back, where late's places are.
	i, w := k-1, n-1
	for j := len(late) - 1; j >= 0; w-- {
		if i >= 0 && compareSlices(*sl.at(i), late[j]) > 0 {
			*sl.at(w) = *sl.at(i)
			i--
		} else {
			*sl.at(w) = late[j]
			j--
		}
	}
}

// maxRuns is the number of runs in order past which sortSlices does not
// merge them.
const maxRuns = 16

// mergeRuns returns the slices of sl, made of the runs in order that
// start at bounds (its last element is sl.len()), merged at once into one
// array, the runs' next slices kept in a heap.
func mergeRuns(sl *chunks[slice], bounds []int) []slice {
	type run struct {
		next    *slice // the run's next slice, at index at
		at, end int
	}
	runs := make([]run, 0, len(bounds)-1)
	for i := 0; i+1 < len(bounds); i++ {
		if bounds[i] < bounds[i+1] {
			runs = append(runs, run{sl.at(bounds[i]), bounds[i], bounds[i+1]})
		}
	}
	less := func(a, b *run) bool { return compareSlices(*a.next, *b.next) < 0 }
	down := func(i int) {
		for {
			l := 2*i + 1
			if l >= len(runs) {
				return
			}
			if r := l + 1; r < len(runs) && less(&runs[r], &runs[l]) {
				l = r
			}
			if !less(&runs[l], &runs[i]) {
				return
			}
			runs[i], runs[l] = runs[l], runs[i]
			i = l
		}
	}
	for i := len(runs)/2 - 1; i >= 0; i-- {
		down(i)
	}
	out := make([]slice, 0, sl.len())
	for len(runs) > 0 {
		top := &runs[0]
		out = append(out, *top.next)
		if top.at++; top.at < top.end {
			top.next = sl.at(top.at)
		} else {
			runs[0] = runs[len(runs)-1]
			runs = runs[:len(runs)-1]
		}
		down(0)
	}
	return out
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
func nestThread(t *nesting.Tracker, sl *chunks[slice], fl *chunks[flowPoint], points []int32) (int32, bool) {
	sortSlices(sl)
	t.Reset()
	next := 0
	for _, chunk := range sl.parts() {
		for i := range chunk {
			s := &chunk[i]
			for next < len(points) && fl.at(int(points[next])).ts < s.start {
				bindEnclosing(t, sl, fl.at(int(points[next])))
				next++
			}
			at, ok := t.Place(s.start, s.end)
			if !ok {
				return 0, false
			}
			s.lane, s.depth = at.Lane, at.Depth
		}
	}
	for ; next < len(points); next++ {
		bindEnclosing(t, sl, fl.at(int(points[next])))
	}
	var bySeq map[int32]int32
	for i := range points {
		p := fl.at(int(points[i]))
		switch {
		case p.own != 0:
			// The flow end of a complete event (flow_in, flow_out)
			// belongs to that slice, whatever else starts with it.
			if bySeq == nil {
				bySeq = make(map[int32]int32, sl.len())
				for k := range sl.len() {
					bySeq[sl.at(k).seq] = int32(k)
				}
			}
			if k, ok := bySeq[p.own]; ok {
				s := sl.at(int(k))
				p.lane, p.at = s.lane, s.start
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
func bindEnclosing(t *nesting.Tracker, sl *chunks[slice], p *flowPoint) {
	p.lane, p.at = 0, p.ts
	if !p.enclosing {
		return
	}
	if i, ok := t.Innermost(p.ts); ok {
		p.lane = sl.at(i).lane
	}
}

// bindNext attaches a flow end without bp "e" to the first slice that
// starts at or after it, where the trace viewers draw its arrow.
func bindNext(sl *chunks[slice], p *flowPoint) {
	i := sort.Search(sl.len(), func(i int) bool { return sl.at(i).start >= p.ts })
	if i < sl.len() {
		s := sl.at(i)
		p.lane, p.at = s.lane, s.start
	} else {
		p.lane, p.at = 0, p.ts
	}
}
