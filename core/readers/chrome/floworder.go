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
	fl := &c.flows
	order := identity(fl.len())
	if fl.len() < 2 {
		return order
	}
	s := newKeySorter(fl)
	s.setKeys(byThread)
	order = s.sort(order, len(c.threads))
	sortGroups(fl, order, func(a, b *flowPoint) bool { return a.thread == b.thread }, compareInThread)
	return order
}

// flowsByKey returns the indices of c.flows ordered by flow (cat, id,
// scope), then by compareInFlow.
func (c *collector) flowsByKey() []int32 {
	fl := &c.flows
	order := identity(fl.len())
	if fl.len() < 2 {
		return order
	}
	// Least significant key first: each counting sort is stable. Interned
	// ids and pids are below the number of strings; none is -1.
	ids := c.strs.Len() + 1
	s := newKeySorter(fl)
	s.setKeys(byScope)
	order = s.sort(order, ids)
	s.setKeys(byID)
	order = s.sort(order, ids)
	s.setKeys(byCat)
	order = s.sort(order, ids)
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

// keySorter sorts the indices of flow points by counting, on one key of
// the points at a time. The keys are read from the points once, in their
// order, into an array the sort looks up (reaching each point through its
// chunk, on each of a sort's passes, cost more than the sort), and the
// arrays of one sort are reused by the next.
type keySorter struct {
	fl    *chunks[flowPoint]
	keys  []int32 // the key of each point, by index
	spare []int32 // the order array a sort writes into
	count []int32
}

func newKeySorter(fl *chunks[flowPoint]) *keySorter {
	return &keySorter{fl: fl, keys: make([]int32, fl.len())}
}

// The keys the flow points are sorted on: an interned id or pid plus
// one (none is -1), or a thread index.
const (
	byThread = iota
	byScope
	byID
	byCat
)

// setKeys sets the key of each point, one of the above.
func (s *keySorter) setKeys(key int) {
	i := 0
	for _, chunk := range s.fl.parts() {
		keys := s.keys[i : i+len(chunk)]
		switch key {
		case byThread:
			for j := range chunk {
				keys[j] = chunk[j].thread
			}
		case byScope:
			for j := range chunk {
				keys[j] = chunk[j].scope + 1
			}
		case byID:
			for j := range chunk {
				keys[j] = chunk[j].id + 1
			}
		case byCat:
			for j := range chunk {
				keys[j] = chunk[j].cat + 1
			}
		}
		i += len(chunk)
	}
}

// sort returns order, the indices of all the points, stably sorted by
// their keys, whose values lie in [0, n). When every point has the same
// key, order is returned as is.
func (s *keySorter) sort(order []int32, n int) []int32 {
	keys := s.keys
	if !slices.ContainsFunc(keys, func(k int32) bool { return k != keys[0] }) {
		return order
	}
	if cap(s.count) < n+1 {
		s.count = make([]int32, n+1)
	}
	count := s.count[:n+1]
	clear(count)
	for _, k := range keys {
		count[k+1]++
	}
	for k := 1; k <= n; k++ {
		count[k] += count[k-1]
	}
	out := s.spare
	if out == nil {
		out = make([]int32, len(order))
	}
	for _, i := range order {
		k := keys[i]
		out[count[k]] = i
		count[k]++
	}
	s.spare = order
	return out
}

// sortGroups sorts each run of order whose points are in one group (same
// says whether two are) by compare, leaving runs already in order alone.
func sortGroups(fl *chunks[flowPoint], order []int32, same func(a, b *flowPoint) bool, compare func(a, b *flowPoint) int) {
	at := func(i int32) *flowPoint { return fl.at(int(i)) }
	less := func(i, j int32) int { return compare(at(i), at(j)) }
	for lo := 0; lo < len(order); {
		hi, sorted := lo+1, true
		first, prev := at(order[lo]), at(order[lo])
		for ; hi < len(order); hi++ {
			p := at(order[hi])
			if !same(first, p) {
				break
			}
			if sorted && compare(prev, p) > 0 {
				sorted = false
			}
			prev = p
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
