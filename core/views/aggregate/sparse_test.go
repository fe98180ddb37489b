package aggregate

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/sparse"
)

// toSparse returns in with its values held by their non-zero entries.
func toSparse(in Input) Input {
	out := in
	out.Cells = sparse.FromDense(in.Values, in.States)
	out.Values = nil
	return out
}

// TestSparseResultsMatchRecordedHashes runs the cases of
// TestResultsMatchRecordedHashes (zeros, subnormal numbers, values near the
// overflow guard, exact ties, chains, sweeps) on the sparse form of their
// inputs: the same bits.
func TestSparseResultsMatchRecordedHashes(t *testing.T) {
	defer func(m int) { mapMin = m }(mapMin)
	mapMin = 1
	got := identityHashes(t, toSparse)
	for name, h := range got {
		if want := recordedHashes[name]; h != want {
			t.Errorf("%s: hash %s, recorded %s", name, h, want)
		}
	}
}

// sparseModel makes a random model shaped like a profile's: many states,
// each resource using a few of them, a cell a handful; states that last
// one slice, runs of slices, or most slices; values that tie exactly,
// subnormal ones, and some near the overflow guard.
func sparseModel(rng *rand.Rand) Input {
	in := randomInput(rng, 1+rng.IntN(3), 1+rng.IntN(24), 1+rng.IntN(300))
	T, X := in.Slices, in.States
	clear(in.Values)
	ties := []float64{0.25, 0.5, 1, 1.0 / 3}
	value := func() float64 {
		switch rng.IntN(10) {
		case 0, 1, 2:
			return ties[rng.IntN(len(ties))]
		case 3:
			return 5e-324 * float64(1+rng.IntN(100))
		case 4:
			if rng.IntN(20) == 0 {
				return 1e299 * rng.Float64()
			}
		}
		return rng.Float64()
	}
	for leaf := range len(in.Tree.Leaves) {
		if rng.IntN(8) == 0 {
			continue // a resource with no data
		}
		vocabulary := 1 + rng.IntN(min(X, 12))
		for range vocabulary {
			x := rng.IntN(X)
			switch rng.IntN(3) {
			case 0: // one slice
				in.Values[(leaf*T+rng.IntN(T))*X+x] = value()
			case 1: // a run
				a := rng.IntN(T)
				b := min(T, a+1+rng.IntN(T))
				v := value()
				for t := a; t < b; t++ {
					if rng.IntN(3) == 0 {
						v = value()
					}
					in.Values[(leaf*T+t)*X+x] = v
				}
			default: // most slices
				for t := range T {
					if rng.IntN(5) > 0 {
						in.Values[(leaf*T+t)*X+x] = value()
					}
				}
			}
		}
	}
	return in
}

// hashSolutions hashes what engines of every kind and option give on in.
func hashSolutions(t *testing.T, in Input) string {
	h := sha256.New()
	ps := []float64{0, 0.01, 0.2, 0.5, 0.61, 0.9, 1}
	for _, kind := range []Kind{KindSpatiotemporal, KindSpatial, KindTemporal} {
		for _, opt := range []Options{
			{Normalize: true},
			{CacheBytes: 1},
			{Normalize: true, Gain: GainSize, Ties: TiesLpaggreg},
			{Entities: EntitiesCells, Gain: GainEntropy},
			{Window: &Window{First: in.Slices / 3, Last: in.Slices - 1}, Normalize: true},
		} {
			if kind != KindSpatial && (opt.Entities != "" || opt.Window != nil) {
				continue
			}
			e, err := New(kind, in, opt)
			if err != nil {
				t.Fatal(err)
			}
			g0, l0 := e.Scale()
			hashPartition(h, &Partition{Gain: g0, Loss: l0})
			for _, p := range ps {
				part, err := e.Solve(p)
				if err != nil {
					t.Fatal(err)
				}
				hashPartition(h, part)
			}
			for n := int32(0); n < int32(in.Tree.Len()); n++ {
				i := int(n) % in.Slices
				g, l := e.PartQuality(n, i, in.Slices-1)
				hashPartition(h, &Partition{Gain: g, Loss: l})
			}
		}
		e, err := New(kind, in, Options{Normalize: true})
		if err != nil {
			t.Fatal(err)
		}
		levels, err := SignificantExact(e, 0)
		if err != nil {
			t.Fatal(err)
		}
		hashLevels(h, levels)
		if levels, err = SignificantDichotomy(e, 1e-3); err != nil {
			t.Fatal(err)
		}
		hashLevels(h, levels)
	}
	means := make([]float64, in.States)
	for n := int32(0); n < int32(in.Tree.Len()); n++ {
		MeanValues(in, Part{Node: n, First: 0, Last: int32(in.Slices - 1)}, means)
		hashPartition(h, &Partition{Parts: nil, Gain: means[0], Loss: means[len(means)-1]})
		for _, v := range means {
			hashPartition(h, &Partition{Value: v})
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestSparseMatchesDense solves random profile-like models, dense and
// sparse, with every kind, measure, tie rule, window and cache setting,
// and compares every bit: the partitions, their parts, gains, losses and
// values, the scales, the measures of blocks, the levels of the sweeps
// and the mean values of blocks.
func TestSparseMatchesDense(t *testing.T) {
	n := 120
	if testing.Short() {
		n = 30
	}
	for seed := range uint64(n) {
		in := sparseModel(rand.New(rand.NewPCG(seed, 11)))
		dense, sp := hashSolutions(t, in), hashSolutions(t, toSparse(in))
		if dense != sp {
			t.Fatalf("seed %d (%d leaves x %d slices x %d states, %d non-zero): sparse results differ from dense ones",
				seed, len(in.Tree.Leaves), in.Slices, in.States, toSparse(in).Cells.NonZero())
		}
	}
}

// TestSparseIntervalTermsMatchDense compares the interval sums of sparse
// stats, run by run and by the dense kernels, with the dense pass, on
// rows of every density.
func TestSparseIntervalTermsMatchDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for iter := range 400 {
		T, X := 1+rng.IntN(60), 1+rng.IntN(40)
		in := Input{Slices: T, States: X, Values: make([]float64, T*X)}
		density := rng.Float64()
		for k := range in.Values {
			if rng.Float64() < density/float64(1+rng.IntN(4)) {
				in.Values[k] = []float64{rng.Float64(), 1, 0.5, 1e-310}[rng.IntN(4)]
			}
		}
		w := newIntervalScratch(T, X)
		dense := leafStats(in, 0, make([]float64, T), make([]float64, T*X), nil)
		xl, tot := intervalTerms(dense, T, X, &w)
		wantXl, wantTot := append([]float64(nil), xl...), append([]float64(nil), tot...)
		sin := toSparse(in)
		st := leafStats(sin, 0, make([]float64, T), nil, &w.sp)
		if !sameBits(st.ent, dense.ent) {
			t.Fatalf("iteration %d: leaf entropies differ", iter)
		}
		xl, tot = intervalTerms(st, T, X, &w)
		if !sameBits(xl, wantXl) || !sameBits(tot, wantTot) {
			t.Fatalf("iteration %d (T %d, X %d, density %.2f): sparse interval terms differ", iter, T, X, density)
		}
	}
}

// TestSparseInputErrors checks that a malformed sparse input is refused
// with the cell it concerns named.
func TestSparseInputErrors(t *testing.T) {
	in := toSparse(twoLeaves([]float64{0.5, 0.5, 1, 0}, []float64{0, 1, 0.25, 0.75}))
	if _, err := New(KindSpatiotemporal, in, Options{}); err != nil {
		t.Fatal(err)
	}
	bad := func(name string, change func(c *sparse.Cells), want string) {
		c := *in.Cells
		c.Start = append([]int64(nil), c.Start...)
		c.State = append([]int32(nil), c.State...)
		c.Value = append([]float64(nil), c.Value...)
		change(&c)
		b := in
		b.Cells = &c
		_, err := New(KindSpatiotemporal, b, Options{})
		if err == nil || !containsAll(err.Error(), want) {
			t.Errorf("%s: error %v, want one saying %q", name, err, want)
		}
	}
	bad("negative", func(c *sparse.Cells) { c.Value[3] = -1 }, `value -1 at leaf "b", slice 0, state 1`)
	bad("NaN", func(c *sparse.Cells) { c.Value[2] = math.NaN() }, `value NaN at leaf "a", slice 1, state 0`)
	bad("order", func(c *sparse.Cells) { c.State[0], c.State[1] = 1, 0 }, "cell 0: category 0 is out of order")
	bad("range", func(c *sparse.Cells) { c.State[1] = 7 }, "not in [0, 2)")
	bad("offsets", func(c *sparse.Cells) { c.Start = c.Start[:2] }, "2 offsets for 4 cells")
	both := in
	both.Values = make([]float64, 8)
	if _, err := New(KindSpatiotemporal, both, Options{}); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("dense and sparse values: error %v", err)
	}
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// TestSparseLargeOptimaMatchRecordedHashes is TestLargeOptimaMatchRecordedHashes
// on the sparse form of the models (MACROSCOPE_LARGE_TESTS=1).
func TestSparseLargeOptimaMatchRecordedHashes(t *testing.T) {
	if os.Getenv("MACROSCOPE_LARGE_TESTS") == "" {
		t.Skip("set MACROSCOPE_LARGE_TESTS=1 to solve 1,000,000 leaves x 30 slices, sparse (minutes, 3 GB)")
	}
	check := func(name string, fill func(h hash.Hash) error) {
		h := sha256.New()
		if err := fill(h); err != nil {
			t.Fatal(err)
		}
		if got := hex.EncodeToString(h.Sum(nil))[:16]; got != recordedLarge[name] {
			t.Errorf("%s: hash %s, recorded %s", name, got, recordedLarge[name])
		}
	}
	check("sweep-900x30/exact", func(h hash.Hash) error {
		st, err := NewSpatiotemporal(toSparse(lcgModel(30, 2, 30)), Options{Normalize: true})
		if err != nil {
			return err
		}
		levels, err := SignificantExact(st, 0)
		if err == nil {
			hashLevels(h, levels)
		}
		return err
	})
	check("lcg-10^6x30/p=0.5", func(h hash.Hash) error {
		st, err := NewSpatiotemporal(toSparse(lcgModel(10, 6, 30)), Options{Normalize: true})
		if err != nil {
			return err
		}
		part, err := st.Solve(0.5)
		if err == nil {
			hashPartition(h, part)
		}
		return err
	})
}

func ExampleInput_sparse() {
	// Two resources, two slices, three states; the cells hold their
	// non-zero values only.
	tree := twoLeaves(nil, nil).Tree
	in := Input{Tree: tree, Slices: 2, States: 3, Cells: &sparse.Cells{
		Start: []int64{0, 1, 2, 4, 5},
		State: []int32{0, 0, 1, 2, 2},
		Value: []float64{1, 1, 0.5, 0.5, 1},
	}}
	st, err := NewSpatiotemporal(in, Options{Normalize: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	part, _ := st.Solve(0.6)
	for _, pt := range part.Parts {
		fmt.Printf("%s slices %d-%d\n", tree.Names[pt.Node], pt.First, pt.Last)
	}
	// Output:
	// a slices 0-1
	// b slices 0-1
}
