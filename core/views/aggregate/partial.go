package aggregate

import (
	"cmp"
	"slices"
	"sync/atomic"
)

// Qualities cached for some nodes.
//
// A model too large for the cache (Options.CacheBytes) computes the
// qualities of every (node, interval) again at each solve: the interval
// terms, the sums over every interval and their x log2 x, about a quarter
// of a solve of 100,000 resources x 100 slices, and a knee search solves
// five times. When a search is to solve several times (newSweeper), the
// engine keeps what the cache can hold of them: the qualities of the
// nodes whose terms cost the most, those with children first (every state
// present in most slices, and their stats added up from their leaves'),
// then the leaves, dearest first (costOfTerms; a sparse input's in their
// order). The first traversal after that fills them as it computes them
// (a plain solve keeps nothing: it would not read them again), and the
// traversals after it read them. The lines kept are the ones the whole
// cache keeps (fillCache), and a node with kept lines goes through
// aggregateCached as it does with the whole cache: the same bits as the
// terms computed again (aggregateRaw), so what is kept changes no result,
// only the time.

// The states of someLines.
const (
	someEmpty   int32 = iota // to be filled by the next traversal
	someFilling              // being filled by one traversal
	someFull                 // filled: read them
)

// someLines holds the qualities of some nodes, in the engine's units.
type someLines struct {
	// slot is, for each node, the index of its lines in lines (in units of
	// the intervals of a node), -1 when they are not kept.
	slot  []int32
	lines []line
	// noStats marks the nodes that need no stats once the lines are
	// filled: their lines are kept, and so are those of every node above
	// them, which therefore never add up their children's stats.
	noStats []bool
	state   atomic.Int32
}

// of returns the kept lines of node n, or nil.
func (c *someLines) of(n int32, tri int) []line {
	k := c.slot[n]
	if k < 0 {
		return nil
	}
	at := int(k) * (tri + somePad)
	return c.lines[at : at+tri]
}

// somePad is the room after each node's kept lines, which aggregateCached
// reads past their end: the lines of the next node may be being filled.
const somePad = 4

// solvesAgain implements repeatSolver: a model whose qualities the cache
// cannot all hold keeps those of as many nodes as s.opt.CacheBytes has
// room for, the dearest first (see the comment at the top of this file),
// from the next traversal on; none when not even one node fits.
func (s *Spatiotemporal) solvesAgain() {
	if s.cache != nil {
		return
	}
	s.someOnce.Do(func() {
		if c := s.chooseSome(); c != nil {
			s.some.Store(c)
		}
	})
}

// chooseSome returns the lines to keep, not filled, or nil.
func (s *Spatiotemporal) chooseSome() *someLines {
	room := s.opt.CacheBytes / (int64(s.tri+somePad) * 16)
	if room <= 0 {
		return nil
	}
	t := s.in.Tree
	order := make([]int32, 0, t.Len())
	for n := range int32(t.Len()) {
		if !t.IsLeaf(n) { // preorder: a node before the nodes below it
			order = append(order, n)
		}
	}
	leaves := make([]int32, 0, len(t.Leaves))
	for n := range int32(t.Len()) {
		if t.IsLeaf(n) {
			leaves = append(leaves, n)
		}
	}
	if !s.in.isSparse() && int64(len(order)) < room {
		cost := make([]int, t.Len())
		for _, n := range leaves {
			cost[n] = costOfTerms(s.in, int(t.LeafLo[n]))
		}
		slices.SortStableFunc(leaves, func(a, b int32) int { return cmp.Compare(cost[b], cost[a]) })
	}
	order = append(order, leaves...)
	order = order[:min(int64(len(order)), room)]

	c := &someLines{slot: make([]int32, t.Len()), noStats: make([]bool, t.Len())}
	for n := range c.slot {
		c.slot[n] = -1
	}
	for k, n := range order {
		c.slot[n] = int32(k)
	}
	for n := range int32(t.Len()) { // preorder: the parent is decided first
		c.noStats[n] = c.slot[n] >= 0 && (n == 0 || c.noStats[t.Parent[n]])
	}
	c.lines = make([]line, len(order)*(s.tri+somePad))
	return c
}

// takeSome returns the kept lines a traversal reads, or fills when fill
// is set (it then calls doneSome when the traversal is over), or nil.
func (s *Spatiotemporal) takeSome() (c *someLines, fill bool) {
	c = s.some.Load()
	switch {
	case c == nil:
		return nil, false
	case c.state.Load() == someFull:
		return c, false
	case c.state.CompareAndSwap(someEmpty, someFilling):
		return c, true
	}
	return nil, false // another traversal fills them
}

// doneSome ends the filling of c by a traversal, which visited every
// node if complete (it was not canceled).
func doneSome(c *someLines, complete bool) {
	if complete {
		c.state.Store(someFull)
	} else {
		c.state.Store(someEmpty)
	}
}

// keptOf returns the lines of node n that the traversal reads from the
// kept ones (filled first if it fills them), and n's stats, from its
// children's kids, which it recycles; ok is false when n's are not kept,
// and then it does nothing.
func (s *Spatiotemporal) keptOf(c *someLines, fill bool, n int32, kids []nodeStats, w *scratch) (q []line, st nodeStats, ok bool) {
	if c == nil {
		return nil, nodeStats{}, false
	}
	if q = c.of(n, s.tri); q == nil {
		return nil, nodeStats{}, false
	}
	if fill || !c.noStats[n] {
		st = s.stats(n, kids, w)
	}
	if fill {
		T := s.in.Slices
		leaves := s.in.Tree.NumLeaves(n)
		raw := intervalQualities(st, T, s.in.States, logSizes(w.logSize, T, leaves), &w.iq)
		s.toUnits(q, raw, leaves)
	}
	for _, k := range kids {
		w.recycle(k)
	}
	return q, st, true
}

// costOfTerms estimates what intervalTerms costs for leaf leaf of a dense
// input: per state present, the sums over every interval and their
// addition to the totals, and the logs of x log2 x, which xlogColumns
// takes only where the sums change (weighed three times a sum).
func costOfTerms(in Input, leaf int) int {
	T, X := in.Slices, in.States
	tri := T * (T + 1) / 2
	v := in.Values[leaf*T*X : (leaf+1)*T*X]
	cost := 0
	for x := 0; x < X; x++ {
		absent := absentSlices(v[x:], X, T)
		if absent == T-1 && v[x] == 0 {
			continue
		}
		logs := tri
		if absent*4 >= T { // as xlogColumns computes them
			logs = 0
			before := 0 // slices before j where the state is
			for j := 0; j < T; j++ {
				here := v[j*X+x] != 0
				switch {
				case j > 0 && !here:
				case 2*(before+1) > j+1:
					logs += j + 1
				default:
					logs += before + 1
				}
				if here {
					before++
				}
			}
		}
		cost += 2*tri + 3*logs
	}
	return cost
}
