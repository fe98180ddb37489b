package aggregate

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"
)

// keptFor returns CacheBytes with room for the lines of k nodes.
func keptFor(in Input, k int) int64 {
	T := in.Slices
	return int64(k) * int64(T*(T+1)/2+somePad) * 16
}

// mostKept is the largest number of nodes whose lines an engine keeps
// without the cache holding them all.
func mostKept(in Input) int {
	tri := in.Slices * (in.Slices + 1) / 2
	return (in.Tree.Len()*tri - 1) / (tri + somePad)
}

// TestSomeLinesChangeNothing: an engine that keeps the qualities of some
// nodes only (the cache too small for them all) solves, measures, and
// finds the knee of random models, dense and sparse, exactly as one that
// keeps none: the same parts, the same bits of every measure, whether the
// solve fills the lines or reads them, with p = 0 and 1 solved in one
// traversal (which then fills them) or apart.
func TestSomeLinesChangeNothing(t *testing.T) {
	bits := math.Float64bits
	defer func() { noPairs = false }()
	for seed := uint64(0); seed < 60; seed++ {
		dense := identityInput(seed)
		for f, in := range []Input{dense, toSparse(dense)} {
			nodes := in.Tree.Len()
			for _, norm := range []bool{false, true} {
				for _, gain := range []GainMeasure{GainEntropy, GainSize} {
					opt := Options{Normalize: norm, CacheBytes: 1, Gain: gain}
					none, err := NewSpatiotemporal(in, opt)
					if err != nil {
						t.Fatal(err)
					}
					for _, k := range []int{1, (nodes + 1) / 2, nodes - 1} {
						if k = min(k, mostKept(in)); k == 0 {
							continue
						}
						opt.CacheBytes = keptFor(in, k)
						some, err := NewSpatiotemporal(in, opt)
						if err != nil {
							t.Fatal(err)
						}
						if _, err := some.Solve(0.5); err != nil || some.some.Load() != nil {
							t.Fatalf("seed %d: a plain solve keeps lines (%v)", seed, err)
						}
						some.solvesAgain()
						c := some.some.Load()
						if some.cache != nil || c == nil || len(c.lines) != k*(some.tri+somePad) {
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
						if c.state.Load() != someFull {
							t.Fatalf("seed %d: lines not filled by the solves", seed)
						}
						if !norm || gain != GainEntropy {
							continue
						}
						for _, off := range []bool{false, true} {
							noPairs = off
							fresh, err := NewSpatiotemporal(in, opt) // filled by the knee's first traversal
							if err != nil {
								t.Fatal(err)
							}
							for _, res := range []float64{0, 1e-3, 0} {
								ka, err := Knee(fresh, res, 1, 1, nil)
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
								if fresh.some.Load().state.Load() != someFull {
									t.Fatalf("seed %d: lines not filled by the knee", seed)
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
			if k = min(k, mostKept(in)); k == 0 {
				continue
			}
			e, err := NewSpatiotemporal(in, Options{CacheBytes: keptFor(in, k)})
			if err != nil {
				t.Fatal(err)
			}
			e.solvesAgain()
			c := e.some.Load()
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

// TestSomeLinesConcurrentSolves: solves running at the same time on an
// engine whose lines are being filled read none of them until one
// traversal has filled them all, and all give the bits of an engine that
// keeps none (run it with -race).
func TestSomeLinesConcurrentSolves(t *testing.T) {
	in := lcgModel(4, 3, 20)
	none, err := NewSpatiotemporal(in, Options{Normalize: true, CacheBytes: 1})
	if err != nil {
		t.Fatal(err)
	}
	ps := []float64{0.1, 0.3, 0.5, 0.7, 0.9, 0.2, 0.4, 0.6}
	want := make([]*Partition, len(ps))
	for x, p := range ps {
		if want[x], err = none.Solve(p); err != nil {
			t.Fatal(err)
		}
	}
	for round := 0; round < 4; round++ {
		some, err := NewSpatiotemporal(in, Options{Normalize: true, CacheBytes: keptFor(in, in.Tree.Len()/3)})
		if err != nil {
			t.Fatal(err)
		}
		some.solvesAgain()
		got := make([]*Partition, len(ps))
		errs := make([]error, len(ps))
		var wg sync.WaitGroup
		for x, p := range ps {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got[x], errs[x] = some.Solve(p)
			}()
		}
		wg.Wait()
		for x := range ps {
			if errs[x] != nil {
				t.Fatal(errs[x])
			}
			a, b := got[x], want[x]
			if math.Float64bits(a.Value) != math.Float64bits(b.Value) || key(a.Parts) != key(b.Parts) {
				t.Fatalf("round %d, p %v: %v, not %v", round, ps[x], a.Value, b.Value)
			}
		}
		if some.some.Load().state.Load() != someFull {
			t.Fatalf("round %d: lines not filled", round)
		}
	}
}
