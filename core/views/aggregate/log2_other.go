//go:build !amd64 || purego

package aggregate

// xlog2xTo sets dst[k] to xlog2x(src[k]) for every k.
func xlog2xTo(dst, src []float64) { xlog2xToGeneric(dst, src) }

// xlogAccumulate is xlogAccumulateGeneric.
func xlogAccumulate(sums, totals, xl []float64, first bool) {
	xlogAccumulateGeneric(sums, totals, xl, first)
}
