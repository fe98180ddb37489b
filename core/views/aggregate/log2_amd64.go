//go:build amd64 && !purego

package aggregate

// xlog2xPairs is xlog2xToGeneric in SSE2 assembly, for an even number of
// elements that are not negative: the same operations on two elements at
// a time, so the same bits. It stops before the first pair holding a
// subnormal number, and returns the number of elements done.
//
//go:noescape
func xlog2xPairs(dst, src []float64) int

// xlog2xTo sets dst[k] to xlog2x(src[k]) for every k; src must not hold
// negative numbers. dst may be src.
func xlog2xTo(dst, src []float64) {
	dst = dst[:len(src)]
	if hasAVX2 {
		// The four-lane kernel, with dst as both its totals and its xl:
		// xl is written last, as 0 + x log2 x, which is x log2 x (no
		// x log2 x is -0).
		xlogAccumulate(src, dst, dst, true)
		return
	}
	for len(src) >= 2 {
		even := len(src) &^ 1
		n := xlog2xPairs(dst[:even], src[:even])
		if n < even { // a subnormal in the next pair
			dst[n], dst[n+1] = xlog2x(src[n]), xlog2x(src[n+1])
			n += 2
		}
		dst, src = dst[n:], src[n:]
	}
	if len(src) == 1 {
		dst[0] = xlog2x(src[0])
	}
}

// xlogAccPairs is xlogAccumulateGeneric in SSE2 assembly, for an even
// number of sums that are not negative, stopping before the first pair
// holding a subnormal number; it returns the number of sums done.
//
//go:noescape
func xlogAccPairs(sums, totals, xl []float64, first bool) int

// xlogAccQuads is xlogAccPairs in AVX2 assembly, four sums at a time,
// for a multiple of 4 sums.
//
//go:noescape
func xlogAccQuads(sums, totals, xl []float64, first bool) int

// xlogAccOcts is xlogAccQuads in AVX-512 assembly, eight sums at a time,
// for a multiple of 8 sums.
//
//go:noescape
func xlogAccOcts(sums, totals, xl []float64, first bool) int

// xlogAccumulate is xlogAccumulateGeneric; sums must not hold negative
// numbers. The widest kernel the processor has takes as many sums as it
// can, the narrower ones the rest.
func xlogAccumulate(sums, totals, xl []float64, first bool) {
	totals, xl = totals[:len(sums)], xl[:len(sums)]
	if hasAVX512 {
		sums, totals, xl = xlogAccBy(8, xlogAccOcts, sums, totals, xl, first)
	}
	if hasAVX2 {
		sums, totals, xl = xlogAccBy(4, xlogAccQuads, sums, totals, xl, first)
	}
	sums, totals, xl = xlogAccBy(2, xlogAccPairs, sums, totals, xl, first)
	xlogAccumulateGeneric(sums, totals, xl, first)
}

// xlogAccBy runs kernel, which takes a multiple of width sums and stops
// before the first group of width holding a subnormal number, over sums:
// such a group goes through xlogAccumulateGeneric. It returns the last
// len(sums) % width sums, totals and xl, left to a narrower kernel.
func xlogAccBy(width int, kernel func(sums, totals, xl []float64, first bool) int, sums, totals, xl []float64, first bool) ([]float64, []float64, []float64) {
	for len(sums) >= width {
		whole := len(sums) - len(sums)%width
		n := kernel(sums[:whole], totals[:whole], xl[:whole], first)
		if n < whole { // a subnormal in the next group
			xlogAccumulateGeneric(sums[n:n+width], totals[n:n+width], xl[n:n+width], first)
			n += width
		}
		sums, totals, xl = sums[n:], totals[n:], xl[n:]
	}
	return sums, totals, xl
}
