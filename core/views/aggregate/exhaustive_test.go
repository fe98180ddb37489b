package aggregate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/hier"
)

// randomInput makes a random hierarchy (depth <= maxDepth, fan-out 1..3)
// with random values, some exactly zero.
func randomInput(rng *rand.Rand, maxDepth, slices, states int) Input {
	b := hier.NewBuilder("root")
	var grow func(node, depth int)
	grow = func(node, depth int) {
		if depth == maxDepth {
			return
		}
		k := 1 + rng.IntN(3)
		if depth == 0 {
			k = 2 + rng.IntN(2)
		}
		for c := 0; c < k; c++ {
			id := b.Add(node, fmt.Sprint(c))
			if rng.IntN(3) > 0 {
				grow(id, depth+1)
			}
		}
	}
	grow(0, 0)
	tree, _ := b.Build()
	in := Input{Tree: tree, Slices: slices, States: states, Values: make([]float64, len(tree.Leaves)*slices*states)}
	for i := range in.Values {
		if rng.IntN(5) > 0 {
			in.Values[i] = rng.Float64()
		}
	}
	return in
}

// enumerate lists every partition of block (n, [i..j]) consistent with the
// hierarchy and the order of time: a sequence of consecutive time pieces,
// each aggregated at n or split among n's children, recursively.
func enumerate(t *hier.Tree, n int32, i, j int) [][]Part {
	var out [][]Part
	// The first piece is [i..k]; the rest [k+1..j] is partitioned alike.
	for k := i; k <= j; k++ {
		var firsts [][]Part
		firsts = append(firsts, []Part{{Node: n, First: int32(i), Last: int32(k)}})
		if !t.IsLeaf(n) {
			combos := [][]Part{nil}
			for _, c := range t.Children[n] {
				var next [][]Part
				for _, sub := range enumerate(t, c, i, k) {
					for _, prefix := range combos {
						next = append(next, append(append([]Part(nil), prefix...), sub...))
					}
				}
				combos = next
			}
			firsts = append(firsts, combos...)
		}
		if k == j {
			out = append(out, firsts...)
			continue
		}
		for _, rest := range enumerate(t, n, k+1, j) {
			for _, f := range firsts {
				out = append(out, append(append([]Part(nil), f...), rest...))
			}
		}
	}
	return out
}

// countDerivations counts what enumerate would list, without listing it.
func countDerivations(t *hier.Tree, n int32, i, j int) float64 {
	total := 0.0
	for k := i; k <= j; k++ {
		firsts := 1.0
		if !t.IsLeaf(n) {
			combos := 1.0
			for _, c := range t.Children[n] {
				combos *= countDerivations(t, c, i, k)
			}
			firsts += combos
		}
		if k == j {
			total += firsts
		} else {
			total += firsts * countDerivations(t, n, k+1, j)
		}
	}
	return total
}

func key(parts []Part) string {
	ps := append([]Part(nil), parts...)
	sort.Slice(ps, func(a, b int) bool {
		if ps[a].Node != ps[b].Node {
			return ps[a].Node < ps[b].Node
		}
		return ps[a].First < ps[b].First
	})
	var sb strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&sb, "%d:%d-%d ", p.Node, p.First, p.Last)
	}
	return sb.String()
}

// naiveQuality is an independent implementation of gain and loss from the
// definitions: gain = sum_x V_x log2 V_x - sum_c v_c log2 v_c (or |A| - 1
// for the size measure) and loss = sum_c v_c log2(v_c |A| / V_x), over
// cells or, with resources as entities (seed 003), over the part's
// resources, each valued by its mean over the part's slices.
func naiveQuality(in Input, p Part, measure GainMeasure, entities ...Entities) (gain, loss float64) {
	t := in.Tree
	resources := len(entities) > 0 && entities[0] == EntitiesResources
	size := float64(t.NumLeaves(p.Node) * int(p.Last-p.First+1))
	if resources {
		size = float64(t.NumLeaves(p.Node))
	}
	for x := 0; x < in.States; x++ {
		var cells []float64
		for leaf := t.LeafLo[p.Node]; leaf < t.LeafHi[p.Node]; leaf++ {
			mean := 0.0
			for s := p.First; s <= p.Last; s++ {
				v := in.Values[(int(leaf)*in.Slices+int(s))*in.States+x]
				if !resources {
					cells = append(cells, v)
				}
				mean += v / float64(p.Last-p.First+1)
			}
			if resources {
				cells = append(cells, mean)
			}
		}
		V := 0.0
		for _, v := range cells {
			V += v
		}
		if V > 0 {
			gain += V * math.Log2(V)
		}
		for _, v := range cells {
			if v > 0 {
				gain -= v * math.Log2(v)
				loss += v * math.Log2(v*size/V)
			}
		}
	}
	if measure == GainSize {
		gain = size - 1
	}
	return gain, loss
}

// hierarchyCuts lists every cut of n's subtree: n itself, or a cut of each
// child (Lamarche-Perrin et al.'s aggregations), each node over slices i..j.
func hierarchyCuts(t *hier.Tree, n int32, i, j int) [][]Part {
	out := [][]Part{{{Node: n, First: int32(i), Last: int32(j)}}}
	if t.IsLeaf(n) {
		return out
	}
	combos := [][]Part{nil}
	for _, c := range t.Children[n] {
		var next [][]Part
		for _, sub := range hierarchyCuts(t, c, i, j) {
			for _, prefix := range combos {
				next = append(next, append(append([]Part(nil), prefix...), sub...))
			}
		}
		combos = next
	}
	return append(out, combos...)
}

// sharedTimeCuts lists every partition of time into intervals, each
// interval one part per leaf (lpaggreg's OLP).
func sharedTimeCuts(t *hier.Tree, slices int) [][]Part {
	var out [][]Part
	for mask := 0; mask < 1<<(slices-1); mask++ { // bit k: cut after slice k
		var parts []Part
		first := 0
		for k := 0; k < slices; k++ {
			if k == slices-1 || mask&(1<<k) != 0 {
				for _, leaf := range t.Leaves {
					parts = append(parts, Part{Node: leaf, First: int32(first), Last: int32(k)})
				}
				first = k + 1
			}
		}
		out = append(out, parts)
	}
	return out
}

// checkAgainst compares an engine's optima with a brute-force search over
// candidates (every partition of its kind): the same pIC, and the same
// partition whenever the optimum is unique. coarse is the candidate the
// engine normalises by. It returns the number of (p) cases checked.
func checkAgainst(t *testing.T, name string, e Engine, in Input, candidates [][]Part, coarse []Part, opt Options) int {
	t.Helper()
	raw := make([][2]float64, len(candidates))
	seen := map[string]bool{}
	for u, parts := range candidates {
		seen[key(parts)] = true
		for _, pt := range parts {
			g, l := naiveQuality(in, pt, opt.Gain, opt.Entities)
			raw[u][0] += g
			raw[u][1] += l
		}
	}
	g0, l0 := 1.0, 1.0
	if opt.Normalize {
		var cg, cl float64
		for _, pt := range coarse {
			g, l := naiveQuality(in, pt, opt.Gain, opt.Entities)
			cg, cl = cg+g, cl+l
		}
		if cg > 0 {
			g0 = cg
		}
		if cl > 0 {
			l0 = cl
		}
		if sg, sl := e.Scale(); math.Abs(sg-cg/g0) > 1e-9 || math.Abs(sl-cl/l0) > 1e-9 {
			t.Fatalf("%s: scale (%v, %v), want (%v, %v)", name, sg, sl, cg/g0, cl/l0)
		}
	}
	checked := 0
	for _, p := range []float64{0, 0.1, 0.3, 0.5, 0.7, 0.9, 1} {
		got, err := e.Solve(p)
		if err != nil {
			t.Fatal(err)
		}
		if !seen[key(got.Parts)] {
			t.Fatalf("%s p=%v: the solver's partition %s is not one of its kind", name, p, key(got.Parts))
		}
		for i := 1; i < len(got.Parts); i++ {
			a, b := got.Parts[i-1], got.Parts[i]
			if a.Node > b.Node || a.Node == b.Node && a.First >= b.First {
				t.Fatalf("%s p=%v: parts %+v and %+v are out of order", name, p, a, b)
			}
		}
		bestV, secondV := math.Inf(-1), math.Inf(-1)
		var bestKey string
		for u, parts := range candidates {
			v := p*raw[u][0]/g0 - (1-p)*raw[u][1]/l0
			if v > bestV {
				secondV, bestV, bestKey = bestV, v, key(parts)
			} else if v > secondV {
				secondV = v
			}
		}
		if math.Abs(got.Value-bestV) > 1e-9 {
			t.Fatalf("%s p=%v: solver value %v, exhaustive optimum %v (%s vs %s)", name, p, got.Value, bestV, key(got.Parts), bestKey)
		}
		if bestV-secondV > 1e-9 && key(got.Parts) != bestKey {
			t.Fatalf("%s p=%v: solver partition %s, unique optimum %s", name, p, key(got.Parts), bestKey)
		}
		sumG, sumL := 0.0, 0.0
		for _, pt := range got.Parts {
			g, l := naiveQuality(in, pt, opt.Gain, opt.Entities)
			if math.Abs(pt.Gain-g/g0) > 1e-9 || math.Abs(pt.Loss-l/l0) > 1e-9 {
				t.Fatalf("%s p=%v: part %+v has gain %v loss %v, want %v %v", name, p, pt, pt.Gain, pt.Loss, g/g0, l/l0)
			}
			sumG, sumL = sumG+pt.Gain, sumL+pt.Loss
		}
		if math.Abs(got.Gain-sumG) > 1e-12 || math.Abs(got.Loss-sumL) > 1e-12 {
			t.Fatalf("%s: partition totals (%v, %v) are not the sums of its parts (%v, %v)", name, got.Gain, got.Loss, sumG, sumL)
		}
		checked++
	}
	return checked
}

var measureOptions = []Options{
	{}, {Normalize: true}, {Gain: GainSize}, {Gain: GainSize, Normalize: true},
}

func TestSpatiotemporalMatchesExhaustiveEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	checked := 0
	for iter := 0; iter < 150; iter++ {
		in := randomInput(rng, 1+iter%3, 1+iter%4, 2+iter%2)
		if countDerivations(in.Tree, 0, 0, in.Slices-1) > 20000 {
			continue
		}
		unique := dedupeParts(enumerate(in.Tree, 0, 0, in.Slices-1))
		coarse := []Part{{Node: 0, First: 0, Last: int32(in.Slices - 1)}}
		for m, opt := range measureOptions {
			opt.CacheBytes = []int64{-1, 0}[(iter+m)%2]
			st, err := NewSpatiotemporal(in, opt)
			if err != nil {
				t.Fatal(err)
			}
			checked += checkAgainst(t, fmt.Sprintf("iter %d %+v", iter, opt), st, in, unique, coarse, opt)
		}
	}
	if checked < 1500 {
		t.Fatalf("only %d cases checked", checked)
	}
	t.Logf("%d cases checked", checked)
}

func TestSpatialMatchesExhaustiveEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	checked := 0
	for iter := 0; iter < 120; iter++ {
		in := randomInput(rng, 2+iter%3, 1+iter%5, 2+iter%3)
		first, last := 0, in.Slices-1
		if iter%3 == 1 && in.Slices > 2 {
			first, last = 1, in.Slices-2
		}
		cuts := hierarchyCuts(in.Tree, 0, first, last)
		if len(cuts) > 5000 {
			continue
		}
		coarse := []Part{{Node: 0, First: int32(first), Last: int32(last)}}
		for _, opt := range measureOptions {
			// Both entities, the default (resources, size gain) included.
			for _, ent := range []Entities{EntitiesCells, EntitiesResources, ""} {
				opt.Window, opt.Entities = &Window{first, last}, ent
				sp, err := NewSpatial(in, opt)
				if err != nil {
					t.Fatal(err)
				}
				resolved := opt
				if opt.Gain == "" {
					resolved.Gain = GainSize
				}
				if ent == "" {
					resolved.Entities = EntitiesResources
				}
				checked += checkAgainst(t, fmt.Sprintf("iter %d %+v", iter, opt), sp, in, cuts, coarse, resolved)
			}
		}
	}
	if checked < 4500 {
		t.Fatalf("only %d cases checked", checked)
	}
	t.Logf("%d cases checked", checked)
}

func TestTemporalMatchesExhaustiveEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 2))
	checked := 0
	for iter := 0; iter < 80; iter++ {
		in := randomInput(rng, 1+iter%3, 1+iter%8, 2+iter%2)
		cuts := sharedTimeCuts(in.Tree, in.Slices)
		var coarse []Part
		for _, leaf := range in.Tree.Leaves {
			coarse = append(coarse, Part{Node: leaf, First: 0, Last: int32(in.Slices - 1)})
		}
		for _, opt := range measureOptions {
			tm, err := NewTemporal(in, opt)
			if err != nil {
				t.Fatal(err)
			}
			checked += checkAgainst(t, fmt.Sprintf("iter %d %+v", iter, opt), tm, in, cuts, coarse, opt)
		}
	}
	if checked < 1500 {
		t.Fatalf("only %d cases checked", checked)
	}
	t.Logf("%d cases checked", checked)
}

func dedupeParts(all [][]Part) [][]Part {
	seen := map[string]bool{}
	var out [][]Part
	for _, parts := range all {
		if k := key(parts); !seen[k] {
			seen[k] = true
			out = append(out, parts)
		}
	}
	return out
}
