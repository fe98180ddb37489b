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
