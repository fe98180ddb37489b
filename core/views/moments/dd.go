package moments

import "math"

// dd is a double-double number hi + lo with |lo| <= ulp(hi)/2, about 106
// bits of significand. Power sums of busy intervals need it: the third
// central moment comes out of raw sums by cancellation, so every bit lost
// while summing cubes of large offsets shows up in the skew.
//
// The operations are the classic error-free transformations (Dekker,
// Knuth) with fused multiply-add for exact products.
type dd struct{ hi, lo float64 }

// twoSum returns s = fl(a+b) and the exact rounding error e: a+b = s+e.
func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	e = (a - (s - bb)) + (b - bb)
	return
}

// quickTwoSum is twoSum for |a| >= |b|.
func quickTwoSum(a, b float64) (s, e float64) {
	s = a + b
	e = b - (s - a)
	return
}

// twoProd returns p = fl(a*b) and the exact rounding error e: a*b = p+e.
func twoProd(a, b float64) (p, e float64) {
	p = a * b
	e = math.FMA(a, b, -p)
	return
}

// ddInt converts an int64 exactly: its low 11 bits go to lo, the rest,
// which has at most 52 significant bits, to hi.
func ddInt(v int64) dd {
	lo := v & 0x7ff
	hi, e := twoSum(float64(v-lo), float64(lo))
	return dd{hi, e}
}

func ddFloat(f float64) dd { return dd{f, 0} }

func (a dd) add(b dd) dd {
	s, e := twoSum(a.hi, b.hi)
	t, f := twoSum(a.lo, b.lo)
	e += t
	s, e = quickTwoSum(s, e)
	e += f
	s, e = quickTwoSum(s, e)
	return dd{s, e}
}

func (a dd) neg() dd { return dd{-a.hi, -a.lo} }

func (a dd) sub(b dd) dd { return a.add(b.neg()) }

func (a dd) mul(b dd) dd {
	p, e := twoProd(a.hi, b.hi)
	e += a.hi*b.lo + a.lo*b.hi
	p, e = quickTwoSum(p, e)
	return dd{p, e}
}

// scale multiplies by a float64 (exactly when f is a power of two).
func (a dd) scale(f float64) dd {
	p, e := twoProd(a.hi, f)
	e += a.lo * f
	p, e = quickTwoSum(p, e)
	return dd{p, e}
}

func (a dd) div(b dd) dd {
	q1 := a.hi / b.hi
	r := a.sub(b.scale(q1))
	q2 := r.hi / b.hi
	r = r.sub(b.scale(q2))
	q3 := r.hi / b.hi
	s, e := quickTwoSum(q1, q2)
	return dd{s, e}.add(dd{q3, 0})
}

func (a dd) float() float64 { return a.hi + a.lo }

func (a dd) isZero() bool { return a.hi == 0 && a.lo == 0 }
