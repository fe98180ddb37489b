package readertest

import (
	"math/rand/v2"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Slice is a complete slice: an interval with a start and an end.
type Slice struct {
	Start, End trace.Time
}

// CallStacks returns n complete slices of one synthetic thread, in the
// order they complete, as a profiler writes them: calls nested up to 12
// deep, some of them zero-length, some starting or ending with their
// parent, and one slice in 50 starting inside the previous call and
// ending after it, so that it cannot nest (the odd overlapping kernel or
// asynchronous range that needs an overlap lane). The same n and seed
// give the same slices; benchmarks of the readers' nesting use them.
func CallStacks(n int, seed uint64) []Slice {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	out := make([]Slice, 0, n)
	var open []trace.Time // starts of the open calls, outermost first
	now := trace.Time(0)
	for len(out) < n {
		switch r := rng.IntN(100); {
		case len(open) < 12 && (len(open) == 0 || r < 48):
			if rng.IntN(4) != 0 { // else it starts with its parent
				now += trace.Time(1 + rng.IntN(1000))
			}
			open = append(open, now)
		default:
			if rng.IntN(8) != 0 { // else it ends with its last child
				now += trace.Time(rng.IntN(1000))
			}
			start := open[len(open)-1]
			open = open[:len(open)-1]
			out = append(out, Slice{start, now})
			if rng.IntN(50) == 0 && len(out) < n && now > start {
				from := start + trace.Time(rng.Int64N(int64(now-start)))
				out = append(out, Slice{from, now + trace.Time(1+rng.IntN(2000))})
			}
		}
	}
	return out
}
