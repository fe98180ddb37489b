//go:build !amd64 || purego

package aggregate

// aggregateRaw is aggregateRawGeneric.
func (r *run) aggregateRaw(agg, kidSum table, st nodeStats, leaves int, d nodeDecisions, leaf bool, w *scratch) {
	r.aggregateRawGeneric(agg, kidSum, st, leaves, d, leaf, w)
}

// aggregateCached is aggregateOrSplit for cached qualities q.
func (r *run) aggregateCached(agg, kidSum table, q []line, d nodeDecisions, leaf bool) {
	r.aggregateOrSplit(agg, kidSum, q, false, 0, d, leaf)
}
