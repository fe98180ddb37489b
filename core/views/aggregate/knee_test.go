package aggregate

import (
	"math"
	"math/rand/v2"
	"testing"
)

// sameLevel compares two levels bit for bit: range, and the partition's
// measures.
func sameLevel(a, b Level) bool {
	bits := math.Float64bits
	pa, pb := a.Partition, b.Partition
	return bits(a.PLow) == bits(b.PLow) && bits(a.PHigh) == bits(b.PHigh) && bits(pa.Gain) == bits(pb.Gain) &&
		bits(pa.Loss) == bits(pb.Loss) && bits(pa.Value) == bits(pb.Value) && bits(pa.P) == bits(pb.P) &&
		pa.NumParts == pb.NumParts
}

// TestKneeMatchesTheSweep checks Knee against the level Recommend picks
// among all the levels of the sweep, on random models of every kind, with
// normalised and raw measures, both tie rules and two resolutions: the
// same level, bit for bit, with fewer solves.
func TestKneeMatchesTheSweep(t *testing.T) {
	n := 60
	if testing.Short() {
		n = 15
	}
	solves, sweepSolves := 0, 0
	for seed := range uint64(n) {
		in := kneeModel(seed)
		for _, kind := range []Kind{KindSpatiotemporal, KindSpatial, KindTemporal} {
			for _, opt := range []Options{{Normalize: true}, {}, {Normalize: true, Ties: TiesLpaggreg}} {
				e, err := New(kind, in, opt)
				if err != nil {
					t.Fatal(err)
				}
				g0, l0 := 1.0, 1.0
				if !opt.Normalize {
					g0, l0 = e.Scale()
				}
				for _, res := range []float64{0, 1e-3} {
					var counted int
					ctl := &Control{Progress: func(s int, _ float64) { counted = s }}
					levels, err := SignificantCompactControl(e, res, ctl)
					if err != nil {
						t.Fatal(err)
					}
					sweepSolves += counted
					i, _, _ := Recommend(levels, RuleKnee, g0, l0)
					ctl = &Control{Progress: func(s int, _ float64) { counted = s }}
					got, err := Knee(e, res, g0, l0, ctl)
					if err != nil {
						t.Fatal(err)
					}
					solves += counted
					if !sameLevel(got, levels[i]) {
						t.Fatalf("seed %d, %s, %+v, resolution %v: knee %+v %+v, the sweep recommends level %d of %d: %+v %+v",
							seed, kind, opt, res, got, *got.Partition, i, len(levels), levels[i], *levels[i].Partition)
					}
				}
			}
		}
	}
	t.Logf("%d solves for the knees, %d for the sweeps", solves, sweepSolves)
}

// kneeModel is a random model of one of three families, dense or sparse.
func kneeModel(seed uint64) Input {
	rng := rand.New(rand.NewPCG(seed, 21))
	var in Input
	switch seed % 3 {
	case 0:
		in = sparseModel(rng)
	case 1:
		in = identityInput(seed)
	default:
		in = randomInput(rng, 3, 2+rng.IntN(20), 1+rng.IntN(4))
	}
	if seed%2 == 1 {
		in = toSparse(in)
	}
	return in
}
