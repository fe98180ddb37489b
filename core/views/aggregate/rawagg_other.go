//go:build !amd64 || purego

package aggregate

// aggregateRaw is aggregateRawGeneric.
func (r *run) aggregateRaw(agg, kidSum table, st nodeStats, leaves int, d nodeDecisions, leaf bool, w *scratch) {
	r.aggregateRawGeneric(agg, kidSum, st, leaves, d, leaf, w)
}

// rawTerms computes the raw qualities of aggregateRawGeneric, which do not
// depend on p, in w.
func (s *Spatiotemporal) rawTerms(st nodeStats, leaves int, w *scratch) rawTerms {
	T := s.in.Slices
	return rawTerms{leaves: leaves, lines: intervalQualities(st, T, s.in.States, logSizes(w.logSize, T, leaves), &w.iq)}
}

// aggregateTerms is the rest of aggregateRawGeneric, at r.p, given the
// node's terms t (rawTerms, still in w).
func (r *run) aggregateTerms(agg, kidSum table, t rawTerms, d nodeDecisions, leaf bool, w *scratch) {
	r.aggregateOrSplit(agg, kidSum, t.lines, true, t.leaves, d, leaf)
}

// aggregateCached is aggregateOrSplit for cached qualities q.
func (r *run) aggregateCached(agg, kidSum table, q []line, d nodeDecisions, leaf bool) {
	r.aggregateOrSplit(agg, kidSum, q, false, 0, d, leaf)
}
