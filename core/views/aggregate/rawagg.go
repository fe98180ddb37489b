package aggregate

// When qualities are not cached (models too large for the cache), every
// node computes the raw measures of its intervals (intervalQualities),
// converts them to the engine's units, takes their value at p and
// compares them with its children's best (aggregateOrSplit): scalar work
// per interval as large as the cut search itself. aggregateRaw does all
// of it column by column, four intervals per instruction where assembly
// is available (rawagg_amd64.s), with the same operations in the same
// order per interval, so the same bits as aggregateRawGeneric. With
// cached qualities, aggregateCached does the second half (values at p,
// comparison with the children) the same way.

// rawTerms are what aggregateRaw computes of a node before p enters:
// the node's stats, its number of leaves and either the interval sums of
// x log2 x and of the values that the assembly takes (xl, tot) or the raw
// qualities (lines). They live in the scratch of the goroutine until its
// next node, so that two solves at different p can share them (see
// pairRun).
type rawTerms struct {
	st      nodeStats
	leaves  int
	xl, tot []float64
	lines   []line
}

// aggregateRawGeneric sets agg to the best of aggregating the node whose
// stats are st, with leaves leaves, over every interval and, for a node
// with children (kidSum not empty), splitting it into them, recording the
// splits in d: intervalQualities followed by aggregateOrSplit.
func (r *run) aggregateRawGeneric(agg, kidSum table, st nodeStats, leaves int, d nodeDecisions, leaf bool, w *scratch) {
	T := r.s.in.Slices
	raw := intervalQualities(st, T, r.s.in.States, logSizes(w.logSize, T, leaves), &w.iq)
	r.aggregateOrSplit(agg, kidSum, raw, true, leaves, d, leaf)
}
