//go:build amd64 && !purego

package aggregate

// columnSearchAVX2 is columnSearchGeneric in AVX2 assembly, four rows per
// instruction. v, g and l are a table (T*T values, by column), av, ag and
// al column j of agg (j = len(pos)-1); v and av are read in whole vectors,
// up to 3 values past a column (newTable leaves room after v), and the
// lanes past the rows wanted are ignored. A block of four rows that skip
// marks entirely is not searched (skip may be nil); the other rows of skip
// are searched anyway, and their pos is to be ignored.
//
// When cut is not nil, every row with a winner (pos[i] >= 0) also gets
// its optimum, composed as composeRow composes it, and cut[i] = pos[i];
// g, l, ag and al are only read then.
//
//go:noescape
func columnSearchAVX2(v, g, l []float64, T int, av, ag, al []float64, pos []int, skip []bool, cut []byte)

// columnSearch sets pos as columnSearchGeneric does, for the rows skip
// does not mark (skip may be nil).
func columnSearch(v []float64, T int, av []float64, pos []int, skip []bool) {
	if hasAVX2 {
		columnSearchAVX2(v, nil, nil, T, av, nil, nil, pos, skip, nil)
	} else {
		columnSearchGeneric(v, T, av, pos, skip)
	}
}

// columnBestComposed is columnSearch with no row skipped, followed by the
// optimum and cut of every row (in the same pass over the rows, for those
// with a single winner, where AVX2 is available); it reports whether
// every row was composed (see columnComposeGeneric). cut must hold
// len(pos) bytes.
func columnBestComposed(v, g, l []float64, T int, av, ag, al []float64, pos []int, cut []byte) bool {
	if !hasAVX2 {
		return columnComposeGeneric(v, g, l, T, av, ag, al, pos, cut)
	}
	_ = cut[len(pos)-1]
	columnSearchAVX2(v, g, l, T, av, ag, al, pos, nil, cut)
	return resolveColumn(v, g, l, T, av, ag, al, pos, cut, false)
}
