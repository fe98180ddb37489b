//go:build !amd64 || purego

package aggregate

// sumTo sets dst[k] to a[k] + b[k] for every k of b; dst may be a.
func sumTo(dst, a, b []float64) { sumToGeneric(dst, a, b) }

// intervalSums is intervalSumsGeneric.
func intervalSums(sums, v []float64, stride, T int) { intervalSumsGeneric(sums, v, stride, T) }
