//go:build amd64 && !purego

package aggregate

// addSixteens is sumToGeneric in AVX2 assembly, for the first
// len(b)&^15 values.
//
//go:noescape
func addSixteens(dst, a, b []float64)

// sumTo sets dst[k] to a[k] + b[k] for every k of b; dst may be a.
func sumTo(dst, a, b []float64) {
	dst, a = dst[:len(b)], a[:len(b)]
	if n := len(b) &^ 15; hasAVX2 && n > 0 {
		addSixteens(dst[:n], a[:n], b[:n])
		dst, a, b = dst[n:], a[n:], b[n:]
	}
	sumToGeneric(dst, a, b)
}

// intervalSumsAVX2 is intervalSumsGeneric in AVX2 assembly.
//
//go:noescape
func intervalSumsAVX2(sums, v []float64, stride, T int)

// intervalSums is intervalSumsGeneric; sums must hold T*(T+1)/2 values
// and v (T-1)*stride+1.
func intervalSums(sums, v []float64, stride, T int) {
	if T <= 0 {
		return
	}
	_, _ = sums[T*(T+1)/2-1], v[(T-1)*stride] // bounds, checked here for the assembly
	if hasAVX2 {
		intervalSumsAVX2(sums, v, stride, T)
		return
	}
	intervalSumsGeneric(sums, v, stride, T)
}
