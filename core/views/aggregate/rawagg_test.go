package aggregate

import (
	"math"
	"math/rand/v2"
	"testing"
)

// aggregateRaw is checked bit for bit against intervalQualities followed
// by aggregateOrSplit, for leaves and for nodes whose children's best
// ties with the aggregate by value, by gain or by loss.
func checkAggregateRaw(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for iter := 0; iter < 400; iter++ {
		T, X := 1+rng.IntN(40), 1+rng.IntN(6)
		leaves := 1 + rng.IntN(1000)
		in := Input{Slices: T, States: X, Values: make([]float64, T*X)}
		randomCells(rng, in.Values, leaves)
		if iter%7 == 0 { // the same proportions everywhere: nothing lost
			for k := range in.Values {
				in.Values[k] = float64(k%X + 1)
			}
		}
		st := leafStats(in, 0, make([]float64, T), make([]float64, T*X), nil)
		s := &Spatiotemporal{in: in, tri: T * (T + 1) / 2, width: 1}
		s.u = units{gain: GainEntropy, gain0: 1, loss0: 1}
		if iter%2 == 1 {
			s.u.gain0, s.u.loss0 = 1+rng.Float64()*100, 1+rng.Float64()*100
		}
		p := []float64{0.5, rng.Float64(), 0.1, 1}[iter%4]
		r := &run{s: s, p: p}
		leaf := iter%3 == 0
		var kid table
		if !leaf {
			kid = newTable(T)
			// The aggregate itself, to tie with, then variations of it.
			w := s.newScratch()
			r.aggregateRawGeneric(kid, table{}, st, leaves, nodeDecisions{}, true, w)
			varyTies(rng, kid)
		}
		want, got := newTable(T), newTable(T)
		for k := range got.v[:cap(got.v)] {
			got.v[:cap(got.v)][k] = rng.NormFloat64()
		}
		dw := nodeDecisions{split: make([]uint64, splitWords(s.tri))}
		dg := nodeDecisions{split: make([]uint64, splitWords(s.tri))}
		if leaf {
			dw.split, dg.split = nil, nil
		}
		r.aggregateRawGeneric(want, kid, st, leaves, dw, leaf, s.newScratch())
		w := s.newScratch()
		for k := range w.iq.ent { // stale sums from another node
			w.iq.ent[k] = rng.NormFloat64()
		}
		r.aggregateRaw(got, kid, st, leaves, dg, leaf, w)
		sameAggregate(t, iter, T, leaf, got, want, dg, dw)
	}
}

func TestAggregateRawMatchesGeneric(t *testing.T) { checkAggregateRaw(t) }

// aggregateCached is checked bit for bit against aggregateOrSplit on
// cached lines, with the same kinds of ties.
func checkAggregateCached(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for iter := 0; iter < 400; iter++ {
		T := 1 + rng.IntN(40)
		tri := T * (T + 1) / 2
		s := &Spatiotemporal{in: Input{Slices: T}, tri: tri, width: 1}
		r := &run{s: s, p: []float64{0.5, rng.Float64(), 0.1, 1}[iter%4]}
		q := make([]line, tri, tri+4)
		for k := range q[:cap(q)] {
			q[:cap(q)][k] = line{float64(rng.IntN(3)), float64(rng.IntN(3))}
			if iter%2 == 1 {
				q[:cap(q)][k] = line{rng.Float64(), rng.Float64()}
			}
		}
		leaf := iter%3 == 0
		var kid table
		if !leaf {
			kid = newTable(T)
			r.aggregateOrSplit(kid, table{}, q, false, 0, nodeDecisions{}, true)
			varyTies(rng, kid)
		}
		want, got := newTable(T), newTable(T)
		dw := nodeDecisions{split: make([]uint64, splitWords(tri))}
		dg := nodeDecisions{split: make([]uint64, splitWords(tri))}
		if leaf {
			dw.split, dg.split = nil, nil
		}
		r.aggregateOrSplit(want, kid, q, false, 0, dw, leaf)
		r.aggregateCached(got, kid, q, dg, leaf)
		sameAggregate(t, iter, T, leaf, got, want, dg, dw)
	}
}

func TestAggregateCachedMatchesGeneric(t *testing.T) { checkAggregateCached(t) }

// varyTies changes a child's best qualities at random around the
// aggregate's, which kid holds: kept equal, another value, the same value
// with another gain, the same value and gain with another loss, NaN, or
// anything.
func varyTies(rng *rand.Rand, kid table) {
	for k := range kid.v {
		switch rng.IntN(6) {
		case 0: // the same quality
		case 1:
			kid.v[k] += rng.NormFloat64()
		case 2: // same value, another gain
			kid.g[k] += rng.NormFloat64()
		case 3: // same value and gain, another loss
			kid.l[k] += rng.NormFloat64()
		case 4:
			kid.v[k] = math.NaN()
		default:
			kid.set(k, quality{rng.NormFloat64(), rng.Float64(), rng.Float64()})
		}
	}
}

// sameAggregate fails the test unless got and want (tables by column of
// T slices) and their split decisions dg and dw hold the same bits.
func sameAggregate(t *testing.T, iter, T int, leaf bool, got, want table, dg, dw nodeDecisions) {
	t.Helper()
	for j := 0; j < T; j++ {
		lo, hi := j*T, j*T+j+1
		if !sameBits(want.v[lo:hi], got.v[lo:hi]) || !sameBits(want.g[lo:hi], got.g[lo:hi]) || !sameBits(want.l[lo:hi], got.l[lo:hi]) {
			t.Fatalf("iter %d (T=%d leaf=%v): column %d: %v %v %v, want %v %v %v", iter, T, leaf, j,
				got.v[lo:hi], got.g[lo:hi], got.l[lo:hi], want.v[lo:hi], want.g[lo:hi], want.l[lo:hi])
		}
	}
	for k := range dw.split {
		if dw.split[k] != dg.split[k] {
			t.Fatalf("iter %d (T=%d): split word %d: %x, want %x", iter, T, k, dg.split[k], dw.split[k])
		}
	}
}

// randomCells fills values with a leaf's cells: zeros, small integers
// that tie, and values up to leaves.
func randomCells(rng *rand.Rand, values []float64, leaves int) {
	for k := range values {
		switch rng.IntN(4) {
		case 0: // zero
		case 1:
			values[k] = float64(rng.IntN(4)) // ties
		default:
			values[k] = rng.Float64() * float64(leaves)
		}
	}
}
