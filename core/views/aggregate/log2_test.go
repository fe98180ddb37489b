package aggregate

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestLog2MatchesMath(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	check := func(x float64) {
		got, want := log2(x), math.Log2(x)
		// Within 4 ulp of the result, or 4 ulp of 1 where the result is
		// near 0 (cancellation between the exponent and the mantissa).
		tol := 4 * math.Max(math.Abs(want), 1) * 0x1p-52
		if math.Abs(got-want) > tol {
			t.Fatalf("log2(%v) = %v, math.Log2 gives %v", x, got, want)
		}
	}
	for _, x := range []float64{1, 2, 0.5, 3, 1e-300, 5e-324, math.MaxFloat64, 1 + 0x1p-52, 1 - 0x1p-53, 0.1, 10} {
		check(x)
	}
	for i := 0; i < 1_000_000; i++ {
		check(math.Ldexp(1+rng.Float64(), rng.IntN(2000)-1000))
		check(rng.Float64())
	}
	for k := -1074; k <= 1023; k++ {
		if got := log2(math.Ldexp(1, k)); got != float64(k) {
			t.Fatalf("log2(2^%d) = %v", k, got)
		}
	}
}

func BenchmarkLog2(b *testing.B) {
	x, s := 0.37, 0.0
	for i := 0; i < b.N; i++ {
		s += log2(x)
		x += 1e-9
	}
	_ = s
}

func BenchmarkMathLog2(b *testing.B) {
	x, s := 0.37, 0.0
	for i := 0; i < b.N; i++ {
		s += math.Log2(x)
		x += 1e-9
	}
	_ = s
}

// BenchmarkXlogAccumulate measures the kernel of the interval qualities:
// the sums of one state over every interval of 30 slices (465 of them),
// added up with their x log2 x.
func BenchmarkXlogAccumulate(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	sums := make([]float64, 465)
	for i := range sums {
		sums[i] = rng.Float64() * 1e3
	}
	totals, xl := make([]float64, len(sums)), make([]float64, len(sums))
	b.SetBytes(int64(len(sums) * 8))
	for i := 0; i < b.N; i++ {
		xlogAccumulate(sums, totals, xl, i%4 == 0)
	}
}
