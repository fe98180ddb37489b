package nesting

import (
	"slices"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// BenchmarkTracker places a million slices of one thread, sorted, and
// walks them in the order of completion.
func BenchmarkTracker(b *testing.B) {
	in := readertest.CallStacks(1<<20, 1)
	slices.SortStableFunc(in, func(a, b readertest.Slice) int { return Compare(a.Start, a.End, b.Start, b.End) })
	t := Tracker{KeepCompletion: true}
	for b.Loop() {
		t.Reset()
		t.Grow(len(in))
		for _, s := range in {
			if _, ok := t.Place(s.Start, s.End); !ok {
				b.Fatal("too many lanes")
			}
		}
		var sum trace.Time
		for lane := range t.Lanes() {
			for _, i := range t.Completed(lane) {
				sum += in[i].End
			}
		}
		if sum == 0 {
			b.Fatal("nothing completed")
		}
	}
}
