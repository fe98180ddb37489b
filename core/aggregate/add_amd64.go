//go:build amd64 && !purego

package aggregate

// addSixteens is addToGeneric in AVX2 assembly, for the first
// len(src)&^15 values.
//
//go:noescape
func addSixteens(dst, src []float64)

// addTo adds src[k] to dst[k] for every k of src.
func addTo(dst, src []float64) {
	dst = dst[:len(src)]
	if n := len(src) &^ 15; hasAVX2 && n > 0 {
		addSixteens(dst[:n], src[:n])
		dst, src = dst[n:], src[n:]
	}
	addToGeneric(dst, src)
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
