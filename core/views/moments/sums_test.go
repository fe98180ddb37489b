package moments

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

const epoch = 1_000_000_000 * trace.Second // timestamps around 1e9 s

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// One unbroken busy bar: m0 = L, m1 = its middle, m2 = L/2, m3 = 0.
func TestSingleBar(t *testing.T) {
	for _, bar := range []interval{
		{0, 10 * trace.Second},
		{3 * trace.Second, 3*trace.Second + 1},                 // one nanosecond
		{epoch + 123_456_789, epoch + 123_456_789 + 7_777_777}, // near 1e9 s
		{-5 * trace.Second, 2 * trace.Second},
	} {
		s := sumsOf([]interval{bar})
		m := s.Moments()
		l := (bar.b - bar.a).Seconds()
		mid := (float64(bar.a) + float64(bar.b)) / 2e9
		if m.M0 != l {
			t.Errorf("%v: m0 = %v, want %v", bar, m.M0, l)
		}
		if !near(m.M1, mid, ulp(mid)) {
			t.Errorf("%v: m1 = %v, want %v", bar, m.M1, mid)
		}
		if !near(m.M2, l/2, 4*ulp(l)) {
			t.Errorf("%v: m2 = %v, want m0/2 = %v", bar, m.M2, l/2)
		}
		if math.Abs(m.M3) > 1e-9*l {
			t.Errorf("%v: m3 = %v, want 0", bar, m.M3)
		}
		checkExact(t, "bar", s, []interval{bar})
	}
}

// The skew is positive when most of the work comes before m1 with a tail
// after it: bars [0,3] and [9,10] give m1 = 3.5 and
// µ3 = (1/4)[∫_{-3.5}^{-0.5} u³ du + ∫_{5.5}^{6.5} u³ du] = 45, m3 = 3 cbrt(45).
// The mirror image, with most work late, has m3 = -3 cbrt(45).
func TestSkewSign(t *testing.T) {
	s := trace.Second
	early := sumsOf([]interval{{0, 3 * s}, {9 * s, 10 * s}}).Moments()
	late := sumsOf([]interval{{0, 1 * s}, {7 * s, 10 * s}}).Moments()
	want := 3 * math.Cbrt(45)
	if !near(early.M1, 3.5, 1e-15) || !near(early.M3, want, 1e-12) {
		t.Errorf("work early: m1 = %v, m3 = %v; want 3.5, %v", early.M1, early.M3, want)
	}
	if !near(late.M1, 6.5, 1e-15) || !near(late.M3, -want, 1e-12) {
		t.Errorf("work late: m1 = %v, m3 = %v; want 6.5, %v", late.M1, late.M3, -want)
	}
}

// Two equal bars placed symmetrically have no skew, however far from the
// origin and however unequal the gap is to the bars.
func TestSymmetricBarsHaveNoSkew(t *testing.T) {
	for _, base := range []trace.Time{0, epoch} {
		for _, gap := range []trace.Time{1, 1000, 5 * trace.Second} {
			l := 300 * trace.Second / 1000
			ivs := []interval{{base, base + l}, {base + l + gap, base + 2*l + gap}}
			m := sumsOf(ivs).Moments()
			if math.Abs(m.M3) > 1e-9*m.M2 {
				t.Errorf("base %v gap %v: m3 = %v, want 0", base, gap, m.M3)
			}
			// µ2 = L²/12 + ((L+gap)/2)²
			h := (l + gap).Seconds() / 2
			want := math.Sqrt(3 * (l.Seconds()*l.Seconds()/12 + h*h))
			if !near(m.M2, want, 1e-14*want) {
				t.Errorf("base %v gap %v: m2 = %v, want %v", base, gap, m.M2, want)
			}
		}
	}
}

// Random Gantt charts, near 0 and near 1e9 s with nanosecond detail,
// against rational arithmetic, with the intervals added in time order and
// shuffled (the origin is then wherever the first one added starts).
func TestRandomGanttAgainstRationals(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 400 {
		base := trace.Time(0)
		if i%2 == 1 {
			base = epoch + trace.Time(rng.Int64N(int64(trace.Second)))
		}
		maxLen := []int64{10, 1e6, 1e9, 1e12}[i%4]
		ivs := randomGantt(rng, base, 1+rng.IntN(60), maxLen)
		checkExact(t, "in order", sumsOf(ivs), ivs)
		shuffled := append([]interval(nil), ivs...)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		checkExact(t, "shuffled", sumsOf(shuffled), ivs)
	}
}

// The hardest case for an origin at the first interval: one nanosecond of
// work at the start, then narrow bursts three hours later. The deviation is
// then a tiny fraction of the distance from the origin to the mean.
func TestBurstFarFromOrigin(t *testing.T) {
	burst := epoch + 10_000*trace.Second
	ivs := []interval{{epoch, epoch + 1}, {burst, burst + 1000}, {burst + 3000, burst + 3500}, {burst + 9000, burst + 9001}}
	checkExact(t, "burst", sumsOf(ivs), ivs)
	// The same, merged from two sums far apart.
	var early, late Sums
	early.Add(ivs[0].a, ivs[0].b)
	for _, iv := range ivs[1:] {
		late.Add(iv.a, iv.b)
	}
	early.Merge(late)
	checkExact(t, "merged burst", early, ivs)
}

// 2 m2 >= m0 for every busy function, with equality for one bar only.
func TestDeviationCoversNorm(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 2000 {
		ivs := randomGantt(rng, trace.Time(rng.Int64N(1e15)), 1+rng.IntN(20), []int64{3, 1e3, 1e9}[i%3])
		m := sumsOf(ivs).Moments()
		if 2*m.M2 < m.M0*(1-1e-14) {
			t.Fatalf("chart %d %v: 2 m2 = %v < m0 = %v", i, ivs, 2*m.M2, m.M0)
		}
		gaps := false
		for j := 1; j < len(ivs); j++ {
			gaps = gaps || ivs[j].a > ivs[j-1].b
		}
		if gaps && 2*m.M2 <= m.M0 {
			t.Fatalf("chart %d %v: idle gaps but 2 m2 = %v <= m0 = %v", i, ivs, 2*m.M2, m.M0)
		}
	}
}

// The moments agree with the integrals of their definition computed by
// midpoint Riemann sums on a fine grid.
func TestRiemannSums(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const cells = 8 // per nanosecond
	for range 30 {
		ivs := randomGantt(rng, 0, 1+rng.IntN(8), 500)
		end := ivs[len(ivs)-1].b
		g := func(t float64) float64 {
			for _, iv := range ivs {
				if t >= float64(iv.a) && t < float64(iv.b) {
					return 1
				}
			}
			return 0
		}
		riemann := func(f func(float64) float64) float64 {
			sum := 0.0
			for i := range int64(end) * cells {
				t := (float64(i) + 0.5) / cells
				sum += g(t) * f(t)
			}
			return sum / cells
		}
		m0 := riemann(func(float64) float64 { return 1 })
		m1 := riemann(func(t float64) float64 { return t }) / m0
		mu2 := riemann(func(t float64) float64 { return (t - m1) * (t - m1) }) / m0
		mu3 := riemann(func(t float64) float64 { return (t - m1) * (t - m1) * (t - m1) }) / m0
		want := Moments{m0 / 1e9, m1 / 1e9, math.Sqrt(3*mu2) / 1e9, 3 * math.Cbrt(mu3) / 1e9}
		got := sumsOf(ivs).Moments()
		scale := float64(end) / 1e9
		// Midpoint sums integrate t² and t³ with an error of order
		// (cell width)² per unit length.
		tol := 1e-4 * scale
		if !near(got.M0, want.M0, 1e-12) || !near(got.M1, want.M1, 1e-12) ||
			!near(got.M2, want.M2, tol) || !near(got.M3, want.M3, 2e-2*scale) {
			t.Errorf("chart %v: got %+v, Riemann sums give %+v", ivs, got, want)
		}
	}
}

// Merging sums measured from different origins equals adding every
// interval to one sums.
func TestMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 200 {
		base := epoch + trace.Time(rng.Int64N(1e12))
		ivs := randomGantt(rng, base, 2+rng.IntN(40), []int64{100, 1e9}[rng.IntN(2)])
		parts := make([]Sums, 1+rng.IntN(5))
		for _, iv := range ivs {
			parts[rng.IntN(len(parts))].Add(iv.a, iv.b)
		}
		var all Sums
		for _, i := range rng.Perm(len(parts)) {
			all.Merge(parts[i])
		}
		checkExact(t, "merged", all, ivs)
	}
}

// Shift expresses the power sums from another origin.
func TestShift(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for range 100 {
		ivs := randomGantt(rng, epoch, 1+rng.IntN(20), 1e9)
		origin := epoch + trace.Time(rng.Int64N(2e11)-1e11)
		shifted := sumsOf(ivs).Shift(origin)
		if shifted.Origin() != origin {
			t.Fatalf("origin %v, want %v", shifted.Origin(), origin)
		}
		for k := range 4 {
			want := integral(ivs, ratInt(origin), k)
			if e := relErr(ddRat(shifted.p[k]), want, new(big.Rat).Abs(want)); e > 1e-28 {
				t.Errorf("P%d from %v: relative error %.3g", k, origin, e)
			}
		}
	}
}

func TestEmptySums(t *testing.T) {
	var s Sums
	s.Add(5, 5) // zero length
	s.Add(7, 6) // negative: nothing
	m := s.Moments()
	if !s.Empty() || m.M0 != 0 || !math.IsNaN(m.M1) || !math.IsNaN(m.M2) || !math.IsNaN(m.M3) {
		t.Errorf("empty sums: %+v", m)
	}
	var t2 Sums
	t2.Merge(s)
	t2.Add(10, 20)
	if t2.Origin() != 10 || t2.Busy() != 10 {
		t.Errorf("merge of empty sums: origin %v busy %v", t2.Origin(), t2.Busy())
	}
}

// Power sums from the definition P_k = Σ (b^{k+1} - a^{k+1}) / (k+1).
func TestPower(t *testing.T) {
	var s Sums
	s.Add(2*trace.Second, 4*trace.Second)
	s = s.Shift(trace.Second) // [1, 3] from the origin
	want := []float64{2, (9.0 - 1) / 2, (27.0 - 1) / 3, (81.0 - 1) / 4}
	for k, w := range want {
		if got := s.Power(k); !near(got, w, 1e-15*w) {
			t.Errorf("P%d = %v, want %v", k, got, w)
		}
	}
}

func TestDDInt(t *testing.T) {
	for _, v := range []int64{0, 1, -1, 1 << 53, 1<<53 + 1, math.MaxInt64, math.MinInt64, math.MinInt64 + 1, -(1<<60 + 12345)} {
		if got := ddRat(ddInt(v)); got.Cmp(ratInt(trace.Time(v))) != 0 {
			t.Errorf("ddInt(%d) = %v", v, got)
		}
	}
}

// Near 1e9 s a float64 mean loses the nanoseconds; measured from a nearby
// origin it keeps them.
func TestMomentsFrom(t *testing.T) {
	s := sumsOf([]interval{{epoch + 1, epoch + 4}, {epoch + 10, epoch + 11}})
	m := s.MomentsFrom(epoch)
	if want := (2.5*3 + 10.5) / 4 / 1e9; !near(m.M1, want, ulp(want)) {
		t.Errorf("M1 from the epoch = %v, want %v", m.M1, want)
	}
	if abs := s.Moments(); abs.M2 != m.M2 || abs.M3 != m.M3 || abs.M0 != m.M0 {
		t.Errorf("the origin changed other moments: %+v vs %+v", abs, m)
	}
}
