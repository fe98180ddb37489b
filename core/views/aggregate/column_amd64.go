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
// When cut is not nil, every row with a winner gets its optimum instead,
// best(i,j) at j*T+i, composed as columnComposeGeneric composes it, and
// its cut[i] (pos[i] is then set only for the rows resolved by the whole
// rule); best(i,j) is also written, as junk, for up to 3 rows past j.
//
// Columns j+1, ..., last are searched next in the same call, av, ag, al
// and cut moved on to each as in a node's tables and cut block (and pos,
// whose capacity must hold them, longer by one), until a column has a row
// with no winner (pos[i] = -1): done is the number of columns before it.
//
//go:noescape
func columnSearchAVX2(v, g, l []float64, T int, av, ag, al []float64, pos []int, skip []bool, cut []byte, last int) (done int)

// columnSearchLexAVX2 is columnSearchAVX2 composing (cut is not nil, skip
// is nil) for tables whose values are minus their losses (p = 0): the
// search of columnSearchLexGeneric, in one pass, where a row goes through
// its candidates again one by one only when a NaN is involved.
//
//go:noescape
func columnSearchLexAVX2(v, g, l []float64, T int, av, ag, al []float64, pos []int, skip []bool, cut []byte, last int) (done int)

// columnSearchAVX512 is columnSearchAVX2 in AVX-512 assembly, eight rows
// per instruction, reading and writing no more than it.
//
//go:noescape
func columnSearchAVX512(v, g, l []float64, T int, av, ag, al []float64, pos []int, skip []bool, cut []byte, last int) (done int)

// columnSearchLexAVX512 is columnSearchLexAVX2 in AVX-512 assembly,
// eight rows per instruction, reading no more than columnSearchAVX512.
//
//go:noescape
func columnSearchLexAVX512(v, g, l []float64, T int, av, ag, al []float64, pos []int, skip []bool, cut []byte, last int) (done int)

// columnSearch sets pos as columnSearchGeneric does, for the rows skip
// does not mark (skip may be nil).
func columnSearch(v, g, l []float64, T int, av, ag, al []float64, pos []int, skip []bool) {
	switch {
	case hasAVX512:
		columnSearchAVX512(v, g, l, T, av, ag, al, pos, skip, nil, len(pos)-1)
	case hasAVX2:
		columnSearchAVX2(v, g, l, T, av, ag, al, pos, skip, nil, len(pos)-1)
	default:
		columnSearchGeneric(v, g, l, T, av, ag, al, pos, skip)
	}
}

// columnsBestComposed is columnSearch with no row skipped, followed by
// the optimum and cut of every row (in the same pass over the rows where
// AVX2 is available), for the columns j0, ..., last of a node's tables,
// agg and best, in one call: pos holds last+1 values and cut is the node's
// cut block (triangular index). It returns the number of columns composed,
// from j0; the column after them, if any, has a row with no winner (NaN
// qualities), left to the general loop of bestIntervals.
//
// With lex, the tables' values are minus their losses (p = 0), and the
// search is columnSearchLexGeneric's, in one pass (columnSearchLexAVX2, or
// columnSearchLexAVX512).
func columnsBestComposed(best, agg table, T, j0, last int, pos []int, cut []byte, lex bool) int {
	if !hasAVX2 {
		return columnsComposeGeneric(best, agg, T, j0, last, pos, cut, lex)
	}
	_, _ = pos[last], cut[triIndex(last, last)]
	_, _, _ = best.v[:T*T+3], best.g[:T*T+3], best.l[:T*T+3] // junk rows past the last column's
	_, _, _ = agg.v[:T*T+3], agg.g[:T*T+3], agg.l[:T*T+3]    // room for the last column's vectors
	at, c := j0*T, triIndex(0, j0)
	if lex {
		search := columnSearchLexAVX2
		if hasAVX512 {
			search = columnSearchLexAVX512
		}
		return search(best.v, best.g, best.l, T, agg.v[at:at+j0+1], agg.g[at:at+j0+1], agg.l[at:at+j0+1],
			pos[:j0+1], nil, cut[c:c+j0+1], last)
	}
	search := columnSearchAVX2
	if hasAVX512 {
		search = columnSearchAVX512
	}
	return search(best.v, best.g, best.l, T, agg.v[at:at+j0+1], agg.g[at:at+j0+1], agg.l[at:at+j0+1],
		pos[:j0+1], nil, cut[c:c+j0+1], last)
}
