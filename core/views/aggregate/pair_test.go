package aggregate

import (
	"math"
	"math/rand/v2"
	"testing"
)

// samePartitionBits reports whether a and b have the same parts and the
// same measures, bit for bit.
func samePartitionBits(a, b *Partition) bool {
	return key(a.Parts) == key(b.Parts) && a.NumParts == b.NumParts && a.P == b.P &&
		math.Float64bits(a.Gain) == math.Float64bits(b.Gain) &&
		math.Float64bits(a.Loss) == math.Float64bits(b.Loss) &&
		math.Float64bits(a.Value) == math.Float64bits(b.Value)
}

// thirdModel gives the seed's model of a test that takes, in turn, lcg
// (an lpaggreg model), a tied model and a sparse profile.
func thirdModel(rng *rand.Rand, seed int, lcg Input) Input {
	switch seed % 3 {
	case 1:
		return tiedModel(rng)
	case 2:
		return toSparse(sparseModel(rng))
	}
	return lcg
}

// TestSolvePairMatchesTwoSolves: two p solved in one traversal give each
// the partition, and the measures, of its own solve, bit for bit (listed
// or only measured), on tied, sparse, lpaggreg and huge-value models
// (NaN values at p = 0, so that one run turns to the general search and
// the other does not), dense and sparse, normalised or not, with both
// gain measures.
func TestSolvePairMatchesTwoSolves(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 3))
	pairs := [][2]float64{{0, 1}, {0.25, 0.75}, {0.5, 0}, {0.9, 0.9}}
	for seed := 0; seed < 60; seed++ {
		var in Input
		switch seed % 4 {
		case 0:
			in = tiedModel(rng)
		case 1:
			in = lcgModel(2+seed%3, 2+seed%2, 5+seed%20)
		case 2:
			in = sparseModel(rng)
		case 3: // huge values: infinite gains, NaN values at p = 0
			in = tiedModel(rng)
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
			opt := Options{Normalize: seed%2 == 0, Ties: TiesLpaggreg, CacheBytes: 1}
			if seed%5 == 0 {
				opt.Gain = GainSize
			}
			e, err := NewSpatiotemporal(m, opt)
			if err != nil {
				t.Fatal(err)
			}
			if !e.pairs() {
				t.Fatal("a solver without cached qualities does not share terms")
			}
			ps := pairs[seed%len(pairs)]
			for _, compact := range []bool{false, true} {
				a, b, err := e.solvePair(ps[0], ps[1], compact, nil)
				if err != nil {
					t.Fatal(err)
				}
				for x, got := range []*Partition{a, b} {
					want, err := e.solve(ps[x], nil, false, compact, e.opt.Workers, nil)
					if err != nil {
						t.Fatal(err)
					}
					if !samePartitionBits(got, want) {
						t.Fatalf("seed %d (sparse %v, compact %v), p = %v: %d parts (%v, %v, %v), want %d (%v, %v, %v)",
							seed, sparse, compact, ps[x], got.NumParts, got.Gain, got.Loss, got.Value,
							want.NumParts, want.Gain, want.Loss, want.Value)
					}
				}
			}
		}
	}
}

// TestKneeWithPairedEnds: the knee, and the sweeps, of models without
// cached qualities, which solve p = 0 and p = 1 in one traversal, are
// those found with the two solved one after the other, bit for bit.
func TestKneeWithPairedEnds(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 24))
	defer func() { noPairs = false }()
	for seed := 0; seed < 30; seed++ {
		in := thirdModel(rng, seed, lcgModel(3+seed%3, 2+seed%2, 10+seed%30))
		e, err := NewSpatiotemporal(in, Options{Normalize: seed%2 == 0, CacheBytes: 1})
		if err != nil {
			t.Fatal(err)
		}
		g0, l0 := e.Scale()
		var levels [2][]Level
		var knees [2]Level
		for k, off := range []bool{false, true} {
			noPairs = off
			if e.pairs() == off {
				t.Fatalf("noPairs %v: pairs %v", off, e.pairs())
			}
			if knees[k], err = Knee(e, 0, g0, l0, nil); err != nil {
				t.Fatal(err)
			}
			if levels[k], err = SignificantCompact(e, 0); err != nil {
				t.Fatal(err)
			}
		}
		noPairs = false
		if !sameLevel(knees[0], knees[1]) {
			t.Fatalf("seed %d: knee %+v, solved apart %+v", seed, knees[0], knees[1])
		}
		if len(levels[0]) != len(levels[1]) {
			t.Fatalf("seed %d: %d levels, solved apart %d", seed, len(levels[0]), len(levels[1]))
		}
		for i := range levels[0] {
			if !sameLevel(levels[0][i], levels[1][i]) {
				t.Fatalf("seed %d: level %d %+v, solved apart %+v", seed, i, levels[0][i], levels[1][i])
			}
		}
	}
}

// TestMeasureInParallel: the measures of a solution without its parts,
// taken on several goroutines (no cached qualities) or on one, are those
// of the listed partition, bit for bit.
func TestMeasureInParallel(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 24))
	for seed := 0; seed < 40; seed++ {
		in := thirdModel(rng, seed, lcgModel(2+seed%4, 2+seed%3, 5+seed%40))
		e, err := NewSpatiotemporal(in, Options{Normalize: seed%2 == 0, CacheBytes: 1})
		if err != nil {
			t.Fatal(err)
		}
		p := rng.Float64()
		full, err := e.Solve(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, workers := range []int{1, 2, 5} {
			m, err := e.solve(p, nil, false, true, workers, nil)
			if err != nil {
				t.Fatal(err)
			}
			if m.Parts != nil || m.NumParts != len(full.Parts) || math.Float64bits(m.Gain) != math.Float64bits(full.Gain) ||
				math.Float64bits(m.Loss) != math.Float64bits(full.Loss) || math.Float64bits(m.Value) != math.Float64bits(full.Value) {
				t.Fatalf("seed %d, %d workers: %d parts (%v, %v, %v), listed %d (%v, %v, %v)", seed, workers,
					m.NumParts, m.Gain, m.Loss, m.Value, len(full.Parts), full.Gain, full.Loss, full.Value)
			}
		}
	}
}

// TestSolvePairSameOnAnyWorkers: the two partitions solved in one
// traversal do not depend on the number of workers (the traversal's
// and the listing's, which runs on half of them for each), bit for bit.
func TestSolvePairSameOnAnyWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 4))
	for seed := 0; seed < 24; seed++ {
		in := thirdModel(rng, seed, lcgModel(3+seed%3, 2+seed%2, 10+seed%30))
		for _, compact := range []bool{false, true} {
			var first [2]*Partition
			for _, workers := range []int{1, 2, 3, 4} {
				e, err := NewSpatiotemporal(in, Options{Normalize: seed%2 == 0, CacheBytes: 1, Workers: workers})
				if err != nil {
					t.Fatal(err)
				}
				a, b, err := e.solvePair(0, 1, compact, nil)
				if err != nil {
					t.Fatal(err)
				}
				if workers == 1 {
					first = [2]*Partition{a, b}
					continue
				}
				for x, got := range []*Partition{a, b} {
					if !samePartitionBits(got, first[x]) {
						t.Fatalf("seed %d (compact %v), %d workers, p = %d: %d parts, on one worker %d",
							seed, compact, workers, x, got.NumParts, first[x].NumParts)
					}
				}
			}
		}
	}
}
