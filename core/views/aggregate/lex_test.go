package aggregate

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The one-pass search at p = 0 (columnSearchLexGeneric, columnSearchLexAVX2,
// columnSearchLexAVX512) is checked against the whole rule: the plain
// dynamic program (bestIntervalsScan), the general search, and whole
// solves with the general search, on models where most candidates tie.
// The kernel checks run with each kernel set the processor has
// (kernels_amd64_test.go).

// zeroTables returns tables of "aggregate" qualities as a solve at p = 0
// makes them (value 0*g - 1*l), with gains and losses that tie: small
// integers or quarters, columns and rows repeated, zeros of both signs;
// with nan, a few gains are infinite (their value 0*Inf is NaN).
func zeroTables(rng *rand.Rand, T, count int, nan bool) []table {
	small := []float64{0, 0, 1, 2, 0.25, 0.5}
	var out []table
	for c := 0; c < count; c++ {
		agg := newTable(T)
		for j := 0; j < T; j++ {
			for i := 0; i <= j; i++ {
				g, l := small[rng.IntN(len(small))], small[rng.IntN(len(small))]
				switch rng.IntN(6) {
				case 0: // a repeated row: the interval one shorter's
					if i < j {
						k := j*T + i + 1
						g, l = agg.g[k], agg.l[k]
					}
				case 1: // a repeated column
					if i < j {
						k := (j-1)*T + i
						g, l = agg.g[k], agg.l[k]
					}
				case 2:
					g, l = rng.Float64(), rng.Float64()
				case 3:
					if l == 0 && rng.IntN(2) == 0 {
						l = math.Copysign(0, -1)
					}
				}
				if nan && rng.IntN(40) == 0 {
					g = math.Inf(1)
				}
				agg.set(j*T+i, quality{0*g - 1*l, g, l})
			}
		}
		out = append(out, agg)
	}
	return out
}

func checkLexBestIntervals(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, T := range []int{1, 2, 3, 4, 5, 7, 8, 9, 13, 30, 65, 100} {
		tabs := zeroTables(rng, T, 30, false)
		tabs = append(tabs, leafTables(T, 3, 0, 5)...)
		plain := len(tabs) // the plain loop decides NaN its own way: the general search is the reference
		tabs = append(tabs, zeroTables(rng, T, 8, true)...)
		tri := T * (T + 1) / 2
		pos := make([]int, T)
		for n, agg := range tabs {
			want, got, general := newTable(T), newTable(T), newTable(T)
			for k := range got.v { // stale values in the tables
				got.v[k] = rng.NormFloat64()
				general.v[k] = got.v[k]
			}
			dw := nodeDecisions{cut: make([]byte, tri)}
			dg := nodeDecisions{cut: make([]byte, tri)}
			dgen := nodeDecisions{cut: make([]byte, tri)}
			bestIntervals(T, agg, got, dg, 1, nil, pos, true)
			bestIntervals(T, agg, general, dgen, 1, nil, pos, false)
			if n < plain {
				bestIntervalsScan(T, agg, want, dw)
			} else {
				copy(want.v, general.v)
				copy(want.g, general.g)
				copy(want.l, general.l)
				copy(dw.cut, dgen.cut)
			}
			for j := 0; j < T; j++ {
				lo, hi := j*T, j*T+j+1
				for k, x := range []table{got, general} {
					if !sameBits(want.v[lo:hi], x.v[lo:hi]) || !sameBits(want.g[lo:hi], x.g[lo:hi]) || !sameBits(want.l[lo:hi], x.l[lo:hi]) {
						t.Fatalf("T=%d table %d: column %d differs (%d): %v %v %v, want %v %v %v", T, n, j, k, x.v[lo:hi], x.g[lo:hi], x.l[lo:hi], want.v[lo:hi], want.g[lo:hi], want.l[lo:hi])
					}
				}
			}
			if string(dw.cut) != string(dg.cut) || string(dw.cut) != string(dgen.cut) {
				t.Fatalf("T=%d table %d: cuts differ", T, n)
			}
		}
	}
}

func TestLexBestIntervalsMatchScan(t *testing.T) { checkLexBestIntervals(t) }

// checkLexColumns compares, column by column, the one-pass search with
// the general one, in Go and in the kernel, with values past the columns
// that must not be read as candidates, and NaN candidates.
func checkLexColumns(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, T := range []int{1, 2, 3, 5, 8, 9, 12, 30, 70} {
		tabs := zeroTables(rng, T, 40, false)
		tabs = append(tabs, zeroTables(rng, T, 10, true)...)
		for n, agg := range tabs {
			best := newTable(T)
			bestIntervalsScan(T, agg, best, nodeDecisions{cut: make([]byte, T*(T+1)/2)})
			if n%5 == 4 { // NaN candidates
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
				junk := []float64{1e300, agg.v[j*T], math.NaN(), 0}[n%4]
				v := make([]float64, T*T, T*T+tablePad)
				a := make([]float64, T*T, T*T+tablePad)
				for k := range v[:cap(v)] {
					v[:cap(v)][k], a[:cap(a)][k] = junk, junk
				}
				for m := 0; m < j; m++ {
					copy(v[m*T:m*T+m+1], best.v[m*T:m*T+m+1])
				}
				copy(a[j*T:j*T+j+1], agg.v[j*T:j*T+j+1])
				av, ag, al := a[j*T:j*T+j+1], agg.g[j*T:j*T+j+1], agg.l[j*T:j*T+j+1]

				posW, posL := make([]int, j+1), make([]int, j+1)
				columnSearchGeneric(v, best.g, best.l, T, av, ag, al, posW, nil)
				columnSearchLexGeneric(v, best.g, best.l, T, av, ag, al, posL)
				for i := range posW {
					if posW[i] != posL[i] {
						t.Fatalf("T=%d table %d column %d row %d: %d, want %d", T, n, j, i, posL[i], posW[i])
					}
				}

				// Composed: the general search's bits, in Go and in the kernel.
				ws, gs := newTable(T), newTable(T)
				for _, x := range []table{ws, gs} {
					copy(x.v[:T*T], v[:T*T])
					copy(x.g, best.g)
					copy(x.l, best.l)
				}
				cw, block := make([]byte, j+1), make([]byte, triIndex(j, j)+1)
				cg := block[triIndex(0, j):]
				okW := columnComposeGeneric(ws.v, ws.g, ws.l, T, av, ag, al, make([]int, j+1), cw, false)
				okG := columnsBestComposed(gs, table{a, agg.g, agg.l}, T, j, j, make([]int, j+1), block, true) == 1
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

func TestLexColumnsMatchGeneral(t *testing.T) { checkLexColumns(t) }

// tiedModel is randomInput with values that tie: small integers, some
// resources the copy of another, some slices the copy of the one before.
func tiedModel(rng *rand.Rand) Input {
	in := randomInput(rng, 1+rng.IntN(3), 1+rng.IntN(20), 1+rng.IntN(4))
	T, X := in.Slices, in.States
	for k := range in.Values {
		in.Values[k] = float64(rng.IntN(3))
	}
	cell := func(leaf, t int) []float64 { return in.Values[(leaf*T+t)*X:][:X] }
	leaves := len(in.Tree.Leaves)
	for leaf := 0; leaf < leaves; leaf++ {
		if leaf > 0 && rng.IntN(3) == 0 {
			src := rng.IntN(leaf)
			copy(in.Values[leaf*T*X:(leaf+1)*T*X], in.Values[src*T*X:(src+1)*T*X])
			continue
		}
		for t := 1; t < T; t++ {
			if rng.IntN(2) == 0 {
				copy(cell(leaf, t), cell(leaf, t-1))
			}
		}
	}
	return in
}

// TestLexSolvesMatchGeneralSearch solves models full of ties at p = 0 with
// lpaggreg's tie rule, dense and sparse, normalised or not, with the
// one-pass search and with the general one: the same parts, the same bits.
func TestLexSolvesMatchGeneralSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	defer func() { noLex = false }()
	nans := 0
	for seed := 0; seed < 150; seed++ {
		in := tiedModel(rng)
		switch seed % 4 {
		case 2:
			in = sparseModel(rng)
		case 3: // huge values: infinite gains, NaN values at p = 0
			for k := range in.Values {
				if rng.IntN(10) == 0 {
					in.Values[k] = 1e306 * float64(1+rng.IntN(3))
				}
			}
		}
		for _, sparse := range []bool{false, true} {
			m := in
			if sparse {
				m = toSparse(in)
			}
			for _, norm := range []bool{false, true} {
				e, err := NewSpatiotemporal(m, Options{Normalize: norm, Ties: TiesLpaggreg})
				if err != nil {
					t.Fatal(err)
				}
				var got [2]*Partition
				for k, off := range []bool{false, true} {
					noLex = off
					if got[k], err = e.Solve(0); err != nil {
						t.Fatal(err)
					}
				}
				if got[0].Gain != got[0].Gain || math.IsInf(got[0].Gain, 0) {
					nans++
				}
				noLex = false
				a, b := got[0], got[1]
				if key(a.Parts) != key(b.Parts) || math.Float64bits(a.Gain) != math.Float64bits(b.Gain) ||
					math.Float64bits(a.Loss) != math.Float64bits(b.Loss) || math.Float64bits(a.Value) != math.Float64bits(b.Value) {
					t.Fatalf("seed %d (sparse %v, normalised %v): %d parts (%v, %v), want %d (%v, %v)",
						seed, sparse, norm, len(a.Parts), a.Gain, a.Loss, len(b.Parts), b.Gain, b.Loss)
				}
			}
		}
	}
	t.Logf("%d solves with infinite or NaN gains", nans)
}

// FuzzLexSearch builds a node's table of "aggregate" qualities at p = 0
// from bytes (gains and losses from a few values that tie, fractions,
// zeros of both signs, infinite gains) and checks the one-pass search
// against the general one: bestIntervals (the kernel in use) and the Go
// searches, column by column, the same winners and bits.
func FuzzLexSearch(f *testing.F) {
	f.Add(uint8(5), []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})
	f.Add(uint8(12), []byte{0, 0, 0, 0, 1, 1, 2, 2})
	f.Add(uint8(9), []byte{255, 3, 0, 17, 200, 1})
	f.Fuzz(func(t *testing.T, tb uint8, data []byte) {
		T := 1 + int(tb)%40
		if len(data) == 0 {
			return
		}
		values := []float64{0, math.Copysign(0, -1), 1, 2, 0.25, 0.5, 1.0 / 3, math.Inf(1)}
		k := 0
		next := func() float64 {
			b := data[k%len(data)]
			k++
			if b >= 128 {
				return float64(b) / 97
			}
			return values[int(b)%len(values)]
		}
		agg := newTable(T)
		for j := 0; j < T; j++ {
			for i := 0; i <= j; i++ {
				g, l := next(), next()
				if math.IsInf(l, 0) {
					l = 1
				}
				agg.set(j*T+i, quality{0*g - 1*l, g, l})
			}
		}
		tri := T * (T + 1) / 2
		pos := make([]int, T)
		lex, general := newTable(T), newTable(T)
		dl, dg := nodeDecisions{cut: make([]byte, tri)}, nodeDecisions{cut: make([]byte, tri)}
		bestIntervals(T, agg, lex, dl, 1, nil, pos, true)
		bestIntervals(T, agg, general, dg, 1, nil, pos, false)
		// The Go searches are compared while every value of the tables is
		// minus its loss (or NaN): a NaN row's optimum breaks that (see
		// bestIntervals).
		identity := true
		for j := 0; j < T; j++ {
			lo, hi := j*T, j*T+j+1
			if !sameBits(lex.v[lo:hi], general.v[lo:hi]) || !sameBits(lex.g[lo:hi], general.g[lo:hi]) || !sameBits(lex.l[lo:hi], general.l[lo:hi]) {
				t.Fatalf("T=%d: column %d differs", T, j)
			}
			for i := lo; i < hi; i++ {
				for _, x := range []table{agg, general} {
					identity = identity && (x.v[i] != x.v[i] || x.v[i] == -x.l[i])
				}
			}
			if !identity {
				continue
			}
			posL, posG := make([]int, j+1), make([]int, j+1)
			av, ag, al := agg.v[lo:hi], agg.g[lo:hi], agg.l[lo:hi]
			columnSearchLexGeneric(general.v, general.g, general.l, T, av, ag, al, posL)
			columnSearchGeneric(general.v, general.g, general.l, T, av, ag, al, posG, nil)
			for i := range posL {
				if posL[i] != posG[i] {
					t.Fatalf("T=%d column %d row %d: %d, want %d", T, j, i, posL[i], posG[i])
				}
			}
		}
		if string(dl.cut) != string(dg.cut) {
			t.Fatalf("T=%d: cuts differ", T)
		}
	})
}
