//go:build !amd64 || purego

package aggregate

func columnSearch(v, g, l []float64, T int, av, ag, al []float64, pos []int, skip []bool) {
	columnSearchGeneric(v, g, l, T, av, ag, al, pos, skip)
}

// columnsBestComposed is columnSearch with no row skipped, followed by
// the optimum and cut of every row, for the columns j0, ..., last (see
// columnsComposeGeneric; lex at p = 0, see columnSearchLexGeneric).
func columnsBestComposed(best, agg table, T, j0, last int, pos []int, cut []byte, lex bool) int {
	return columnsComposeGeneric(best, agg, T, j0, last, pos, cut, lex)
}
