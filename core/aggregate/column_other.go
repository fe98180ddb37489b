//go:build !amd64 || purego

package aggregate

func columnSearch(v, g, l []float64, T int, av, ag, al []float64, pos []int, skip []bool) {
	columnSearchGeneric(v, g, l, T, av, ag, al, pos, skip)
}

// columnBestComposed is columnSearch with no row skipped, followed by the
// optimum and cut of every row; it reports whether it composed them (see
// columnComposeGeneric).
func columnBestComposed(v, g, l []float64, T int, av, ag, al []float64, pos []int, cut []byte) bool {
	return columnComposeGeneric(v, g, l, T, av, ag, al, pos, cut)
}

// columnsBestComposed is columnBestComposed for the columns j0, j0+1, ...
// (see columnsComposeGeneric).
func columnsBestComposed(best, agg table, T, j0 int, pos []int, cut []byte) int {
	return columnsComposeGeneric(best, agg, T, j0, pos, cut)
}
