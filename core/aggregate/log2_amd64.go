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
