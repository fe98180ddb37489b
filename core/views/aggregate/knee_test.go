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

// TestKneeHullBoundHoldsForEveryLevel checks the bound's argument on the
// levels of the sweep: for any two levels a and b, every level between
// them is at least kneeHullBound(a, b) from the ideal.
func TestKneeHullBoundHoldsForEveryLevel(t *testing.T) {
	pairs, tighter := 0, 0
	for seed := range uint64(30) {
		in := kneeModel(seed)
		for _, opt := range []Options{{Normalize: true}, {}, {Normalize: true, Ties: TiesLpaggreg}} {
			e, err := New(KindSpatiotemporal, in, opt)
			if err != nil {
				t.Fatal(err)
			}
			g0, l0 := 1.0, 1.0
			if !opt.Normalize {
				g0, l0 = e.Scale()
			}
			levels, err := SignificantCompact(e, 0)
			if err != nil {
				t.Fatal(err)
			}
			dist := func(p *Partition) float64 {
				g, l := p.Gain/g0, p.Loss/l0
				return (g-1)*(g-1) + l*l
			}
			for i := range levels {
				for k := i + 1; k < len(levels); k++ {
					a, b := levels[i].Partition, levels[k].Partition
					if !(a.P < b.P) {
						continue
					}
					bound := kneeHullBound(a, b, g0, l0)
					pairs++
					if bound > kneeBound(a.Gain/g0, b.Gain/g0, a.Loss/l0) {
						tighter++
					}
					for m := i + 1; m < k; m++ {
						if d := dist(levels[m].Partition); d < bound-1e-12 {
							t.Fatalf("seed %d, %+v: level %d between %d and %d is %v from the ideal, bound %v", seed, opt, m, i, k, d, bound)
						}
					}
				}
			}
		}
	}
	t.Logf("%d brackets, %d with a tighter bound than the box's", pairs, tighter)
}

// TestDistanceToPolygon compares the distance to a box cut by random
// half-planes with the least distance over a grid of its points.
func TestDistanceToPolygon(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for n := 0; n < 300; n++ {
		lo, hi := kneePoint{rng.Float64(), rng.Float64()}, kneePoint{}
		hi = kneePoint{lo.l + rng.Float64(), lo.g + rng.Float64()}
		poly := []kneePoint{lo, {hi.l, lo.g}, hi, {lo.l, hi.g}}
		type half struct{ alpha, beta, rhs float64 }
		var hs []half
		for k := 0; k < 2; k++ {
			h := half{rng.Float64(), rng.Float64(), 0}
			x := kneePoint{lo.l + rng.Float64()*(hi.l-lo.l), lo.g + rng.Float64()*(hi.g-lo.g)}
			h.rhs = h.alpha*x.g - h.beta*x.l
			hs = append(hs, h)
			poly = clipHalfPlane(poly, h.alpha, h.beta, h.rhs)
		}
		x := kneePoint{rng.Float64() * 2, rng.Float64() * 2}
		got := distanceToPolygon(poly, x)
		want := math.Inf(1)
		const steps = 300
		for a := 0; a <= steps; a++ {
			for b := 0; b <= steps; b++ {
				p := kneePoint{lo.l + (hi.l-lo.l)*float64(a)/steps, lo.g + (hi.g-lo.g)*float64(b)/steps}
				ok := true
				for _, h := range hs {
					ok = ok && h.alpha*p.g-h.beta*p.l <= h.rhs
				}
				if ok {
					want = min(want, (p.l-x.l)*(p.l-x.l)+(p.g-x.g)*(p.g-x.g))
				}
			}
		}
		if math.IsInf(want, 1) {
			continue // too thin for the grid
		}
		// The grid's least distance is at least the polygon's, and near it.
		if got > want+1e-12 || math.Sqrt(want)-math.Sqrt(got) > 2*(hi.l-lo.l+hi.g-lo.g)/steps {
			t.Fatalf("case %d: distance %v, grid %v", n, got, want)
		}
	}
}

// TestKneeMiddleOfItsLevel pins down what the solve at the middle of the
// knee's level returns (what the command line's overview shows): with
// resolution 0 the knee's own partition, by its gain and loss, or one no
// better there by more than the search's tolerance (the level's range is
// exact but for that tolerance); with a resolution, possibly another one,
// strictly better there, when the middle falls in a bracket the search
// left unsearched for being narrower than the resolution. That partition
// is then a level of the exact sweep, optimal within the knee level's
// range only: the resolution hid it, as SignificantExact documents. At
// the p where the knee found its partition (inside its range), the solve
// returns that partition's measures bit for bit (and its parts, but for
// merges of empty cells, which tie exactly).
func TestKneeMiddleOfItsLevel(t *testing.T) {
	n := 60
	if testing.Short() {
		n = 15
	}
	models := []Input{lcgModel(4, 3, 30), lcgModel(5, 3, 20)} // levels closer than the resolution near the knee
	for seed := range uint64(n) {
		models = append(models, kneeModel(seed))
	}
	hidden := 0
	for seed, in := range models {
		e, err := New(KindSpatiotemporal, in, Options{Normalize: true})
		if err != nil {
			t.Fatal(err)
		}
		var exact []Level
		for _, res := range []float64{0, 1e-2} {
			knee, err := Knee(e, res, 1, 1, nil)
			if err != nil {
				t.Fatal(err)
			}
			if p := knee.Partition.P; p > 0 { // where the knee found it: its partition, bit for bit
				at, err := e.Solve(p)
				if err != nil {
					t.Fatal(err)
				}
				// Partitions that differ only by merges that gain and lose
				// nothing (blocks of empty cells) have the same measures and
				// tie exactly: which one a solve returns depends on the order
				// of its sums (the knee's solves reuse the brackets' ends), so
				// their parts may differ, never their measures.
				bits := math.Float64bits
				tied := bits(at.Value) == bits(knee.Partition.Value)
				if bits(at.Gain) != bits(knee.Partition.Gain) || bits(at.Loss) != bits(knee.Partition.Loss) || at.NumParts != knee.Partition.NumParts && !tied {
					t.Fatalf("model %d, resolution %v: at p = %v, where the knee found its partition, %d parts %v %v; the knee's %d %v %v",
						seed, res, p, at.NumParts, at.Gain, at.Loss, knee.Partition.NumParts, knee.Partition.Gain, knee.Partition.Loss)
				}
			}
			mid := (knee.PLow + knee.PHigh) / 2
			got, err := e.Solve(mid)
			if err != nil {
				t.Fatal(err)
			}
			line := mid*(knee.Partition.Gain+knee.Partition.Loss) - knee.Partition.Loss
			if res == 0 {
				if exact, err = SignificantCompact(e, 0); err != nil {
					t.Fatal(err)
				}
			}
			if samePartition(got, knee.Partition) || !(got.Value > line+tolerance(got, knee.Partition)) {
				continue // the knee's partition, or one the search cannot tell from it
			}
			if res == 0 {
				t.Fatalf("model %d: at p = %v, the middle of the knee's exact level, gain %v loss %v, better than the level's %v %v",
					seed, mid, got.Gain, got.Loss, knee.Partition.Gain, knee.Partition.Loss)
			}
			hidden++
			found := false
			for _, l := range exact {
				if samePartition(l.Partition, got) {
					found = true
					if !(l.PLow >= knee.PLow && l.PHigh <= knee.PHigh && l.PHigh-l.PLow < res) {
						t.Fatalf("model %d: the hidden level [%v, %v] is not within the knee's [%v, %v], narrower than %v",
							seed, l.PLow, l.PHigh, knee.PLow, knee.PHigh, res)
					}
				}
			}
			if !found {
				t.Fatalf("model %d: the partition at the middle of the knee's level, p = %v, is no level of the exact sweep", seed, mid)
			}
		}
	}
	if hidden < 2 {
		t.Fatalf("%d models with a hidden level in the middle of the knee's, want the first two at least", hidden)
	}
	t.Logf("%d of %d models: the middle of the knee's level at resolution 1e-2 holds a hidden level", hidden, len(models))
}
