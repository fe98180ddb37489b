//go:build !amd64 || purego

package aggregate

func columnBest(v, g, l []float64, T int, av, ag, al, top []float64, pos []int, skip []bool) {
	columnBestGeneric(v, g, l, T, av, ag, al, top, pos, skip)
}
