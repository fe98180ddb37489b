package chrome

import (
	"cmp"
	"slices"
)

// Ordering the flow points.
//
// The flow points are nested thread by thread in time order, then matched
// flow by flow. Both orders are total (seq, the event's place in the file,
// is unique), so any way of reaching them gives the same points in the
// same places. A comparison sort of a few hundred thousand 56-byte points
// with a five-key comparison took a quarter of the reading of a flow-heavy
// Kineto trace; here the points are grouped by counting sorts of int32
// indices on their thread or flow key (small dense integers: thread
// indices, interned ids), then each group, a handful of points, or a
// thread's points already in time order as writers put them, is ordered
// by its remaining keys. The points stay where they are: the nesting and
// the links take them through the indices.

// compareInThread orders the flow points of one thread: by time, then in
// file order.
func compareInThread(a, b *flowPoint) int {
	if r := cmp.Compare(a.ts, b.ts); r != 0 {
		return r
	}
	return cmp.Compare(a.seq, b.seq)
}

// compareInFlow orders the points of one flow: by time, a start before a
// step before an end at one instant, then in file order.
func compareInFlow(a, b *flowPoint) int {
	if r := cmp.Compare(a.ts, b.ts); r != 0 {
		return r
	}
	if r := cmp.Compare(phaseRank(a.phase), phaseRank(b.phase)); r != 0 {
		return r
	}
	return cmp.Compare(a.seq, b.seq)
}

// flowsByThread returns the indices of c.flows in (thread, ts, seq) order.
func (c *collector) flowsByThread() []int32 {
	fl := c.flows
	order := identity(len(fl))
	if len(fl) < 2 {
		return order
	}
	order = countingSort(order, len(c.threads), func(i int32) int32 { return fl[i].thread })
	sortGroups(fl, order, func(a, b *flowPoint) bool { return a.thread == b.thread }, compareInThread)
	return order
}

// flowsByKey returns the indices of c.flows ordered by flow (cat, id,
// scope), then by compareInFlow.
func (c *collector) flowsByKey() []int32 {
	fl := c.flows
	order := identity(len(fl))
	if len(fl) < 2 {
		return order
	}
	// Least significant key first: each counting sort is stable. Interned
	// ids and pids are below the number of strings; none is -1.
	ids := c.strs.Len() + 1
	order = countingSort(order, ids, func(i int32) int32 { return fl[i].scope + 1 })
	order = countingSort(order, ids, func(i int32) int32 { return fl[i].id + 1 })
	order = countingSort(order, ids, func(i int32) int32 { return fl[i].cat + 1 })
	sortGroups(fl, order, func(a, b *flowPoint) bool { return a.cat == b.cat && a.id == b.id && a.scope == b.scope }, compareInFlow)
	return order
}

// identity returns 0, 1, ..., n-1.
func identity(n int) []int32 {
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	return order
}

// countingSort returns order stably sorted by key, whose values lie in
// [0, n). When every element has the same key, order is returned as is.
func countingSort(order []int32, n int, key func(i int32) int32) []int32 {
	first := key(order[0])
	same := true
	for _, i := range order[1:] {
		if key(i) != first {
			same = false
			break
		}
	}
	if same {
		return order
	}
	count := make([]int32, n+1)
	for _, i := range order {
		count[key(i)+1]++
	}
	for k := 1; k <= n; k++ {
		count[k] += count[k-1]
	}
	out := make([]int32, len(order))
	for _, i := range order {
		k := key(i)
		out[count[k]] = i
		count[k]++
	}
	return out
}

// sortGroups sorts each run of order whose points are in one group (same
// says whether two are) by compare, leaving runs already in order alone.
func sortGroups(fl []flowPoint, order []int32, same func(a, b *flowPoint) bool, compare func(a, b *flowPoint) int) {
	less := func(i, j int32) int { return compare(&fl[i], &fl[j]) }
	for lo := 0; lo < len(order); {
		hi, sorted := lo+1, true
		for ; hi < len(order) && same(&fl[order[lo]], &fl[order[hi]]); hi++ {
			if sorted && compare(&fl[order[hi-1]], &fl[order[hi]]) > 0 {
				sorted = false
			}
		}
		if !sorted {
			g := order[lo:hi]
			if len(g) <= 12 {
				for a := 1; a < len(g); a++ {
					for b := a; b > 0 && less(g[b-1], g[b]) > 0; b-- {
						g[b-1], g[b] = g[b], g[b-1]
					}
				}
			} else {
				slices.SortFunc(g, less)
			}
		}
		lo = hi
	}
}
