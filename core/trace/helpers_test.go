package trace

import (
	"strconv"
	"testing"
)

func mustFloat(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("ParseTime accepted %q, which is not a float: %v", s, err)
	}
	return f
}
