package aggregate

import (
	"cmp"
	"slices"
)

// Qualities cached for some nodes.
//
// A model too large for the cache (Options.CacheBytes) computes the
// qualities of every (node, interval) again at each solve: the interval
// terms, the sums over every interval and their x log2 x, about a quarter
// of a solve of 100,000 resources x 100 slices, and a knee search solves
// five times. What the cache can hold of them it still holds: the
// qualities of the nodes whose terms cost the most, those with children
// first (every state present in most slices, and their stats added up
// from their leaves'), then the leaves, dearest first (costOfTerms). The
// lines kept are the ones the whole cache keeps (fillCache), and a node
// with kept lines goes through aggregateCached as it does with the whole
// cache: the same bits as the terms computed again (aggregateRaw), so
// what is kept changes no result, only the time.

// someLines holds the qualities of some nodes, in the engine's units.
type someLines struct {
	// slot is, for each node, the index of its lines in lines (in units of
	// the intervals of a node), -1 when they are not kept.
	slot  []int32
	lines []line
	// noStats marks the nodes that need no stats: their lines are kept,
	// and so are those of every node above them, which therefore never
	// add up their children's stats.
	noStats []bool
}

// of returns the kept lines of node n, or nil.
func (c *someLines) of(n int32, tri int) []line {
	k := c.slot[n]
	if k < 0 {
		return nil
	}
	return c.lines[int(k)*tri : (int(k)+1)*tri] // read past its end by aggregateCached
}

// keepSome sets s.some to the qualities of as many nodes as s.opt.CacheBytes
// holds, the dearest first (see the comment at the top of this file); it
// keeps none when not even one node fits.
func (s *Spatiotemporal) keepSome() {
	per := int64(s.tri) * 16
	room := s.opt.CacheBytes / per
	if room <= 0 {
		return
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
	c.lines = make([]line, len(order)*s.tri, len(order)*s.tri+4) // read 4 past their end (aggregateCached)
	s.some = c
	s.fillSome()
}

// fillSome computes the kept lines of s.some, as fillCache computes them
// all (every node's stats, which the nodes above need).
func (s *Spatiotemporal) fillSome() {
	c := s.some
	postOrder(s.in.Tree, s.opt.Workers, nil, &s.scratches, func(n int32, kids []nodeStats, w *scratch) nodeStats {
		st := s.stats(n, kids, w)
		for _, k := range kids {
			w.recycle(k)
		}
		if q := c.of(n, s.tri); q != nil {
			T := s.in.Slices
			leaves := s.in.Tree.NumLeaves(n)
			raw := intervalQualities(st, T, s.in.States, logSizes(w.logSize, T, leaves), &w.iq)
			s.toUnits(q, raw, leaves)
		}
		return st
	}, nil)
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

// keptLines returns the lines s.some keeps of node n, or nil.
func (s *Spatiotemporal) keptLines(n int32) []line {
	if s.some == nil {
		return nil
	}
	return s.some.of(n, s.tri)
}

// statsIfNeeded returns the stats of node n, whose lines are kept, from its
// children's (which it recycles), or none when no node above needs them.
func (s *Spatiotemporal) statsIfNeeded(n int32, kids []nodeStats, w *scratch) nodeStats {
	var st nodeStats
	if !s.some.noStats[n] {
		st = s.stats(n, kids, w)
	}
	for _, k := range kids {
		w.recycle(k)
	}
	return st
}
