//go:build !amd64 || purego

package aggregate

// aggregateRaw is aggregateRawGeneric.
func (r *run) aggregateRaw(agg, kidSum table, st nodeStats, leaves int, d nodeDecisions, leaf bool, w *scratch) {
	r.aggregateRawGeneric(agg, kidSum, st, leaves, d, leaf, w)
}
