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
// numbers.
func xlogAccumulate(sums, totals, xl []float64, first bool) {
	totals, xl = totals[:len(sums)], xl[:len(sums)]
	for hasAVX512 && len(sums) >= 8 {
		octs := len(sums) &^ 7
		n := xlogAccOcts(sums[:octs], totals[:octs], xl[:octs], first)
		if n < octs { // a subnormal in the next oct
			xlogAccumulateGeneric(sums[n:n+8], totals[n:n+8], xl[n:n+8], first)
			n += 8
		}
		sums, totals, xl = sums[n:], totals[n:], xl[n:]
	}
	for hasAVX2 && len(sums) >= 4 {
		quads := len(sums) &^ 3
		n := xlogAccQuads(sums[:quads], totals[:quads], xl[:quads], first)
		if n < quads { // a subnormal in the next quad
			xlogAccumulateGeneric(sums[n:n+4], totals[n:n+4], xl[n:n+4], first)
			n += 4
		}
		sums, totals, xl = sums[n:], totals[n:], xl[n:]
	}
	for len(sums) >= 2 {
		even := len(sums) &^ 1
		n := xlogAccPairs(sums[:even], totals[:even], xl[:even], first)
		if n < even { // a subnormal in the next pair
			xlogAccumulateGeneric(sums[n:n+2], totals[n:n+2], xl[n:n+2], first)
			n += 2
		}
		sums, totals, xl = sums[n:], totals[n:], xl[n:]
	}
	xlogAccumulateGeneric(sums, totals, xl, first)
}
