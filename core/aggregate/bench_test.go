package aggregate

import "testing"

// BenchmarkSolve1000x100 solves the spatiotemporal optimum of lpaggreg's
// synthetic model with 1,000 leaves (fan-out 10, depth 3) x 100 slices x
// 4 states, the size REFERENCE section 11 reports lpaggreg at 69 s + 27 s.
func BenchmarkSolve1000x100(b *testing.B) {
	in := lcgModel(10, 3, 100)
	st, err := NewSpatiotemporal(in, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := st.Solve(0.5); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkQualities1000x100 measures the p-independent part: the gain
// and loss of every (node, interval).
func BenchmarkQualities1000x100(b *testing.B) {
	in := lcgModel(10, 3, 100)
	for i := 0; i < b.N; i++ {
		if _, err := NewSpatiotemporal(in, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSignificant64 sweeps every significant p of the 64-leaf test
// vector (lpaggreg's dichotomy: 3,627 s for 151 partitions).
func BenchmarkSignificant64(b *testing.B) {
	in := lcgModel(4, 3, 30)
	st, err := NewSpatiotemporal(in, Options{Normalize: true})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		levels, err := SignificantExact(st, 0)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(levels)), "partitions")
	}
}
