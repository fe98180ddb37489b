//go:build !amd64 || purego

package aggregate

// xlog2xTo sets dst[k] to xlog2x(src[k]) for every k.
func xlog2xTo(dst, src []float64) { xlog2xToGeneric(dst, src) }
