package aggregate

import (
	"math"
	"math/rand/v2"
	"testing"
)

// keptFor returns CacheBytes with room for the lines of k nodes.
func keptFor(in Input, k int) int64 {
	T := in.Slices
	return int64(k) * int64(T*(T+1)/2) * 16
}

// TestSomeLinesChangeNothing: an engine that keeps the qualities of some
// nodes only (the cache too small for them all) solves, measures, and
// finds the knee of random models, dense and sparse, exactly as one that
// keeps none: the same parts, the same bits of every measure, with p = 0
// and 1 solved in one traversal or apart.
func TestSomeLinesChangeNothing(t *testing.T) {
	bits := math.Float64bits
	defer func() { noPairs = false }()
	for seed := uint64(0); seed < 60; seed++ {
		dense := identityInput(seed)
		for f, in := range []Input{dense, toSparse(dense)} {
			nodes := in.Tree.Len()
			for _, norm := range []bool{false, true} {
				for _, gain := range []GainMeasure{GainEntropy, GainSize} {
					none, err := NewSpatiotemporal(in, Options{Normalize: norm, CacheBytes: 1, Gain: gain})
					if err != nil {
						t.Fatal(err)
					}
					for _, k := range []int{1, (nodes + 1) / 2, nodes - 1} {
						some, err := NewSpatiotemporal(in, Options{Normalize: norm, CacheBytes: keptFor(in, k), Gain: gain})
						if err != nil {
							t.Fatal(err)
						}
						if some.cache != nil || some.some == nil || len(some.some.lines) != k*some.tri {
							t.Fatalf("seed %d, %d nodes: room for %d, not the lines of %d", seed, nodes, k, k)
						}
						for _, p := range []float64{0, 0.05, 0.3, 0.5, 0.77, 0.999, 1} {
							a, err := some.Solve(p)
							if err != nil {
								t.Fatal(err)
							}
							b, err := none.Solve(p)
							if err != nil {
								t.Fatal(err)
							}
							if bits(a.Value) != bits(b.Value) || bits(a.Gain) != bits(b.Gain) || bits(a.Loss) != bits(b.Loss) || key(a.Parts) != key(b.Parts) {
								t.Fatalf("seed %d, form %d, normalize %v, gain %v, %d of %d kept, p %v: %v %v %v, not %v %v %v",
									seed, f, norm, gain, k, nodes, p, a.Value, a.Gain, a.Loss, b.Value, b.Gain, b.Loss)
							}
						}
						if !norm || gain != GainEntropy {
							continue
						}
						for _, off := range []bool{false, true} {
							noPairs = off
							for _, res := range []float64{0, 1e-3} {
								ka, err := Knee(some, res, 1, 1, nil)
								if err != nil {
									t.Fatal(err)
								}
								kb, err := Knee(none, res, 1, 1, nil)
								if err != nil {
									t.Fatal(err)
								}
								if !sameLevel(ka, kb) {
									t.Fatalf("seed %d, form %d, %d of %d kept, apart %v, resolution %v: knee %+v, not %+v", seed, f, k, nodes, off, res, ka, kb)
								}
							}
						}
						noPairs = false
					}
				}
			}
		}
	}
}

// TestSomeLinesDearestFirst: the lines kept are those of the nodes with
// children, then of the leaves whose terms cost the most; a node needs no
// stats when its lines and those of every node above it are kept.
func TestSomeLinesDearestFirst(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 43))
	for round := 0; round < 20; round++ {
		in := randomInput(rng, 3, 4+rng.IntN(30), 1+rng.IntN(5))
		for k := range in.Values {
			if rng.IntN(3) == 0 {
				in.Values[k] = 0 // states absent from some slices
			}
		}
		tr := in.Tree
		internal := 0
		for n := range int32(tr.Len()) {
			if !tr.IsLeaf(n) {
				internal++
			}
		}
		for _, k := range []int{1, internal, internal + 1, tr.Len() - 1} {
			e, err := NewSpatiotemporal(in, Options{CacheBytes: keptFor(in, k)})
			if err != nil {
				t.Fatal(err)
			}
			c := e.some
			least := math.MaxInt // the cheapest leaf kept
			for n := range int32(tr.Len()) {
				if tr.IsLeaf(n) && c.slot[n] >= 0 {
					least = min(least, costOfTerms(in, int(tr.LeafLo[n])))
				}
			}
			for n := range int32(tr.Len()) {
				kept := c.slot[n] >= 0
				switch {
				case !tr.IsLeaf(n) && !kept && k >= internal:
					t.Fatalf("round %d, room for %d: node %d has children and is not kept", round, k, n)
				case tr.IsLeaf(n) && !kept && costOfTerms(in, int(tr.LeafLo[n])) > least:
					t.Fatalf("round %d, room for %d: leaf %d dearer than one kept", round, k, n)
				}
				above := true
				for a := n; a >= 0 && above; a = tr.Parent[a] {
					above = c.slot[a] >= 0
				}
				if c.noStats[n] != above {
					t.Fatalf("round %d, room for %d: node %d needs no stats %v, want %v", round, k, n, c.noStats[n], above)
				}
			}
		}
	}
}

// TestCostOfTermsCountsTheLogs: costOfTerms counts the logs xlogColumns
// takes, for states absent from a quarter of the slices or more, and a
// log per interval otherwise (the costs of one state alone, against a
// count made by hand: slices 0, 3 and 7 of 8).
func TestCostOfTermsCountsTheLogs(t *testing.T) {
	in := Input{Slices: 8, States: 1, Values: []float64{1, 0, 0, 2, 0, 0, 0, 5}}
	// Column 0: 1 log. Columns 1, 2, 4, 5, 6: none (absent). Column 3:
	// one slice before, 2*(1+1) > 4 is false: 2 logs. Column 7: two
	// before, 2*3 > 8 is false: 3 logs.
	const tri = 36
	if got, want := costOfTerms(in, 0), 2*tri+3*(1+2+3); got != want {
		t.Fatalf("cost %d, want %d", got, want)
	}
	in.Values = []float64{1, 1, 1, 1, 1, 1, 1, 0} // absent once: every log
	if got, want := costOfTerms(in, 0), 2*tri+3*tri; got != want {
		t.Fatalf("cost %d, want %d", got, want)
	}
	in.Values = make([]float64, 8) // absent: nothing
	if got := costOfTerms(in, 0); got != 0 {
		t.Fatalf("cost %d, want 0", got)
	}
}
