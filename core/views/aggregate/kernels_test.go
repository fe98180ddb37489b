package aggregate

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The kernels of the spatiotemporal dynamic program (bestIntervals,
// columnSearch, xlog2xTo, intervalQualities) are checked bit for bit against
// the plain loops they replace.

// bestIntervalsScan is the plain dynamic program: for every interval, the
// candidates one after the other; the larger value wins, then the larger
// gain, then the smaller loss, and an equal candidate does not replace an
// earlier one.
func bestIntervalsScan(T int, agg, best table, d nodeDecisions) {
	for j := 0; j < T; j++ {
		av, ag, al := agg.v[j*T:(j+1)*T], agg.g[j*T:(j+1)*T], agg.l[j*T:(j+1)*T]
		for i := j; i >= 0; i-- {
			qv, qg, ql, c := av[i], ag[i], al[i], 0
			for m := i; m < j; m++ {
				x, g, l := best.v[m*T+i]+av[m+1], best.g[m*T+i]+ag[m+1], best.l[m*T+i]+al[m+1]
				if x > qv || (x == qv && (g > qg || (g == qg && l < ql))) {
					qv, qg, ql, c = x, g, l, m+1
				}
			}
			best.v[j*T+i], best.g[j*T+i], best.l[j*T+i] = qv, qg, ql
			d.setCut(triIndex(i, j), 1, c)
		}
	}
}

// leafTables returns the tables of "aggregate" qualities at p of leaves
// of lpaggreg's synthetic model, normalised: their values are small, and
// many candidates tie by rounding.
func leafTables(T, depth int, p float64, count int) []table {
	in := lcgModel(10, depth, T)
	e, err := NewSpatiotemporal(in, Options{Normalize: true})
	if err != nil {
		panic(err)
	}
	r := &run{s: e, p: p}
	var out []table
	for _, leaf := range in.Tree.Leaves[:count] {
		agg := newTable(T)
		r.aggregateOrSplit(agg, table{}, e.cache[int(leaf)*e.tri:][:e.tri], false, 0, nodeDecisions{}, true)
		out = append(out, agg)
	}
	return out
}

// randomTables returns tables of random qualities; with small integer
// gains and losses, most candidates tie exactly.
func randomTables(rng *rand.Rand, T, count int, integers bool) []table {
	var out []table
	for c := 0; c < count; c++ {
		agg := newTable(T)
		p := rng.Float64()
		for j := 0; j < T; j++ {
			for i := 0; i <= j; i++ {
				g, l := rng.Float64(), rng.Float64()
				if integers {
					g, l, p = float64(rng.IntN(3)), float64(rng.IntN(3)), 0.5
				}
				v := p*g - (1-p)*l
				if integers {
					switch rng.IntN(8) {
					case 0: // below some cut: ties among the cuts decide
						v--
					case 1: // zeros of both signs, equal but not the same bits
						if v == 0 {
							v = math.Copysign(0, -1)
						}
					}
				}
				agg.set(j*T+i, quality{v, g, l})
			}
		}
		// Stale values in the unused half, as tables from the pool have.
		for j := 0; j < T; j++ {
			for i := j + 1; i < T; i++ {
				agg.v[j*T+i] = rng.NormFloat64() * 1e300
			}
		}
		out = append(out, agg)
	}
	return out
}

func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

func checkBestIntervals(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, T := range []int{1, 2, 3, 4, 5, 7, 9, 30, 65, 66, 100} {
		depth := 3
		if T <= 30 {
			depth = 4
		}
		var tabs []table
		for _, p := range []float64{0.1, 0.5, 0.9} {
			tabs = append(tabs, leafTables(T, depth, p, 5)...)
		}
		tabs = append(tabs, randomTables(rng, T, 20, true)...)
		tabs = append(tabs, randomTables(rng, T, 5, false)...)
		tri := T * (T + 1) / 2
		pos := make([]int, T)
		for n, agg := range tabs {
			want, got := newTable(T), newTable(T)
			for k := range got.v { // stale values in the table
				got.v[k] = rng.NormFloat64()
			}
			dw := nodeDecisions{cut: make([]byte, tri)}
			dg := nodeDecisions{cut: make([]byte, tri)}
			bestIntervalsScan(T, agg, want, dw)
			bestIntervals(T, agg, got, dg, 1, nil, pos, false)
			for j := 0; j < T; j++ {
				lo, hi := j*T, j*T+j+1
				if !sameBits(want.v[lo:hi], got.v[lo:hi]) || !sameBits(want.g[lo:hi], got.g[lo:hi]) || !sameBits(want.l[lo:hi], got.l[lo:hi]) {
					t.Fatalf("T=%d table %d: column %d differs", T, n, j)
				}
			}
			if string(dw.cut) != string(dg.cut) {
				t.Fatalf("T=%d table %d: cuts differ", T, n)
			}
		}
	}
}

func TestBestIntervalsMatchesScan(t *testing.T) { checkBestIntervals(t) }

func checkColumnSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, T := range []int{1, 2, 5, 8, 9, 30, 70} {
		tabs := append(randomTables(rng, T, 30, true), randomTables(rng, T, 10, false)...)
		for n, agg := range tabs {
			// best as the dynamic program leaves it before column j.
			best := newTable(T)
			d := nodeDecisions{cut: make([]byte, T*(T+1)/2)}
			bestIntervalsScan(T, agg, best, d)
			if n%5 == 4 { // NaN candidates: rows left to resolveRow
				for k := 0; k < 3; k++ {
					i := rng.IntN(T)
					j := i + rng.IntN(T-i)
					if rng.IntN(2) == 0 {
						best.v[j*T+i] = math.NaN()
					} else {
						agg.v[j*T+i] = math.NaN()
					}
				}
			}
			for j := 0; j < T; j++ {
				// Values not to be read as candidates: larger than any,
				// equal to some, or NaN.
				junk := []float64{1e300, agg.v[j*T], math.NaN()}[n%3]
				v := make([]float64, T*T, T*T+tablePad)
				for k := range v[:cap(v)] {
					v[:cap(v)][k] = junk
				}
				for m := 0; m < j; m++ {
					copy(v[m*T:m*T+m+1], best.v[m*T:m*T+m+1])
				}
				a := make([]float64, T*T, T*T+tablePad)
				for k := range a[:cap(a)] {
					a[:cap(a)][k] = junk
				}
				copy(a[j*T:j*T+j+1], agg.v[j*T:j*T+j+1])
				av := a[j*T : j*T+j+1]
				posW, posG := make([]int, j+1), make([]int, j+1)
				var skip []bool
				if n%4 == 0 {
					skip = make([]bool, j+1)
					for i := range skip {
						skip[i] = rng.IntN(4) != 0
					}
				}
				ag, al := agg.g[j*T:j*T+j+1], agg.l[j*T:j*T+j+1]
				columnSearchGeneric(v, best.g, best.l, T, av, ag, al, posW, skip)
				columnSearch(v, best.g, best.l, T, av, ag, al, posG, skip)
				for i := range posW {
					if skip != nil && skip[i] {
						continue
					}
					if posW[i] != posG[i] {
						t.Fatalf("T=%d table %d column %d row %d: %d, want %d", T, n, j, i, posG[i], posW[i])
					}
				}
				// Composed: the same bits as the plain composition.
				ws, gs := newTable(T), newTable(T)
				for _, x := range []table{ws, gs} {
					copy(x.v[:T*T], v[:T*T])
					copy(x.g, best.g)
					copy(x.l, best.l)
				}
				cw, block := make([]byte, j+1), make([]byte, triIndex(j, j)+1)
				cg := block[triIndex(0, j):]
				okW := columnComposeGeneric(ws.v, ws.g, ws.l, T, av, ag, al, posW, cw, false)
				okG := columnsBestComposed(gs, table{a, agg.g, agg.l}, T, j, j, posG, block, false) == 1
				if okW != okG {
					t.Fatalf("T=%d table %d column %d: composed %v, want %v", T, n, j, okG, okW)
				}
				if !okW {
					continue
				}
				lo, hi := j*T, j*T+j+1
				if !sameBits(ws.v[lo:hi], gs.v[lo:hi]) || !sameBits(ws.g[lo:hi], gs.g[lo:hi]) || !sameBits(ws.l[lo:hi], gs.l[lo:hi]) || string(cw) != string(cg) {
					t.Fatalf("T=%d table %d column %d: composed differently", T, n, j)
				}
			}
		}
	}
}

func TestColumnSearchMatchesGeneric(t *testing.T) { checkColumnSearch(t) }

func checkXlog2x(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	src := []float64{0, 5e-324, 1e-310, 0x1p-1022, 1, 2, 0.5, math.MaxFloat64, math.Inf(1)}
	for i := 0; i < 200_000; i++ {
		switch rng.IntN(6) {
		case 0:
			src = append(src, 0)
		case 1:
			src = append(src, float64(rng.IntN(100)))
		case 2:
			src = append(src, math.Ldexp(1+rng.Float64(), rng.IntN(2100)-1075))
		default:
			src = append(src, rng.Float64()*math.Ldexp(1, rng.IntN(200)-100))
		}
	}
	for lo := 0; lo < len(src); {
		hi := min(lo+rng.IntN(40), len(src))
		s := src[lo:hi]
		dst := make([]float64, len(s))
		xlog2xTo(dst, s)
		inPlace := append([]float64(nil), s...)
		xlog2xTo(inPlace, inPlace)
		for k, x := range s {
			want := xlog2x(x)
			if math.Float64bits(dst[k]) != math.Float64bits(want) || math.Float64bits(inPlace[k]) != math.Float64bits(want) {
				t.Fatalf("x log2 x of %v: %v (in place %v), want %v", x, dst[k], inPlace[k], want)
			}
		}
		// Accumulated: set, then added to.
		tw, xw := make([]float64, len(s)), make([]float64, len(s))
		tg, xg := make([]float64, len(s)), make([]float64, len(s))
		for _, first := range []bool{true, false, false} {
			xlogAccumulateGeneric(s, tw, xw, first)
			xlogAccumulate(s, tg, xg, first)
			if !sameBits(tw, tg) || !sameBits(xw, xg) {
				t.Fatalf("accumulating %v: %v %v, want %v %v", s, tg, xg, tw, xw)
			}
		}
		lo = hi
	}
}

func TestXlog2xToMatches(t *testing.T) { checkXlog2x(t) }

// intervalQualitiesDirect is the interval-by-interval computation.
func intervalQualitiesDirect(s nodeStats, slices, states, leaves int) []line {
	out := make([]line, slices*(slices+1)/2)
	acc := make([]float64, states)
	for i := 0; i < slices; i++ {
		clear(acc)
		ent := 0.0
		for j := i; j < slices; j++ {
			total, xl := 0.0, 0.0
			for x, v := range s.v[j*states : (j+1)*states] {
				acc[x] += v
				total += acc[x]
				xl += xlog2x(acc[x])
			}
			ent += s.ent[j]
			g, l := gainLoss(xl, ent, total, leaves*(j-i+1))
			out[triIndex(i, j)] = line{g, l}
		}
	}
	return out
}

func TestIntervalQualitiesMatchesDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for iter := 0; iter < 300; iter++ {
		T, X, leaves := 1+rng.IntN(40), 1+rng.IntN(9), 1+rng.IntN(1000)
		in := Input{Slices: T, States: X, Values: make([]float64, T*X)}
		randomCells(rng, in.Values, leaves)
		st := leafStats(in, 0, make([]float64, T), make([]float64, T*X), nil)
		w := newIntervalScratch(T, X)
		got := intervalQualities(st, T, X, logSizes(make([]float64, T+1), T, leaves), &w)
		want := intervalQualitiesDirect(st, T, X, leaves)
		for k := range want {
			if math.Float64bits(got[k].g) != math.Float64bits(want[k].g) || math.Float64bits(got[k].l) != math.Float64bits(want[k].l) {
				t.Fatalf("iter %d interval %d: %v, want %v", iter, k, got[k], want[k])
			}
		}
	}
}

func TestAddToMatchesGeneric(t *testing.T) { checkAddTo(t) }

func checkAddTo(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 0; n <= 70; n++ {
		src := make([]float64, n)
		dst := make([]float64, n+3) // longer than src: only len(src) changes
		for i := range src {
			src[i] = rng.NormFloat64() * math.Exp2(float64(rng.IntN(40)-20))
		}
		for i := range dst {
			dst[i] = rng.NormFloat64()
		}
		want := slices.Clone(dst)
		for i, x := range src {
			want[i] += x
		}
		other := make([]float64, n+3)
		sumTo(other, dst, src) // a third array
		addTo(dst, src)        // in place
		for i := range dst {
			if math.Float64bits(dst[i]) != math.Float64bits(want[i]) {
				t.Fatalf("n=%d: addTo[%d] = %v, want %v", n, i, dst[i], want[i])
			}
			if i < n && math.Float64bits(other[i]) != math.Float64bits(want[i]) {
				t.Fatalf("n=%d: sumTo[%d] = %v, want %v", n, i, other[i], want[i])
			}
		}
		for i, x := range other[n:] {
			if x != 0 {
				t.Fatalf("n=%d: sumTo wrote other[%d], past len(b)", n, n+i)
			}
		}
	}
}

func TestIntervalSumsMatchesGeneric(t *testing.T) { checkIntervalSums(t) }

func checkIntervalSums(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for T := 1; T <= 40; T++ {
		for _, stride := range []int{1, 3} {
			v := make([]float64, (T-1)*stride+1)
			for i := range v {
				v[i] = rng.NormFloat64() * math.Exp2(float64(rng.IntN(60)-30))
				if rng.IntN(8) == 0 {
					v[i] = math.Copysign(0, -1) // 0 + -0 is +0 in both
				}
			}
			tri := T * (T + 1) / 2
			want, got := make([]float64, tri+5), make([]float64, tri+5)
			intervalSumsGeneric(want, v, stride, T)
			intervalSums(got, v, stride, T)
			if !sameBits(want, got) {
				t.Fatalf("T=%d stride=%d: %v, want %v", T, stride, got, want)
			}
		}
	}
}

// TestIntervalQualitiesOfRareStates checks the qualities of nodes whose
// states are absent from most slices (the logs of unchanged sums copied,
// see xlogColumns) against the interval-by-interval computation, with
// zeros of both signs and subnormal values among them.
func TestIntervalQualitiesOfRareStates(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for iter := 0; iter < 200; iter++ {
		T, X, leaves := 1+rng.IntN(100), 1+rng.IntN(6), 1+rng.IntN(100)
		in := Input{Slices: T, States: X, Values: make([]float64, T*X)}
		present := rng.Float64() // the share of slices where a state is
		for k := range in.Values {
			if rng.Float64() >= present {
				if rng.IntN(8) == 0 {
					in.Values[k] = math.Copysign(0, -1)
				}
				continue
			}
			switch rng.IntN(5) {
			case 0:
				in.Values[k] = 5e-324 * float64(1+rng.IntN(3))
			case 1:
				in.Values[k] = float64(rng.IntN(4))
			default:
				in.Values[k] = rng.Float64() * float64(leaves)
			}
		}
		st := leafStats(in, 0, make([]float64, T), make([]float64, T*X), nil)
		w := newIntervalScratch(T, X)
		got := intervalQualities(st, T, X, logSizes(make([]float64, T+1), T, leaves), &w)
		want := intervalQualitiesDirect(st, T, X, leaves)
		for k := range want {
			if math.Float64bits(got[k].g) != math.Float64bits(want[k].g) || math.Float64bits(got[k].l) != math.Float64bits(want[k].l) {
				t.Fatalf("iter %d (T=%d, X=%d, present %.2f) interval %d: %v, want %v", iter, T, X, present, k, got[k], want[k])
			}
		}
	}
}

// TestTriRunsCoverTheTriangle checks that the runs the sums of tables go
// through hold every interval [i..j] (at j*T+i) exactly once, stay within
// the table, and take in no row of a column before its first.
func TestTriRunsCoverTheTriangle(t *testing.T) {
	for T := 1; T <= 130; T++ {
		seen := make([]int, T*T)
		last := -1
		for _, r := range triRuns(T) {
			if int(r.i) <= last || r.j <= r.i || int(r.j) > T*T {
				t.Fatalf("T = %d: run %v after %d", T, r, last)
			}
			last = int(r.j) - 1
			for x := r.i; x < r.j; x++ {
				seen[x]++
			}
		}
		for j := 0; j < T; j++ {
			for i := 0; i <= j; i++ {
				if seen[j*T+i] != 1 {
					t.Fatalf("T = %d: [%d..%d] in %d runs", T, i, j, seen[j*T+i])
				}
			}
		}
	}
}

// TestAddTriMatchesWholeTables checks that the sums over triRuns give, on
// the upper triangle, the bits of whole-table sums, stale values around.
func TestAddTriMatchesWholeTables(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	for _, T := range []int{1, 3, 16, 17, 50, 100, 129} {
		a, b := newTable(T), newTable(T)
		for _, x := range []table{a, b} {
			for k := range x.v {
				x.v[k], x.g[k], x.l[k] = rng.NormFloat64(), rng.Float64(), float64(rng.IntN(4))
			}
		}
		want := newTable(T)
		sumTo(want.v, a.v, b.v)
		sumTo(want.g, a.g, b.g)
		sumTo(want.l, a.l, b.l)
		a.addTri(b, triRuns(T))
		for j := 0; j < T; j++ {
			for i := 0; i <= j; i++ {
				k := j*T + i
				if math.Float64bits(a.v[k]) != math.Float64bits(want.v[k]) || a.g[k] != want.g[k] || a.l[k] != want.l[k] {
					t.Fatalf("T = %d: sum of [%d..%d] differs", T, i, j)
				}
			}
		}
	}
}

// TestXlogColumnsMatchesEveryLog checks the logs xlogColumns copies
// against x log2 x of every interval sum, bit for bit, for states present
// in few or many slices, with zeros of both signs and subnormal values.
func TestXlogColumnsMatchesEveryLog(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for iter := 0; iter < 500; iter++ {
		T, stride := 1+rng.IntN(100), 1+rng.IntN(3)
		v := make([]float64, T*stride)
		present := rng.Float64()
		for j := 0; j < T; j++ {
			x := &v[j*stride]
			switch {
			case rng.Float64() >= present:
				if rng.IntN(4) == 0 {
					*x = math.Copysign(0, -1)
				}
			case rng.IntN(6) == 0:
				*x = 5e-324 * float64(1+rng.IntN(3))
			case rng.IntN(3) == 0:
				*x = float64(rng.IntN(3))
			default:
				*x = rng.Float64() * 10
			}
		}
		tri := T * (T + 1) / 2
		sums, want, got := make([]float64, tri), make([]float64, tri), make([]float64, tri)
		intervalSums(sums, v, stride, T)
		xlog2xTo(want, sums)
		xlogColumns(got, sums, v, stride, T, make([]float64, T), &presence{})
		for k := range want {
			if math.Float64bits(got[k]) != math.Float64bits(want[k]) && !(got[k] == 0 && want[k] == 0) {
				t.Fatalf("iter %d (T=%d, present %.2f) interval %d: %v, want %v", iter, T, present, k, got[k], want[k])
			}
		}
	}
}
