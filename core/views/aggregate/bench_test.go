package aggregate

import "testing"

// BenchmarkSolve1000x100 solves the spatiotemporal optimum of lpaggreg's
// synthetic model with 1,000 leaves (fan-out 10, depth 3) x 100 slices x
// 4 states, the size lpaggreg was measured at: 69 s + 27 s on this machine class.
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

// BenchmarkSignificant32x100 sweeps every distinct optimal partition of a
// 32-leaf binary hierarchy (depth 5) x 100 slices x 4 states.
func BenchmarkSignificant32x100(b *testing.B) {
	in := lcgModel(2, 5, 100)
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

// The sizes lpaggreg was measured at (one thread), on the
// same synthetic model: fan-out, depth (leaves = fan-out^depth) and slices.
var referenceSizes = []struct {
	name                  string
	fanout, depth, slices int
}{
	{"900x30", 30, 2, 30},    // lpaggreg 1.9 s + 0.9 s
	{"1000x100", 10, 3, 100}, // lpaggreg 69.0 s + 27.3 s, 2.66 GB
	{"10000x30", 10, 4, 30},  // lpaggreg 594 s + 138 s, 2.36 GB
}

// BenchmarkReferenceOptimum computes qualities and one optimum (p = 0.5,
// normalised) from the model, as the reference measurement did.
func BenchmarkReferenceOptimum(b *testing.B) {
	for _, size := range referenceSizes {
		in := lcgModel(size.fanout, size.depth, size.slices)
		b.Run(size.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				st, err := NewSpatiotemporal(in, Options{Normalize: true})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := st.Solve(0.5); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReferenceSweep finds the significant p values of the sizes the
// reference swept with its dichotomy (threshold 0.001): 64 leaves (151
// partitions in 3,627 s as shipped), 100 leaves (176 in 37.9 s) and 900
// leaves (426 in 740 s), all x 30 slices. "exact" lists every distinct
// optimal partition; "exact-1e-3" and "dichotomy-1e-3" use the threshold;
// "compact" is "exact" without the parts, followed and cancelable.
func BenchmarkReferenceSweep(b *testing.B) {
	for _, size := range []struct {
		name          string
		fanout, depth int
	}{{"64x30", 4, 3}, {"100x30", 10, 2}, {"900x30", 30, 2}} {
		in := lcgModel(size.fanout, size.depth, 30)
		for _, method := range []string{"exact", "exact-1e-3", "dichotomy-1e-3", "compact"} {
			b.Run(size.name+"/"+method, func(b *testing.B) {
				st, err := NewSpatiotemporal(in, Options{Normalize: true})
				if err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					var levels []Level
					switch method {
					case "exact":
						levels, err = SignificantExact(st, 0)
					case "exact-1e-3":
						levels, err = SignificantExact(st, 1e-3)
					case "compact": // as Python's significant_p(threshold=0) runs it
						levels, err = SignificantCompactControl(st, 0, &Control{Cancel: make(chan struct{}), Progress: func(int, float64) {}})
					default:
						levels, err = SignificantDichotomy(st, 1e-3)
					}
					if err != nil {
						b.Fatal(err)
					}
					b.ReportMetric(float64(len(levels)), "partitions")
				}
			})
		}
	}
}

// BenchmarkSolveZero1000x100 solves the model of BenchmarkSolve1000x100 at
// p = 0 with lpaggreg's tie rule, where most candidates tie: with the
// one-pass search (lex) and with the general search and its re-pass.
func BenchmarkSolveZero1000x100(b *testing.B) {
	in := lcgModel(10, 3, 100)
	st, err := NewSpatiotemporal(in, Options{Normalize: true, Ties: TiesLpaggreg})
	if err != nil {
		b.Fatal(err)
	}
	for _, general := range []bool{false, true} {
		name := "lex"
		if general {
			name = "general"
		}
		b.Run(name, func(b *testing.B) {
			noLex = general
			defer func() { noLex = false }()
			for i := 0; i < b.N; i++ {
				if _, err := st.Solve(0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
