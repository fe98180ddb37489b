//go:build !amd64 || purego

package aggregate

func columnBest(v, g, l []float64, T int, av, ag, al, top []float64, pos []int, skip []bool) {
	columnBestGeneric(v, g, l, T, av, ag, al, top, pos, skip)
}

// columnBestComposed is columnBest with no row skipped, followed by
// composeColumn; it reports whether every row was composed.
func columnBestComposed(v, g, l []float64, T int, av, ag, al, top []float64, pos []int, cut []byte) bool {
	columnBestGeneric(v, g, l, T, av, ag, al, top, pos, nil)
	return composeColumn(v, g, l, T, len(top)-1, av, ag, al, pos, cut)
}
