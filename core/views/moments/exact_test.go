package moments

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// interval is a busy interval [a, b) in nanoseconds.
type interval struct{ a, b trace.Time }

// exact holds the moments of a busy function computed with rationals,
// straight from the definitions.
type exact struct {
	m0, mean, mu2, mu3 *big.Rat // ns, ns, ns², ns³
}

func ratInt(v trace.Time) *big.Rat { return new(big.Rat).SetInt64(int64(v)) }

// integral returns Σ_j ∫_{a_j}^{b_j} (t - c)^k dt exactly.
func integral(ivs []interval, c *big.Rat, k int) *big.Rat {
	sum := new(big.Rat)
	pow := func(x *big.Rat) *big.Rat {
		r := big.NewRat(1, 1)
		for range k + 1 {
			r.Mul(r, x)
		}
		return r
	}
	for _, iv := range ivs {
		x := new(big.Rat).Sub(ratInt(iv.a), c)
		y := new(big.Rat).Sub(ratInt(iv.b), c)
		sum.Add(sum, new(big.Rat).Sub(pow(y), pow(x)))
	}
	return sum.Quo(sum, big.NewRat(int64(k+1), 1))
}

func exactMoments(ivs []interval) exact {
	zero := new(big.Rat)
	m0 := integral(ivs, zero, 0)
	mean := new(big.Rat).Quo(integral(ivs, zero, 1), m0)
	mu2 := new(big.Rat).Quo(integral(ivs, mean, 2), m0)
	mu3 := new(big.Rat).Quo(integral(ivs, mean, 3), m0)
	return exact{m0, mean, mu2, mu3}
}

func ddRat(x dd) *big.Rat {
	r := new(big.Rat).SetFloat64(x.hi)
	return r.Add(r, new(big.Rat).SetFloat64(x.lo))
}

// relErr returns |got - want| / scale as a float64.
func relErr(got, want, scale *big.Rat) float64 {
	d := new(big.Rat).Sub(got, want)
	if scale.Sign() == 0 {
		f, _ := d.Float64()
		return math.Abs(f)
	}
	f, _ := d.Quo(d, scale).Float64()
	return math.Abs(f)
}

func sumsOf(ivs []interval) Sums {
	var s Sums
	for _, iv := range ivs {
		s.Add(iv.a, iv.b)
	}
	return s
}

// checkExact compares sums with the exact moments of ivs: the norm must be
// exact, the mean right to the picosecond, µ2 right to 1e-13 relative, and µ3 right to 1e-12 of
// σ³ (the skew is a small difference of large numbers when the work is
// nearly symmetric).
func checkExact(t *testing.T, name string, s Sums, ivs []interval) {
	t.Helper()
	want := exactMoments(ivs)
	if got := ratInt(s.Busy()); got.Cmp(want.m0) != 0 {
		t.Fatalf("%s: P0 = %v ns, want %v", name, got, want.m0.RatString())
	}
	mean, mu2, mu3 := s.central()
	absMean := ddRat(ddInt(int64(s.origin)).add(mean))
	if e := ratFloat(new(big.Rat).Sub(absMean, want.mean)); math.Abs(e) > 1e-3 {
		t.Errorf("%s: mean off by %.3g ns", name, e)
	}
	if e := relErr(new(big.Rat).SetFloat64(mu2), want.mu2, want.mu2); e > 1e-13 {
		t.Errorf("%s: µ2 = %g, want %g (relative error %.3g)", name, mu2, ratFloat(want.mu2), e)
	}
	sigma3 := math.Pow(ratFloat(want.mu2), 1.5)
	if e := math.Abs(mu3-ratFloat(want.mu3)) / sigma3; e > 1e-12 {
		t.Errorf("%s: µ3 = %g, want %g (error %.3g σ³)", name, mu3, ratFloat(want.mu3), e)
	}
	m := s.Moments()
	if w := ratFloat(want.m0) / 1e9; m.M0 != w {
		t.Errorf("%s: M0 = %v, want %v", name, m.M0, w)
	}
	if w := ratFloat(new(big.Rat).Quo(want.mean, big.NewRat(1e9, 1))); math.Abs(m.M1-w) > 2*ulp(w) {
		t.Errorf("%s: M1 = %v, want %v", name, m.M1, w)
	}
}

func ratFloat(r *big.Rat) float64 {
	f, _ := r.Float64()
	return f
}

func ulp(x float64) float64 { return math.Nextafter(math.Abs(x), math.Inf(1)) - math.Abs(x) }

// randomGantt draws n disjoint busy intervals after base, with lengths and
// gaps up to maxLen nanoseconds.
func randomGantt(rng *rand.Rand, base trace.Time, n int, maxLen int64) []interval {
	ivs := make([]interval, 0, n)
	t := base + trace.Time(rng.Int64N(maxLen))
	for range n {
		l := trace.Time(1 + rng.Int64N(maxLen))
		ivs = append(ivs, interval{t, t + l})
		t += l + trace.Time(rng.Int64N(maxLen))
	}
	return ivs
}
