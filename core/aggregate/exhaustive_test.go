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
// definitions: gain = sum_x V_x log2 V_x - sum_c v_c log2 v_c and
// loss = sum_c v_c log2(v_c |A| / V_x).
func naiveQuality(in Input, p Part) (gain, loss float64) {
	t := in.Tree
	size := float64(t.NumLeaves(p.Node) * int(p.Last-p.First+1))
	for x := 0; x < in.States; x++ {
		var cells []float64
		for leaf := t.LeafLo[p.Node]; leaf < t.LeafHi[p.Node]; leaf++ {
			for s := p.First; s <= p.Last; s++ {
				cells = append(cells, in.Values[(int(leaf)*in.Slices+int(s))*in.States+x])
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
	return gain, loss
}

func TestSpatiotemporalMatchesExhaustiveEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	checked := 0
	for iter := 0; iter < 150; iter++ {
		in := randomInput(rng, 1+iter%3, 1+iter%4, 2+iter%2)
		if countDerivations(in.Tree, 0, 0, in.Slices-1) > 20000 {
			continue
		}
		all := enumerate(in.Tree, 0, 0, in.Slices-1)
		unique := dedupeParts(all)
		seen := map[string]bool{}
		for _, parts := range unique {
			seen[key(parts)] = true
		}
		// Raw gain and loss of every partition, from the definitions.
		raw := make([][2]float64, len(unique))
		for u, parts := range unique {
			for _, pt := range parts {
				g, l := naiveQuality(in, pt)
				raw[u][0] += g
				raw[u][1] += l
			}
		}
		for _, normalize := range []bool{false, true} {
			st, err := NewSpatiotemporal(in, Options{Normalize: normalize, CacheBytes: []int64{-1, 0}[iter%2]})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range []float64{0, 0.1, 0.3, 0.5, 0.7, 0.9, 1} {
				got, err := st.Solve(p)
				if err != nil {
					t.Fatal(err)
				}
				if !seen[key(got.Parts)] {
					t.Fatalf("iter %d p=%v: the solver's partition %s is not hierarchy-and-order consistent", iter, p, key(got.Parts))
				}
				// Best and runner-up by brute force.
				bestV, secondV := math.Inf(-1), math.Inf(-1)
				var bestKey string
				for u, parts := range unique {
					v := p*raw[u][0]/st.gain0 - (1-p)*raw[u][1]/st.loss0
					if v > bestV {
						secondV, bestV, bestKey = bestV, v, key(parts)
					} else if v > secondV {
						secondV = v
					}
				}
				if math.Abs(got.Value-bestV) > 1e-9 {
					t.Fatalf("iter %d p=%v: solver value %v, exhaustive optimum %v (%s vs %s)", iter, p, got.Value, bestV, key(got.Parts), bestKey)
				}
				if bestV-secondV > 1e-9 && key(got.Parts) != bestKey {
					t.Fatalf("iter %d p=%v: solver partition %s, unique optimum %s", iter, p, key(got.Parts), bestKey)
				}
				checked++
			}
		}
	}
	if checked < 500 {
		t.Fatalf("only %d cases checked", checked)
	}
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
