//go:build amd64 && !purego

package aggregate

// columnSearchAVX2 is columnSearchGeneric in AVX2 assembly, four rows per
// instruction. v, g and l are a table (T*T values, by column), av, ag and
// al column j of agg (j = len(pos)-1); v and av are read in whole vectors,
// up to 3 values past a column (newTable leaves room after v), and the
// lanes past the rows wanted are ignored. A block of four rows that skip
// marks entirely is not searched (skip may be nil); the other rows of skip
// are searched anyway, and their pos is to be ignored. It returns the
// number of rows with no winner (pos[i] = -1).
//
// When cut is not nil, every row with a winner gets its optimum instead,
// best(i,j) at j*T+i, composed as columnComposeGeneric composes it, and
// its cut[i] (pos[i] is then set only for the rows resolved by the whole
// rule); best(i,j) is also written, as junk, for up to 3 rows past j.
//
//go:noescape
func columnSearchAVX2(v, g, l []float64, T int, av, ag, al []float64, pos []int, skip []bool, cut []byte) (left int)

// columnSearch sets pos as columnSearchGeneric does, for the rows skip
// does not mark (skip may be nil).
func columnSearch(v, g, l []float64, T int, av, ag, al []float64, pos []int, skip []bool) {
	if hasAVX2 {
		columnSearchAVX2(v, g, l, T, av, ag, al, pos, skip, nil)
	} else {
		columnSearchGeneric(v, g, l, T, av, ag, al, pos, skip)
	}
}

// columnBestComposed is columnSearch with no row skipped, followed by the
// optimum and cut of every row (in the same pass over the rows where AVX2
// is available); it reports whether every row was composed, false if a
// row has no winner (NaN qualities), which the general loop of
// bestIntervals handles. cut must hold len(pos) bytes.
func columnBestComposed(v, g, l []float64, T int, av, ag, al []float64, pos []int, cut []byte) bool {
	if !hasAVX2 {
		return columnComposeGeneric(v, g, l, T, av, ag, al, pos, cut)
	}
	_ = cut[len(pos)-1]
	return columnSearchAVX2(v, g, l, T, av, ag, al, pos, nil, cut) == 0
}
