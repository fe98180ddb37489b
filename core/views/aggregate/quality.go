package aggregate

import (
	"math"
)

// xlog2x returns x log2 x, with 0 log 0 = 0.
func xlog2x(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return x * log2(x)
}

// line is the gain and loss of a partition of some block. Its pIC is
// p*g - (1-p)*l, a line in p: that is what the significant-p search and
// the reuse of solutions between values of p rely on.
type line struct{ g, l float64 }

func (q line) at(p float64) float64 { return p*q.g - (1-p)*q.l }

// units converts raw measures into an engine's units: the chosen gain
// measure, divided by the normalisation constants (1 when off).
type units struct {
	gain         GainMeasure
	gain0, loss0 float64
}

// of returns the gain and loss of a block of size cells whose entropy
// gain and loss are entGain and loss.
func (u units) of(entGain, loss float64, size int) line {
	g := entGain
	if u.gain == GainSize {
		g = float64(size - 1)
	}
	return line{g / u.gain0, loss / u.loss0}
}

// normalised returns u with the normalisation constants set from the raw
// gain and loss of the coarsest partition (kept at 1 when zero).
func (u units) normalised(coarse line) units {
	if coarse.g > 0 {
		u.gain0 = coarse.g
	}
	if coarse.l > 0 {
		u.loss0 = coarse.l
	}
	return u
}

// nodeStats holds, for one hierarchy node and every slice t, the sum over
// its leaves of each state's value (v[t*states+x]) and of v log2 v over
// all states (ent[t]). They are all that the gain and loss of the node's
// time intervals depend on, and a parent's are the sums of its children's.
//
// The stats of a sparse input's node (sparse) hold only the states with a
// value in its cells, states, increasing; v then holds each one's values,
// slice by slice (v[k*slices+t] for states[k]).
type nodeStats struct {
	v   []float64
	ent []float64
	// ownV tells whether v may be reused once the stats are consumed (a
	// leaf's v is the input's).
	ownV   bool
	sparse bool
	states []int32
}

// held tells whether the stats were computed (a node whose qualities are
// cached has none).
func (s nodeStats) held() bool { return s.v != nil || s.sparse }

// leafStats returns the stats of a leaf, its ent in ent (in.Slices
// values); tmp is scratch space for in.Slices * in.States values.
func leafStats(in Input, leaf int, ent, tmp []float64, sp *sparseScratch) nodeStats {
	if in.isSparse() {
		return leafStatsSparse(in, leaf, ent, sp)
	}
	n := in.Slices * in.States
	s := nodeStats{v: in.Values[leaf*n : (leaf+1)*n : (leaf+1)*n], ent: ent[:in.Slices]}
	xl := tmp[:n]
	xlog2xTo(xl, s.v)
	for t := range s.ent {
		e := 0.0
		for _, v := range xl[t*in.States : (t+1)*in.States] {
			e += v
		}
		s.ent[t] = e
	}
	return s
}

func (s *nodeStats) add(o nodeStats) {
	addTo(s.v, o.v)
	addTo(s.ent, o.ent)
}

// intervalScratch is the working memory of intervalQualities for one
// node.
type intervalScratch struct {
	sums  []float64 // tri
	total []float64 // tri
	xl    []float64 // tri
	lg    []float64 // tri: one state's x log2 x, see xlogColumns
	rows  []float64 // slices: the sums xlogColumns takes the logs of
	ent   []float64 // slices (and 3)
	lr    []float64 // slices (and 3), see aggregateRaw
	// lrLeaves is the number of leaves of the node whose log sizes lr
	// holds, 0 for none.
	lrLeaves int
	out      []line   // tri
	present  presence // of a state, see xlogColumns
	// sp is the memory of sparse stats (see sparse.go).
	sp sparseScratch
}

func newIntervalScratch(slices, states int) intervalScratch {
	tri := slices * (slices + 1) / 2
	// total and xl are read in whole vectors, past their end, and ent and
	// lr are used so (see aggregateRaw).
	return intervalScratch{
		sums:  make([]float64, tri),
		total: make([]float64, tri, tri+3),
		xl:    make([]float64, tri, tri+3),
		lg:    make([]float64, tri),
		rows:  make([]float64, slices),
		ent:   make([]float64, slices+3),
		lr:    make([]float64, slices+3),
		out:   make([]line, tri),
	}
}

// intervalQualities returns the raw entropy gain and loss of every
// interval [i..j] of the node whose stats are s and which has leaves
// leaves, at w.out[triIndex(i, j)] (w.out is returned). logSize holds
// log2(leaves * n) for every length n.
//
// Sums run forward from i, never as differences of prefix sums: a single
// cell then has gain and loss exactly 0, and sums of identical cells do
// not suffer cancellation. The work is organised in flat passes over all
// the intervals of the node, one state at a time (its sums V_x, added to
// the totals, and their x log2 x, added to xl), then the measures, with
// the same operations in the same order as interval by interval, so the
// same results:
//
//	V_x(i,j) = V_x(i,j-1) + v_x(j)        V_x(j,j) = 0 + v_x(j)
//	total = ((0 + V_0) + V_1) + ...       xl = ((0 + V_0 log2 V_0) + ...) + ...
//	ent(i,j) = ent(i,j-1) + ent(j)
func intervalQualities(s nodeStats, slices, states int, logSize []float64, w *intervalScratch) []line {
	T := slices
	tri := T * (T + 1) / 2
	xl, totals := intervalTerms(s, slices, states, w)
	out, ent := w.out[:tri], w.ent[:T]
	for j := 0; j < T; j++ {
		e := s.ent[j]
		for i := range ent[:j] {
			ent[i] += e
		}
		ent[j] = 0 + e
		base := triIndex(0, j)
		col, tot, xls := out[base:base+j+1], totals[base:base+j+1], xl[base:base+j+1]
		for i := range col {
			g, l := gainLossLog(xls[i], ent[i], tot[i], logSize[j-i+1])
			col[i] = line{g, l}
		}
	}
	return out
}

// intervalTerms is the first pass of intervalQualities: the sums over
// every interval (triangular index) of x log2 x of the per-state sums, and
// of the values, in w.
func intervalTerms(s nodeStats, slices, states int, w *intervalScratch) (xl, totals []float64) {
	if s.sparse {
		return intervalTermsSparse(s, slices, w, &w.sp)
	}
	T, X := slices, states
	tri := T * (T + 1) / 2
	sums, totals, xl := w.sums[:tri], w.total[:tri], w.xl[:tri]
	for x := 0; x < X; x++ {
		absent := absentSlices(s.v[x:], X, T)
		if absent == T-1 && s.v[x] == 0 {
			// A state absent from the node: every sum is +0, and so is its
			// x log2 x (whatever the sign of the zero values), and adding
			// +0 changes no total (none is -0: they start as 0 + a value).
			if x == 0 {
				clear(totals)
				clear(xl)
			}
			continue
		}
		intervalSums(sums, s.v[x:], X, T)
		if absent*4 < T {
			xlogAccumulate(sums, totals, xl, x == 0)
			continue
		}
		// A state absent from many slices: the logs of its sums again
		// where they did not change.
		lg := w.lg[:tri]
		xlogColumns(lg, sums, s.v[x:], X, T, w.rows[:T], &w.present)
		if x == 0 { // 0 + the first terms, as xlogAccumulate sets them
			clear(totals)
			clear(xl)
		}
		addTo(totals, sums)
		addTo(xl, lg)
	}
	return xl, totals
}

// absentSlices counts the slices j > 0 where v[j*stride], a state's value,
// is zero.
func absentSlices(v []float64, stride, T int) int {
	n := 0
	for j := 1; j < T; j++ {
		if v[j*stride] == 0 {
			n++
		}
	}
	return n
}

// xlogColumns sets lg to x log2 x of every interval sum of one state,
// sums (triangular index, from intervalSums of the state's values v), as
// xlog2xTo would, but computes logs only for the sums that differ:
//
//   - where the state is absent from slice j, every sum of column j (the
//     intervals ending at j) is that of the column before plus zero,
//     which is the same number (or a zero of either sign, whose x log2 x
//     is 0 too), so its log is copied; the interval [j..j] sums to a zero;
//   - where it is absent from slice i < j, the sum over [i..j] runs
//     (0 + v(i)) + v(i+1)... = +0 + v(i+1)..., the bits of the sum over
//     [i+1..j], so its log is that of the row below, and so on up to the
//     first slice from i where the state is: only the rows of the slices
//     where the state is present, and row j, are computed (gathered into
//     buf when they are at most half the column).
//
// The rows are gathered and spread by the state's ranks (see presence),
// without a branch on each slice: which slices hold the state follows the
// trace, and mispredicted branches cost more than the copies.
func xlogColumns(lg, sums, v []float64, stride, T int, buf []float64, p *presence) {
	p.of(v, stride, T)
	for j := 0; j < T; j++ {
		c := triIndex(0, j)
		col := lg[c : c+j+1]
		if j > 0 && v[j*stride] == 0 {
			copy(col[:j], lg[triIndex(0, j-1):][:j])
			col[j] = 0
			continue
		}
		before := int(p.rank[j]) // slices before j where the state is
		if 2*(before+1) > j+1 {
			xlog2xTo(col, sums[c:c+j+1])
			continue
		}
		rows := buf[:before+1]
		for k, i := range p.at[:before] {
			rows[k] = sums[c+int(i)]
		}
		rows[before] = sums[c+j]
		xlog2xTo(rows, rows)
		// Row i takes the log of the first row from i where the state is,
		// or of row j: rows[rank[i]].
		for i, r := range p.rank[:j+1] {
			col[i] = rows[r]
		}
	}
}

// presence is where one state is, among the slices of a node.
type presence struct {
	// rank[i] is the number of slices before slice i where the state is.
	rank []int32
	// at lists the slices where the state is, in increasing order.
	at []int32
}

// of sets p to the slices j < T where v[j*stride] is not zero.
func (p *presence) of(v []float64, stride, T int) {
	if cap(p.rank) < T {
		p.rank, p.at = make([]int32, T), make([]int32, T)
	}
	p.rank, p.at = p.rank[:T], p.at[:0]
	for j := range T {
		p.rank[j] = int32(len(p.at))
		if v[j*stride] != 0 {
			p.at = append(p.at, int32(j))
		}
	}
}

// logSizes returns log2(leaves * n) for n in 0..slices (0 for n = 0): the
// log2 of the sizes of a node's blocks, by length.
func logSizes(dst []float64, slices, leaves int) []float64 {
	dst = dst[:slices+1]
	dst[0] = 0
	for n := 1; n <= slices; n++ {
		dst[n] = log2(float64(leaves * n))
	}
	return dst
}

// gainLoss finishes the measures of a block of size cells whose per-state
// sums V_x give xl = sum_x V_x log2 V_x and total = sum_x V_x, and whose
// cells give ent = sum_c v_c log2 v_c:
//
//	gain = xl - ent        loss = total log2(size) - gain
//
// Both are non-negative in exact arithmetic. Results within rounding
// error of zero (relative to the terms subtracted) are zero: a homogeneous
// block loses nothing, and noise must not tell it from one that does.
func gainLoss(xl, ent, total float64, size int) (gain, loss float64) {
	return gainLossLog(xl, ent, total, log2(float64(size)))
}

// gainLossLog is gainLoss given log2(size).
func gainLossLog(xl, ent, total, logSize float64) (gain, loss float64) {
	scale := total * logSize
	noise := 1e-13 * (math.Abs(xl) + math.Abs(ent) + scale)
	gain = xl - ent
	if gain <= noise {
		gain = 0
	}
	loss = scale - gain
	if loss <= noise {
		loss = 0
	}
	return gain, loss
}

// blockQuality computes the raw entropy gain and loss of node n over
// slices i..j directly from the cells.
func blockQuality(in Input, n int32, i, j int) (gain, loss float64) {
	t := in.Tree
	if i == j && t.NumLeaves(n) == 1 && cellIsPlain(in, int(t.LeafLo[n]), i) {
		// One cell: the loop below would add the same x log2 x terms in
		// the same order to xl and to ent, so gain = xl - ent = 0, and
		// loss = total * log2(1) - 0 = 0. Optimal partitions of large
		// models are mostly such cells.
		return 0, 0
	}
	if in.isSparse() {
		return blockQualitySparse(in, n, i, j)
	}
	// The buffers come from a pool: on the stack, the batch's would move
	// to the heap (the kernels take it), 2 KiB of garbage for every part
	// measured, hundreds of megabytes for a large partition.
	b := blockScratches.Get().(*blockScratch)
	defer blockScratches.Put(b)
	acc := grow(&b.sums, in.States)
	clear(acc)
	xlb := grow(&b.xl, 256)
	ent := 0.0
	for leaf := t.LeafLo[n]; leaf < t.LeafHi[n]; leaf++ {
		// The leaf's cells over i..j are contiguous: their x log2 x in
		// batches, added in the same order.
		lo := (int(leaf)*in.Slices + i) * in.States
		cells := in.Values[lo : lo+(j-i+1)*in.States]
		addRows(acc, cells)
		for len(cells) > 0 {
			batch := xlb[:min(len(cells), len(xlb))]
			xlog2xTo(batch, cells[:len(batch)])
			for _, v := range batch {
				ent += v
			}
			cells = cells[len(batch):]
		}
	}
	total, xl := 0.0, 0.0
	for _, v := range acc {
		total += v
		xl += xlog2x(v)
	}
	return gainLoss(xl, ent, total, t.NumLeaves(n)*(j-i+1))
}

// cellIsPlain reports whether the values of the cell of leaf leaf at slice
// i add up to at most 1e300, so that none of their x log2 x terms, nor
// their sums, overflows (then the measures of the cell alone are 0).
func cellIsPlain(in Input, leaf, i int) bool {
	return cellTotal(in, leaf, i) <= 1e300
}

// rootQuality returns the raw entropy gain and loss of aggregating the
// whole model into one block, summing over chunks of leaves in parallel
// (chunks of a fixed size added in a fixed order, so that the result does
// not depend on the number of workers).
func rootQuality(in Input, workers int) (gain, loss float64) {
	X := in.States
	row := in.Slices * X
	leaves := len(in.Tree.Leaves)
	const chunk = 4096
	type partial struct {
		sums []float64
		ent  float64
	}
	parts := make([]partial, (leaves+chunk-1)/chunk)
	forChunks(len(parts), workers, func(c int) {
		var xl [1024]float64
		sums := make([]float64, X)
		if in.isSparse() {
			parts[c] = partial{sums, rootSumsSparse(in, c*chunk, min((c+1)*chunk, leaves), sums)}
			return
		}
		ent := 0.0
		values := in.Values[c*chunk*row : min((c+1)*chunk, leaves)*row]
		addRows(sums, values)
		for len(values) > 0 {
			batch := xl[:min(len(values), len(xl))]
			xlog2xTo(batch, values[:len(batch)])
			for _, v := range batch {
				ent += v
			}
			values = values[len(batch):]
		}
		parts[c] = partial{sums, ent}
	})
	sums := make([]float64, X)
	ent := 0.0
	for _, p := range parts {
		for x, v := range p.sums {
			sums[x] += v
		}
		ent += p.ent
	}
	total, xl := 0.0, 0.0
	for _, v := range sums {
		total += v
		xl += xlog2x(v)
	}
	return gainLoss(xl, ent, total, leaves*in.Slices)
}

// addRows adds the rows of cells, len(acc) values each, to acc, one row
// after the other (each sum in the order of the rows, as a loop over the
// values with a modulo adds them, without a division per value).
func addRows(acc, cells []float64) {
	if len(acc) == 0 {
		return
	}
	for len(cells) >= len(acc) {
		for x, v := range cells[:len(acc)] {
			acc[x] += v
		}
		cells = cells[len(acc):]
	}
}
