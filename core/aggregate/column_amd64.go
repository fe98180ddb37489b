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

//go:noescape
func columnBestAVX2(v, g, l []float64, T int, av, ag, al, top []float64, pos []int, skip []bool)

func columnBest(v, g, l []float64, T int, av, ag, al, top []float64, pos []int, skip []bool) {
	if hasAVX2 {
		columnBestAVX2(v, g, l, T, av, ag, al, top, pos, skip)
	} else {
		columnBestSSE2(v, g, l, T, av, ag, al, top, pos, skip)
	}
}
