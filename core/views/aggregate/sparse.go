package aggregate

import (
	"slices"
	"sync"
)

// Sparse models (Input.Cells).
//
// A cell of a real profile holds a handful of states out of thousands. The
// dense engine works on every state of every node: its stats hold a value
// per slice and state, and the measures of its intervals sum, for every
// state, its values over every interval and their x log2 x. With Cells,
// the stats of a node hold only the states with a value somewhere in its
// cells (nodeStats.states), and the sums of a state over the intervals of
// time follow its non-zero slices (intervalTermsSparse).
//
// The results are the same bits as the dense engine's. Every sum the dense
// engine makes runs in a fixed order, and the terms the sparse engine
// leaves out are exact zeros: the values of absent states (0), their sums
// (0 + 0 = 0) and their x log2 x (0 log 0 = 0). Adding +0 to a sum changes
// nothing unless the sum is -0, and none is: sums of values start from +0
// and add non-negative numbers, and no x log2 x is -0. So the sparse
// engine adds the same non-zero terms in the same order, and every sum,
// measure and decision is the same.

// sparseScratch is a worker's memory for the stats of sparse nodes.
type sparseScratch struct {
	pos  []int32   // by state: its row in the stats being built, or -1
	xl   []float64 // x log2 x of a leaf's entries
	nz   []int     // the non-zero slices of a state
	sums []float64 // a state's sums over the intervals from one start
	xls  []float64 // their x log2 x
	// Buffers of consumed stats, to reuse.
	freeV      [][]float64
	freeStates [][]int32
}

// positions returns pos, one entry per state, all -1, making it if need be.
func (sp *sparseScratch) positions(states int) []int32 {
	if len(sp.pos) < states {
		sp.pos = make([]int32, states)
		for i := range sp.pos {
			sp.pos[i] = -1
		}
	}
	return sp.pos
}

// values returns a zeroed buffer of n values, reused if one is large
// enough.
func (sp *sparseScratch) values(n int) []float64 {
	if k := len(sp.freeV); k > 0 {
		b := sp.freeV[k-1]
		sp.freeV = sp.freeV[:k-1]
		if cap(b) >= n {
			b = b[:n]
			clear(b)
			return b
		}
	}
	return make([]float64, n)
}

// stateList returns an empty list of states, reused if possible.
func (sp *sparseScratch) stateList() []int32 {
	if k := len(sp.freeStates); k > 0 {
		b := sp.freeStates[k-1]
		sp.freeStates = sp.freeStates[:k-1]
		return b[:0]
	}
	return nil
}

// recycle hands the buffers of consumed sparse stats back.
func (sp *sparseScratch) recycle(st nodeStats) {
	if st.ownV && st.v != nil {
		sp.freeV = append(sp.freeV, st.v)
	}
	if st.states != nil {
		sp.freeStates = append(sp.freeStates, st.states)
	}
}

// union sets the node's list of states to the states of groups (each
// increasing, or not: they are sorted), and pos to their rows.
func (sp *sparseScratch) union(states int, groups ...[]int32) []int32 {
	pos := sp.positions(states)
	list := sp.stateList()
	for _, g := range groups {
		for _, x := range g {
			if pos[x] < 0 {
				pos[x] = 0
				list = append(list, x)
			}
		}
	}
	slices.Sort(list)
	for k, x := range list {
		pos[x] = int32(k)
	}
	return list
}

// release sets pos back to -1 for the states of list.
func (sp *sparseScratch) release(list []int32) {
	for _, x := range list {
		sp.pos[x] = -1
	}
}

// leafStatsSparse returns the stats of a leaf of a sparse input, its ent
// in ent (in.Slices values): the states of its cells, each with its value
// in every slice, and per slice the sum of x log2 x of the cell's entries,
// added in the order of the states, as leafStats adds them.
func leafStatsSparse(in Input, leaf int, ent []float64, sp *sparseScratch) nodeStats {
	T := in.Slices
	states, values := in.cellEntries(leaf, 0, T-1)
	list := sp.union(in.States, states)
	v := sp.values(len(list) * T)
	pos := sp.pos
	xl := grow(&sp.xl, len(values))
	xlog2xTo(xl, values)
	ent = ent[:T]
	at := 0
	for t := range T {
		st, vals := in.Cells.Cell(leaf*T + t)
		e := 0.0
		for k, x := range st {
			v[int(pos[x])*T+t] = vals[k]
			e += xl[at+k]
		}
		ent[t] = e
		at += len(st)
	}
	sp.release(list)
	return nodeStats{v: v, ent: ent, ownV: true, sparse: true, states: list}
}

// statsSparse returns the stats of an internal node of a sparse input
// given its children's: every state of a child, its values added child
// after child, as the dense stats add them.
func statsSparse(states, T int, kids []nodeStats, ent []float64, sp *sparseScratch) nodeStats {
	groups := make([][]int32, 0, len(kids))
	for _, k := range kids {
		groups = append(groups, k.states)
	}
	list := sp.union(states, groups...)
	v := sp.values(len(list) * T)
	clear(ent)
	for _, k := range kids {
		for r, x := range k.states {
			at := int(sp.pos[x]) * T
			addTo(v[at:at+T], k.v[r*T:(r+1)*T])
		}
		addTo(ent, k.ent)
	}
	sp.release(list)
	return nodeStats{v: v, ent: ent, ownV: true, sparse: true, states: list}
}

// grow returns (*buf)[:n], making it larger if need be.
func grow(buf *[]float64, n int) []float64 {
	if cap(*buf) < n {
		*buf = make([]float64, n)
	}
	return (*buf)[:n]
}

// denseSlices is the share of a node's slices from which a state's sums
// over intervals are made by the dense kernels: a state in m of T slices
// takes m(m+1)/2 sums and logarithms by its runs (intervalTermsSparse),
// about T^2/8 at m = T/2, against T(T+1)/2 vectorised ones.
const denseSlices = 0.5

// intervalTermsSparse is intervalTerms for the stats of a sparse node.
//
// For one state, the sum over interval [i..j] depends only on which of its
// non-zero slices s_1 < ... < s_m fall in [i..j]: the intervals whose first
// and last such slices are s_a and s_b (i in (s_a-1, s_a], j in [s_b,
// s_b+1)) share the sum ((0 + v(s_a)) + v(s_a+1)) + ... + v(s_b), which is
// the dense running sum with its zeros left out, and its x log2 x. Those
// are added to the intervals' totals and xl, state after state as in the
// dense pass; the intervals that hold none of the state's slices get
// nothing, where the dense pass adds +0.
func intervalTermsSparse(s nodeStats, slices int, w *intervalScratch, sp *sparseScratch) (xl, totals []float64) {
	T := slices
	tri := T * (T + 1) / 2
	sums, totals, xl := w.sums[:tri], w.total[:tri], w.xl[:tri]
	clear(totals)
	clear(xl)
	for r := range s.states {
		row := s.v[r*T : (r+1)*T]
		nz := sp.nz[:0]
		for t, v := range row {
			if v != 0 {
				nz = append(nz, t)
			}
		}
		sp.nz = nz
		m := len(nz)
		if m == 0 {
			continue
		}
		if float64(m) > denseSlices*float64(T) {
			intervalSums(sums, row, 1, T)
			xlogAccumulate(sums, totals, xl, false)
			continue
		}
		vs := grow(&sp.sums, m)
		xs := grow(&sp.xls, m)
		for a := range m {
			// The sums from s_a: s_a..s_a, s_a..s_a+1, ...
			run := 0.0
			for b := a; b < m; b++ {
				run += row[nz[b]]
				vs[b] = run
			}
			xlog2xTo(xs[a:m], vs[a:m])
			iLo := 0
			if a > 0 {
				iLo = nz[a-1] + 1
			}
			iHi := nz[a] + 1 // exclusive
			for b := a; b < m; b++ {
				jEnd := T
				if b+1 < m {
					jEnd = nz[b+1]
				}
				v, x := vs[b], xs[b]
				for j := nz[b]; j < jEnd; j++ {
					base := j*(j+1)/2 + iLo
					tot := totals[base : base+iHi-iLo]
					xlt := xl[base : base+iHi-iLo]
					for i := range tot {
						tot[i] += v
						xlt[i] += x
					}
				}
			}
		}
	}
	return xl, totals
}

// blockScratch is the memory of a measure of one block.
type blockScratch struct {
	acc  []float64 // by state, zero between the measures of a sparse input
	seen []bool    // by state
	list []int32   // the states seen
	xl   []float64
	sums []float64 // by state, for a dense input
}

var blockScratches = sync.Pool{New: func() any { return &blockScratch{} }}

// blockQualitySparse is blockQuality for a sparse input: the same sums in
// the same order, over the entries of the block's cells.
func blockQualitySparse(in Input, n int32, i, j int) (gain, loss float64) {
	t := in.Tree
	b := blockScratches.Get().(*blockScratch)
	defer blockScratches.Put(b)
	if len(b.acc) < in.States {
		b.acc = make([]float64, in.States)
		b.seen = make([]bool, in.States)
	}
	acc, seen := b.acc, b.seen
	list := b.list[:0]
	ent := 0.0
	for leaf := t.LeafLo[n]; leaf < t.LeafHi[n]; leaf++ {
		states, values := in.cellEntries(int(leaf), i, j)
		for k, x := range states {
			if !seen[x] {
				seen[x] = true
				list = append(list, x)
			}
			acc[x] += values[k]
		}
		xl := grow(&b.xl, len(values))
		xlog2xTo(xl, values)
		for _, v := range xl {
			ent += v
		}
	}
	slices.Sort(list)
	total, xl := 0.0, 0.0
	for _, x := range list {
		v := acc[x]
		total += v
		xl += xlog2x(v)
		acc[x], seen[x] = 0, false
	}
	b.list = list
	return gainLoss(xl, ent, total, t.NumLeaves(n)*(j-i+1))
}

// cellTotal returns the sum of the values of the cell of leaf leaf at
// slice i, in the order of the states.
func cellTotal(in Input, leaf, i int) float64 {
	total := 0.0
	if in.isSparse() {
		_, values := in.Cells.Cell(leaf*in.Slices + i)
		for _, v := range values {
			total += v
		}
		return total
	}
	lo := (leaf*in.Slices + i) * in.States
	for _, v := range in.Values[lo : lo+in.States] {
		total += v
	}
	return total
}

// rootSumsSparse is rootQuality's pass over a chunk of leaves of a sparse
// input: the sum of every state's values (sums, one per state) and of
// their x log2 x, in the order of the cells and states.
func rootSumsSparse(in Input, lo, hi int, sums []float64) (ent float64) {
	states, values := in.Cells.Range(lo*in.Slices, hi*in.Slices)
	for k, x := range states {
		sums[x] += values[k]
	}
	var xl [1024]float64
	for len(values) > 0 {
		batch := xl[:min(len(values), len(xl))]
		xlog2xTo(batch, values[:len(batch)])
		for _, v := range batch {
			ent += v
		}
		values = values[len(batch):]
	}
	return ent
}

// meanValuesSparse is MeanValues' sums for a sparse input.
func meanValuesSparse(in Input, p Part, out []float64) {
	t := in.Tree
	for leaf := t.LeafLo[p.Node]; leaf < t.LeafHi[p.Node]; leaf++ {
		states, values := in.cellEntries(int(leaf), int(p.First), int(p.Last))
		for k, x := range states {
			out[x] += values[k]
		}
	}
}

// sparseVector is the non-zero sums of some states, increasing.
type sparseVector struct {
	states []int32
	values []float64
}

// windowQualitiesSparse is Spatial.windowQualities for a sparse input: the
// same sums, added in the same order (leaves' cells in order; a node's
// children from the last to the first, as the dense loop over decreasing
// node ids adds them), over the states present only.
func (s *Spatial) windowQualitiesSparse() []line {
	t, X := s.in.Tree, s.in.States
	nodes := t.Len()
	width := s.last - s.first + 1
	leaves := t.Leaves
	leafSums := make([]sparseVector, len(leaves))
	ent := make([]float64, nodes)
	forChunks((len(leaves)+255)/256, s.opt.Workers, func(c int) {
		acc := make([]float64, X)
		seen := make([]bool, X)
		var xlb [256]float64
		var list []int32
		for leaf := c * 256; leaf < min((c+1)*256, len(leaves)); leaf++ {
			n := leaves[leaf]
			states, values := s.in.cellEntries(leaf, s.first, s.last)
			list = list[:0]
			for k, x := range states {
				if !seen[x] {
					seen[x] = true
					list = append(list, x)
				}
				acc[x] += values[k]
			}
			slices.Sort(list)
			vec := sparseVector{states: slices.Clone(list), values: make([]float64, len(list))}
			for k, x := range list {
				vec.values[k] = acc[x]
				acc[x], seen[x] = 0, false
			}
			if s.opt.Entities == EntitiesResources {
				for k := range vec.values {
					vec.values[k] /= float64(width)
				}
				ent[n] = xlog2xSum(vec.values, xlb[:])
			} else {
				ent[n] = xlog2xSum(values, xlb[:])
			}
			leafSums[leaf] = vec
		}
	})
	// A node's sums gather in the accumulator of its depth; once all its
	// children are in (ids decrease: a node comes after its subtree), they
	// are complete, measured, and added to its parent's.
	type level struct {
		acc  []float64
		seen []bool
		list []int32
	}
	var levels []level
	at := func(d int) *level {
		for len(levels) <= d {
			levels = append(levels, level{acc: make([]float64, X), seen: make([]bool, X)})
		}
		return &levels[d]
	}
	q := make([]line, nodes)
	u := units{gain: s.opt.Gain, gain0: 1, loss0: 1}
	var xlb [256]float64
	for n := nodes - 1; n >= 0; n-- {
		var vec sparseVector
		if t.IsLeaf(int32(n)) {
			vec = leafSums[t.LeafLo[n]]
		} else {
			lv := at(int(t.Depth[n]) + 1)
			slices.Sort(lv.list)
			vec = sparseVector{states: lv.list, values: make([]float64, len(lv.list))}
			for k, x := range lv.list {
				vec.values[k] = lv.acc[x]
				lv.acc[x], lv.seen[x] = 0, false
			}
			lv.list = nil
		}
		// Measure n: its sums are complete.
		total, xl := 0.0, 0.0
		xls := make([]float64, len(vec.values))
		if len(vec.values) <= len(xlb) {
			xls = xlb[:len(vec.values)]
		}
		xlog2xTo(xls, vec.values)
		for k, v := range vec.values {
			total += v
			xl += xls[k]
		}
		size := t.NumLeaves(int32(n)) * width
		if s.opt.Entities == EntitiesResources {
			size = t.NumLeaves(int32(n))
		}
		g, l := gainLoss(xl, ent[n], total, size)
		q[n] = u.of(g, l, size)
		if n == 0 {
			break
		}
		// Add n to its parent.
		ent[t.Parent[n]] += ent[n]
		lv := at(int(t.Depth[n]))
		for k, x := range vec.states {
			if !lv.seen[x] {
				lv.seen[x] = true
				lv.list = append(lv.list, x)
			}
			lv.acc[x] += vec.values[k]
		}
		if t.IsLeaf(int32(n)) {
			leafSums[t.LeafLo[n]] = sparseVector{}
		}
	}
	return q
}
