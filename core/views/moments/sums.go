// Package moments computes the moments of utilization of Godin, Quinn and
// Pancake: four numbers per resource that sketch the shape of its busy
// function g(t) (1 while busy, 0 while idle) the way a norm, a mean, a
// deviation and a skew sketch a distribution.
//
//	m0 = ∫ g                       norm: total busy time
//	m1 = (1/m0) ∫ t g              mean: when the work happened
//	m2 = sqrt(3 µ2)                scaled deviation, µk = (1/m0) ∫ (t-m1)^k g
//	m3 = 3 cbrt(µ3)                scaled skew, signed
//
// The scaling makes one unbroken busy bar of length L have m2 = L/2, so
// m1 ± m2 spans exactly that bar; any idle gap inside the busy period
// makes 2 m2 > m0. The skew is positive when the bulk of the work lies
// before m1 with a tail of activity after it, and negative when the bulk
// comes late.
//
// Moments are computed from raw power sums Sums, which take O(1) memory
// per resource, are updated one busy interval at a time as a trace
// streams by, and add up: the moments of a group of resources or of a
// hierarchy node come from summing its members' power sums.
package moments

import (
	"math"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Sums holds the power sums of a busy function relative to an origin O:
//
//	P_k = Σ_j ∫_{a_j}^{b_j} (t - O)^k dt,   k = 0..3
//
// over its busy intervals [a_j, b_j). The zero Sums is empty and ready to
// use.
//
// Precision: the central moments come out of the power sums by
// cancellation, which loses the more digits the farther O lies from the
// mean compared with the deviation σ: about (D/σ)² ε for µ2 and (D/σ)³ ε σ³
// for µ3 at a distance D. A Sums therefore takes the start of its first
// interval as origin, Merge keeps it, and the sums are kept in
// double-double arithmetic (ε ≈ 1e-32). The origin is then the start of
// one of the busy intervals, and as those last at least a nanosecond, D/σ
// stays below about sqrt(12 m0 / 1 ns):
// for a day of busy time µ2 is right to 1e-17 and µ3 to 3e-10 σ³, wherever
// the timestamps lie (1e9 s and beyond).
type Sums struct {
	origin trace.Time
	set    bool  // origin chosen
	p      [4]dd // P_0..P_3 in ns^(k+1)
}

// Origin returns the instant the sums are measured from (0 for an empty
// Sums).
func (s Sums) Origin() trace.Time { return s.origin }

// Empty reports whether no busy time was added.
func (s Sums) Empty() bool { return s.p[0].isZero() }

// Busy returns P_0, the total busy time.
func (s Sums) Busy() trace.Time {
	// Both halves of a sum of integers are integers.
	return trace.Time(int64(s.p[0].hi)) + trace.Time(int64(s.p[0].lo))
}

// Power returns P_k for k in 0..3, in seconds^(k+1) relative to Origin.
// It panics for other k.
func (s Sums) Power(k int) float64 {
	return s.p[k].float() / math.Pow(1e9, float64(k+1))
}

// offset returns t - origin exactly.
func (s *Sums) offset(t trace.Time) dd {
	d := t - s.origin
	// No overflow when the operands have the same sign or the result
	// keeps the sign of t.
	if (t^s.origin) >= 0 || (d^t) >= 0 {
		return ddInt(int64(d))
	}
	return ddInt(int64(t)).sub(ddInt(int64(s.origin)))
}

// Add adds the busy interval [a, b). An interval with b <= a adds nothing:
// callers validate their input before accumulating it.
func (s *Sums) Add(a, b trace.Time) {
	if b <= a {
		return
	}
	if !s.set {
		s.origin, s.set = a, true
	}
	x, y := s.offset(a), s.offset(b)
	c := x.add(y).scale(0.5) // midpoint, exact
	var t1, t2, t3 dd
	// ∫_x^y t^k dt written around the midpoint c, where no term cancels:
	//   k=0: L    k=1: L c    k=2: L (c² + L²/12)    k=3: L c (c² + L²/4)
	c2 := c.mul(c)
	if l := int64(b - a); l > 0 && l < 1<<53 {
		// The usual case: the length is an exact float64.
		lf := float64(l)
		p, e := twoProd(lf, lf)
		l2 := dd{p, e}
		t1 = c.scale(lf)
		t2 = c2.add(l2.mul(oneTwelfth)).scale(lf)
		t3 = t1.mul(c2.add(l2.scale(0.25)))
		s.p[0] = s.p[0].add(dd{lf, 0})
	} else {
		l := y.sub(x)
		l2 := l.mul(l)
		t1 = l.mul(c)
		t2 = l.mul(c2.add(l2.mul(oneTwelfth)))
		t3 = t1.mul(c2.add(l2.scale(0.25)))
		s.p[0] = s.p[0].add(l)
	}
	s.p[1] = s.p[1].add(t1)
	s.p[2] = s.p[2].add(t2)
	s.p[3] = s.p[3].add(t3)
}

// oneTwelfth is 1/12 to double-double precision.
var oneTwelfth = func() dd {
	hi := 1.0 / 12
	return dd{hi, -math.FMA(12, hi, -1) / 12}
}()

// Shift returns the same sums measured from another origin, to read the
// power sums relative to a chosen instant. Moments are best computed from
// the unshifted sums (see the precision note on Sums).
func (s Sums) Shift(origin trace.Time) Sums {
	r := Sums{origin: origin, set: true}
	if !s.set {
		return r
	}
	r.p = s.p
	if origin == s.origin {
		return r
	}
	// t - new = (t - old) + δ with δ = old - new; expand (u + δ)^k.
	d := r.offset(s.origin)
	d2 := d.mul(d)
	d3 := d2.mul(d)
	p := s.p
	r.p[1] = p[1].add(d.mul(p[0]))
	r.p[2] = p[2].add(d.mul(p[1]).scale(2)).add(d2.mul(p[0]))
	r.p[3] = p[3].add(d.mul(p[2]).scale(3)).add(d2.mul(p[1]).scale(3)).add(d3.mul(p[0]))
	return r
}

// Merge adds the busy intervals of o, as if each had been added to s,
// measured from s's origin (o's when s is empty).
func (s *Sums) Merge(o Sums) {
	if o.Empty() {
		return
	}
	if s.Empty() {
		*s = o
		return
	}
	if o.origin != s.origin {
		o = o.Shift(s.origin)
	}
	for k := range s.p {
		s.p[k] = s.p[k].add(o.p[k])
	}
}

// central returns the mean offset from the origin and the central moments
// µ2, µ3, all in nanoseconds.
func (s Sums) central() (mean dd, mu2, mu3 float64) {
	p0 := s.p[0]
	mean = s.p[1].div(p0)
	e2 := s.p[2].div(p0)
	e3 := s.p[3].div(p0)
	m2 := mean.mul(mean)
	mu2 = e2.sub(m2).float()
	// µ3 = E[u³] - 3 m E[u²] + 2 m³
	mu3 = e3.sub(mean.mul(e2).scale(3)).add(m2.mul(mean).scale(2)).float()
	return
}

// Moments converts the sums to the scaled moments. Without busy time, M0
// is 0 and the other moments are NaN.
func (s Sums) Moments() Moments { return s.MomentsFrom(0) }

// MomentsFrom is Moments with M1 measured from origin instead of the
// trace clock's zero. A float64 holds an instant near 1e9 s to 0.1 µs
// only; measured from the trace or window start, M1 keeps every digit.
func (s Sums) MomentsFrom(origin trace.Time) Moments {
	if s.Empty() {
		nan := math.NaN()
		return Moments{M0: 0, M1: nan, M2: nan, M3: nan}
	}
	mean, mu2, mu3 := s.central()
	m1 := s.offset(origin).neg().add(mean).div(ddFloat(1e9))
	return Moments{
		M0: s.p[0].float() / 1e9,
		M1: m1.float(),
		M2: math.Sqrt(3*math.Max(mu2, 0)) / 1e9,
		M3: 3 * math.Cbrt(mu3) / 1e9,
	}
}

// Moments are the scaled moments of a busy function, in seconds.
type Moments struct {
	M0 float64 // norm: total busy time
	M1 float64 // mean: the busy function's centre of mass, on the trace clock
	M2 float64 // scaled deviation sqrt(3 µ2): m1 ± m2 spans the bulk of the work
	M3 float64 // scaled skew 3 cbrt(µ3): > 0 when the work is mostly before m1
}
