package aggregate

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// envelope returns the breakpoints of the upper envelope over p in [0,1]
// of the lines p*(G+L) - L, by brute force over candidate intersections.
func envelope(lines [][2]float64) []float64 {
	value := func(l [2]float64, p float64) float64 { return p*(l[0]+l[1]) - l[1] }
	bestAt := func(p float64) int {
		b := 0
		for i, l := range lines {
			if value(l, p) > value(lines[b], p)+1e-12 {
				b = i
			}
		}
		return b
	}
	var cands []float64
	for i := range lines {
		for j := range lines {
			si, sj := lines[i][0]+lines[i][1], lines[j][0]+lines[j][1]
			if sj > si {
				if p := (lines[j][1] - lines[i][1]) / (sj - si); p > 0 && p < 1 {
					cands = append(cands, p)
				}
			}
		}
	}
	sort.Float64s(cands)
	var breaks []float64
	for _, p := range cands {
		lo, hi := bestAt(p-1e-9), bestAt(p+1e-9)
		if math.Abs(value(lines[lo], p-1e-9)-value(lines[hi], p-1e-9)) > 1e-12 &&
			(len(breaks) == 0 || p-breaks[len(breaks)-1] > 1e-7) {
			breaks = append(breaks, p)
		}
	}
	return breaks
}

func TestSignificantExactIsTheEnvelope(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 17))
	tested := 0
	for iter := 0; iter < 60 && tested < 25; iter++ {
		in := randomInput(rng, 1+iter%2, 2+iter%3, 2)
		if countDerivations(in.Tree, 0, 0, in.Slices-1) > 800 {
			continue
		}
		tested++
		st, err := NewSpatiotemporal(in, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var lines [][2]float64
		for _, parts := range dedupeParts(enumerate(in.Tree, 0, 0, in.Slices-1)) {
			var gl [2]float64
			for _, p := range parts {
				g, l := naiveQuality(in, p, GainEntropy)
				gl[0] += g
				gl[1] += l
			}
			lines = append(lines, gl)
		}
		want := envelope(lines)
		levels, err := SignificantExact(st, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(levels) != len(want)+1 {
			t.Fatalf("iter %d: %d levels, the envelope has %d breakpoints %v", iter, len(levels), len(want), want)
		}
		for i, b := range want {
			if math.Abs(levels[i].PHigh-b) > 1e-7 || levels[i+1].PLow != levels[i].PHigh {
				t.Fatalf("iter %d: breakpoint %d at %v, want %v", iter, i, levels[i].PHigh, b)
			}
		}
		if levels[0].PLow != 0 || levels[len(levels)-1].PHigh != 1 {
			t.Fatalf("levels do not cover [0,1]: %+v", levels)
		}
	}
	if tested < 10 {
		t.Fatalf("only %d instances tested", tested)
	}
}

func TestSignificantOn64Leaves(t *testing.T) {
	in := lcgModel(4, 3, 30)
	st, err := NewSpatiotemporal(in, Options{Normalize: true})
	if err != nil {
		t.Fatal(err)
	}
	levels, err := SignificantExact(st, 0)
	if err != nil {
		t.Fatal(err)
	}
	first, last := levels[0], levels[len(levels)-1]
	if len(first.Partition.Parts) != 64*30 || len(last.Partition.Parts) != 1 {
		t.Fatalf("from %d to %d parts", len(first.Partition.Parts), len(last.Partition.Parts))
	}
	// lpaggreg's dichotomy saw the last transition between 0.501953125 and
	// 0.502929688 (threshold 0.001).
	if p := last.PLow; p < 0.501953125 || p > 0.502929688 {
		t.Errorf("one part from p = %v", p)
	}
	for i, l := range levels {
		if !(l.PLow < l.PHigh) {
			t.Fatalf("level %d has range [%v, %v]", i, l.PLow, l.PHigh)
		}
		mid, err := st.Solve((l.PLow + l.PHigh) / 2)
		if err != nil {
			t.Fatal(err)
		}
		if !samePartition(mid, l.Partition) {
			t.Fatalf("level %d [%v, %v]: the optimum at the midpoint differs", i, l.PLow, l.PHigh)
		}
		if i > 0 && !(l.Partition.Gain > levels[i-1].Partition.Gain) {
			t.Fatalf("gain does not increase with p at level %d", i)
		}
	}
	dich, err := SignificantDichotomy(st, 1e-3)
	if err != nil {
		t.Fatal(err)
	}
	exactSet := map[[2]float64]bool{}
	for _, l := range levels {
		exactSet[[2]float64{l.Partition.Gain, l.Partition.Loss}] = true
	}
	for _, l := range dich {
		if !exactSet[[2]float64{l.Partition.Gain, l.Partition.Loss}] {
			t.Fatalf("dichotomy found a partition (p=%v) the exact sweep missed", l.Partition.P)
		}
	}
	if len(dich) > len(levels) {
		t.Fatalf("dichotomy found %d partitions, exact %d", len(dich), len(levels))
	}
	t.Logf("%d exact levels, %d by dichotomy", len(levels), len(dich))
}

// Solving between two kept solutions (sweep.go) must find exactly what
// solving from scratch finds.
func TestSweepReuseMatchesFreshSolves(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 37))
	for iter := 0; iter < 20; iter++ {
		in := randomInput(rng, 3, 4+iter%9, 2+iter%3)
		opt := Options{Normalize: iter%2 == 0}
		if iter%3 == 2 {
			opt.Gain = GainSize
		}
		reusing, err := NewSpatiotemporal(in, opt)
		if err != nil {
			t.Fatal(err)
		}
		opt.SweepBytes = -1
		fresh, err := NewSpatiotemporal(in, opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, res := range []float64{0, 1e-3} {
			got, err := SignificantExact(reusing, res)
			if err != nil {
				t.Fatal(err)
			}
			want, err := SignificantExact(fresh, res)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("iter %d: %d levels reusing solutions, %d from scratch", iter, len(got), len(want))
			}
			for i := range got {
				g, w := got[i], want[i]
				if math.Abs(g.PHigh-w.PHigh) > 1e-12 || !samePartition(g.Partition, w.Partition) {
					t.Fatalf("iter %d level %d: [%v, %v] gain %v loss %v, want [%v, %v] gain %v loss %v", iter, i,
						g.PLow, g.PHigh, g.Partition.Gain, g.Partition.Loss, w.PLow, w.PHigh, w.Partition.Gain, w.Partition.Loss)
				}
			}
		}
		if k := reusing.kept.Load(); k != 0 {
			t.Fatalf("iter %d: %d bytes still kept after the sweep", iter, k)
		}
	}
}

// Every solve between two kept solutions is the optimum at its p.
func TestSolveBetweenIsOptimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 43))
	for iter := 0; iter < 20; iter++ {
		in := randomInput(rng, 3, 3+iter%10, 3)
		st, err := NewSpatiotemporal(in, Options{Normalize: true})
		if err != nil {
			t.Fatal(err)
		}
		lo, _ := st.solveReusing(0.1, nil, nil, 2, false, nil)
		hi, _ := st.solveReusing(0.6, nil, nil, 2, false, nil)
		if lo.kept == nil || hi.kept == nil {
			t.Fatal("solutions were not kept")
		}
		for _, p := range []float64{0.1, 0.2, 0.35, 0.5, 0.6} {
			mid, _ := st.solveReusing(p, lo, hi, 1+iter%2, false, nil)
			want, _ := st.Solve(p)
			if math.Abs(mid.Value-want.Value) > 1e-12 {
				t.Fatalf("iter %d p=%v: value %v reusing, %v from scratch", iter, p, mid.Value, want.Value)
			}
			// The partition must be made of the model's blocks and cover
			// every cell once.
			covered := make([]int, len(in.Tree.Leaves)*in.Slices)
			for _, pt := range mid.Parts {
				for leaf := in.Tree.LeafLo[pt.Node]; leaf < in.Tree.LeafHi[pt.Node]; leaf++ {
					for s := pt.First; s <= pt.Last; s++ {
						covered[int(leaf)*in.Slices+int(s)]++
					}
				}
			}
			for c, n := range covered {
				if n != 1 {
					t.Fatalf("iter %d p=%v: cell %d covered %d times", iter, p, c, n)
				}
			}
			st.release(mid)
		}
		st.release(lo)
		st.release(hi)
	}
}

// lpaggreg's dichotomy (threshold 0.001, partition comparison fixed) found
// 176 distinct partitions on the 100-leaf synthetic model and 426 on the
// 900-leaf one (measured with lpaggreg); Ocelotl's search here finds the
// same numbers, and each of them is one of the exact sweep's levels.
func TestDichotomyMatchesLpaggregCounts(t *testing.T) {
	cases := []struct{ fanout, want int }{{10, 176}}
	if !testing.Short() {
		cases = append(cases, struct{ fanout, want int }{30, 426})
	}
	for _, c := range cases {
		in := lcgModel(c.fanout, 2, 30)
		st, err := NewSpatiotemporal(in, Options{Normalize: true})
		if err != nil {
			t.Fatal(err)
		}
		dich, err := SignificantDichotomy(st, 1e-3)
		if err != nil {
			t.Fatal(err)
		}
		if len(dich) != c.want {
			t.Errorf("%d leaves: %d partitions, lpaggreg found %d", c.fanout*c.fanout, len(dich), c.want)
		}
		if c.fanout > 10 {
			continue // the exact sweep of 900 leaves takes a minute
		}
		exact, err := SignificantExact(st, 0)
		if err != nil {
			t.Fatal(err)
		}
		found := map[[2]float64]bool{}
		for _, l := range exact {
			found[[2]float64{l.Partition.Gain, l.Partition.Loss}] = true
		}
		for _, l := range dich {
			if !found[[2]float64{l.Partition.Gain, l.Partition.Loss}] {
				t.Fatalf("%d leaves: the dichotomy's partition at p = %v is not a level of the exact sweep", c.fanout*c.fanout, l.Partition.P)
			}
		}
		t.Logf("%d leaves: %d partitions by dichotomy, %d exactly", c.fanout*c.fanout, len(dich), len(exact))
	}
}

func TestSignificantCompactDropsOnlyTheParts(t *testing.T) {
	in := lcgModel(3, 2, 12)
	st, err := NewSpatiotemporal(in, Options{Normalize: true})
	if err != nil {
		t.Fatal(err)
	}
	full, err := SignificantExact(st, 0)
	if err != nil {
		t.Fatal(err)
	}
	compact, err := SignificantCompact(st, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(full) != len(compact) || len(full) < 10 {
		t.Fatalf("%d levels, %d compact", len(full), len(compact))
	}
	for i := range full {
		f, c := full[i], compact[i]
		if c.Partition.Parts != nil || c.Partition.NumParts != len(f.Partition.Parts) || f.Partition.NumParts != len(f.Partition.Parts) ||
			!nearlyEqual(c.PHigh, f.PHigh) || !samePartition(c.Partition, f.Partition) {
			t.Fatalf("level %d: %+v compact, %+v full", i, c, f)
		}
	}
}
