//go:build amd64 && !purego

package aggregate

// columnBestSSE2 is columnBestGeneric in SSE2 assembly (two values per
// instruction), columnBestAVX2 in AVX2 (four). v, g and l must hold the
// first j+1 rows of T values; av, ag and al at least j+1 values; pos as
// many as top. columnBestAVX2 reads whole vectors, up to 3 values past a
// row (from the next row, or past the end of v and av: newTable leaves
// room), and ignores them.
//
//go:noescape
func columnBestSSE2(v, g, l []float64, T int, av, ag, al, top []float64, pos []int, skip []bool)

// columnBestAVX2 also composes the optimum of each row into v, g, l and
// cut when cut is not nil (see columnBestComposed).
//
//go:noescape
func columnBestAVX2(v, g, l []float64, T int, av, ag, al, top []float64, pos []int, skip []bool, cut []byte)

func columnBest(v, g, l []float64, T int, av, ag, al, top []float64, pos []int, skip []bool) {
	if hasAVX2 {
		columnBestAVX2(v, g, l, T, av, ag, al, top, pos, skip, nil)
	} else {
		columnBestSSE2(v, g, l, T, av, ag, al, top, pos, skip)
	}
}

// columnBestComposed is columnBest with no row skipped, followed by
// composeColumn (in the same pass over the rows where assembly is
// available); it reports whether every row was composed (see
// composeColumn). cut must hold len(top) bytes.
func columnBestComposed(v, g, l []float64, T int, av, ag, al, top []float64, pos []int, cut []byte) bool {
	if !hasAVX2 {
		columnBestSSE2(v, g, l, T, av, ag, al, top, pos, nil)
		return composeColumn(v, g, l, T, len(top)-1, av, ag, al, pos, cut)
	}
	_ = cut[len(top)-1]
	columnBestAVX2(v, g, l, T, av, ag, al, top, pos, nil, cut)
	for _, c := range pos {
		if c < 0 {
			return false
		}
	}
	return true
}
