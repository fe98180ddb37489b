package sparse

import (
	"strings"
	"testing"
)

// Check says what is wrong with offsets that leave the entries and come
// back (a forged or damaged model's): it never slices past them.
func TestCheckOffsetPastEntries(t *testing.T) {
	c := &Cells{Start: []int64{0, 1 << 40, 2}, State: []int32{0, 1}, Value: []float64{1, 2}}
	if err := c.Check(2, 2); err == nil || !strings.Contains(err.Error(), "past the 2 values") {
		t.Errorf("offsets %v: %v", c.Start, err)
	}
	ok := &Cells{Start: []int64{0, 1, 2}, State: []int32{0, 1}, Value: []float64{1, 2}}
	if err := ok.Check(2, 2); err != nil {
		t.Errorf("well formed: %v", err)
	}
}
