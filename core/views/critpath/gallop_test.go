package critpath

import "testing"

// TestGallop: on every range of up to 40 with every boundary and hint
// (inside, below and above the range), gallop gives the least index past
// the boundary, as a scan from the range's start does.
func TestGallop(t *testing.T) {
	for from := int32(0); from < 3; from++ {
		for end := from; end < from+40; end++ {
			for first := from; first <= end; first++ {
				past := func(i int32) bool { return i >= first }
				for hint := from - 2; hint <= end+2; hint++ {
					if got := gallop(from, end, hint, past); got != first {
						t.Fatalf("[%d, %d], first past %d, hint %d: %d", from, end, first, hint, got)
					}
				}
			}
		}
	}
}
