package kaleido

import (
	"slices"
	"testing"
)

func TestNaturalOrder(t *testing.T) {
	labels, codes := Categorize(
		[]string{"rank-10", "rank-9", "", "PE 2", "rank-10", "PE 10", "x", "rank-09", "a1b2", "a1b10"},
		[]bool{true, true, false, true, true, true, true, true, true, true})
	want := []string{"PE 2", "PE 10", "a1b2", "a1b10", "rank-09", "rank-9", "rank-10", "x"}
	if !slices.Equal(labels, want) {
		t.Errorf("labels %q, want %q", labels, want)
	}
	if wantCodes := []int32{6, 5, None, 0, 6, 1, 7, 4, 2, 3}; !slices.Equal(codes, wantCodes) {
		t.Errorf("codes %v, want %v", codes, wantCodes)
	}
}
