//go:build !linux

package aggregate

// Elsewhere the decisions stay on the Go heap.

var mapMin = 1 << 20

func mapBytes(n int) ([]byte, bool) { return nil, false }

func releaseBytes(b []byte) {}

func unmapBytes(b []byte) {}
