//go:build amd64 && !purego

package aggregate

import "unsafe"

// aggregateRawAVX2 is aggregateRawGeneric's measures, units, values and
// comparisons in AVX2 assembly, given the interval sums of the node's
// x log2 x (xl) and values (tot), triangular index; sent, the node's
// entropy per slice; ent, T+3 zeros (it is left holding the running
// sums); lr, log2 of the size of the node's blocks by decreasing length,
// lr[k] = log2(leaves * (T-k)); gain0 and loss0 the units' divisors, p
// and q = 1-p; the tables agg (av, ag, al) and, for a node with children,
// kidSum (kv, kg, kl; empty for a leaf); the node's split bits. xl, tot,
// ent and lr are read up to 3 values past their end, and the tables
// written up to 3 values past theirs (see newTable, newIntervalScratch).
// With lines not empty, the node's cached qualities (gain, loss, gain...
// by interval, read up to 3 intervals past their end, see
// NewSpatiotemporal), only p, q, the tables and split are used besides.
//
//go:noescape
func aggregateRawAVX2(T int, xl, tot, sent, ent, lr []float64, gain0, loss0, p, q float64, av, ag, al, kv, kg, kl []float64, split []uint64, lines []float64)

// aggregateRaw is aggregateRawGeneric, in AVX2 where available for the
// entropy gain (the size gain measure is rare and stays in Go).
func (r *run) aggregateRaw(agg, kidSum table, st nodeStats, leaves int, d nodeDecisions, leaf bool, w *scratch) {
	r.aggregateTerms(agg, kidSum, r.s.rawTerms(st, leaves, w), d, leaf, w)
}

// rawTerms computes the terms of aggregateRaw that do not depend on p, in
// w: the interval sums of x log2 x and of the values where the assembly
// takes them (and log2 of the block sizes, in w.iq.lr), the raw
// qualities otherwise.
func (s *Spatiotemporal) rawTerms(st nodeStats, leaves int, w *scratch) rawTerms {
	T := s.in.Slices
	if !hasAVX2 || s.u.gain == GainSize {
		return rawTerms{leaves: leaves, lines: intervalQualities(st, T, s.in.States, logSizes(w.logSize, T, leaves), &w.iq)}
	}
	xl, tot := intervalTerms(st, T, s.in.States, &w.iq)
	lr := w.iq.lr[:T+3]
	if w.iq.lrLeaves != leaves { // most nodes are leaves: lr is kept between them
		logSize := logSizes(w.logSize, T, leaves)
		for k := 0; k < T; k++ {
			lr[k] = logSize[T-k]
		}
		w.iq.lrLeaves = leaves
	}
	return rawTerms{st: st, leaves: leaves, xl: xl, tot: tot}
}

// aggregateTerms is the rest of aggregateRaw, at r.p, given the node's
// terms t (rawTerms, still in w).
func (r *run) aggregateTerms(agg, kidSum table, t rawTerms, d nodeDecisions, leaf bool, w *scratch) {
	if t.lines != nil {
		r.aggregateOrSplit(agg, kidSum, t.lines, true, t.leaves, d, leaf)
		return
	}
	s := r.s
	T := s.in.Slices
	xl, tot, st := t.xl, t.tot, t.st
	lr, ent := w.iq.lr[:T+3], w.iq.ent[:T+3]
	clear(ent)
	_, _ = xl[:cap(xl)][len(xl)+2], tot[:cap(tot)][len(tot)+2] // room for the assembly
	_, _, _ = agg.v[:T*T+3], agg.g[:T*T+3], agg.l[:T*T+3]
	var kv, kg, kl []float64
	if !leaf {
		kv, kg, kl = kidSum.v[:T*T+3], kidSum.g[:T*T+3], kidSum.l[:T*T+3]
		_ = d.split[splitWords(s.tri)-1]
	}
	_ = st.ent[T-1]
	aggregateRawAVX2(T, xl, tot, st.ent, ent, lr, s.u.gain0, s.u.loss0, r.p, 1-r.p, agg.v, agg.g, agg.l, kv, kg, kl, d.split, nil)
}

// aggregateCached is aggregateOrSplit for cached qualities q (the node's
// lines, in the engine's units), in AVX2 where available.
func (r *run) aggregateCached(agg, kidSum table, q []line, d nodeDecisions, leaf bool) {
	if !hasAVX2 {
		r.aggregateOrSplit(agg, kidSum, q, false, 0, d, leaf)
		return
	}
	T := r.s.in.Slices
	lines := unsafe.Slice(&q[0].g, 2*cap(q))[:2*len(q)]
	_ = lines[:cap(lines)][len(lines)+5] // room for the assembly
	_, _, _ = agg.v[:T*T+3], agg.g[:T*T+3], agg.l[:T*T+3]
	var kv, kg, kl []float64
	if !leaf {
		kv, kg, kl = kidSum.v[:T*T+3], kidSum.g[:T*T+3], kidSum.l[:T*T+3]
		_ = d.split[splitWords(r.s.tri)-1]
	}
	aggregateRawAVX2(T, nil, nil, nil, nil, nil, 1, 1, r.p, 1-r.p, agg.v, agg.g, agg.l, kv, kg, kl, d.split, lines)
}
