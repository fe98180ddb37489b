//go:build !amd64 || purego

package aggregate

// addTo adds src[k] to dst[k] for every k of src.
func addTo(dst, src []float64) { addToGeneric(dst, src) }

// intervalSums is intervalSumsGeneric.
func intervalSums(sums, v []float64, stride, T int) { intervalSumsGeneric(sums, v, stride, T) }
