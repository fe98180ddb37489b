package compare

import (
	"testing"

	"github.com/macroscope-hpc/macroscope/core/gen/bsp"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
)

// slowdownSet is the comparison of a bulk-synchronous run of ranks
// (perNode per node, 200 iterations) with one where rank 437 (or the
// last) computes 5% longer, cut into slices.
func slowdownSet(tb testing.TB, ranks, perNode, slices int, sigma float64, repetition bool) *Set {
	a := bsp.Scenario{Ranks: ranks, PerNode: perNode, Iterations: 200, Noise: sigma, Seed: 1}
	b := a
	b.Seed = 2
	if !repetition {
		b.Slow, b.Slowdown = []int{min(437, ranks-1)}, 0.05
	}
	set, err := Build([]Input{{Name: "A", Source: a.Source()}, {Name: "B", Source: b.Source()}}, Options{Slices: slices}, trace.ReadOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	return set
}

// BenchmarkCompare2x1000x100 compares 2 runs of 1,000 ranks cut into 100
// slices: both models read from generated traces, the run-level model
// solved at one p, its rows measured and tested (999 permutations at
// most per row).
func BenchmarkCompare2x1000x100(b *testing.B) {
	for b.Loop() {
		set := slowdownSet(b, 1000, 100, 100, 0.02, false)
		e, err := aggregate.New(aggregate.KindSpatiotemporal, set.Input(), aggregate.Options{Normalize: true})
		if err != nil {
			b.Fatal(err)
		}
		part, err := e.Solve(0.5)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := set.Differences(NodesOf(set.PartitionRows(part)), TableOptions{Rank: ByOutlier}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTable measures the differences table alone (every row
// strongly different: σ = 0).
func BenchmarkTable(b *testing.B) {
	set := slowdownSet(b, 1000, 100, 20, 0, false)
	rows, _ := set.NodeRows(nil)
	for b.Loop() {
		if _, err := set.Differences(rows, TableOptions{Rank: ByOutlier}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompare64x64x100 compares 64 runs of 64 ranks (8 per node)
// cut into 100 slices, as BenchmarkCompare2x1000x100 does.
func BenchmarkCompare64x64x100(b *testing.B) {
	for b.Loop() {
		inputs := make([]Input, 64)
		for r := range inputs {
			sc := bsp.Scenario{Ranks: 64, PerNode: 8, Iterations: 200, Noise: 0.02, Seed: uint64(r + 1)}
			if r == 63 {
				sc.Slow, sc.Slowdown = []int{17}, 0.05
			}
			inputs[r] = Input{Source: sc.Source()}
		}
		set, err := Build(inputs, Options{Slices: 100}, trace.ReadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		e, err := aggregate.New(aggregate.KindSpatiotemporal, set.Input(), aggregate.Options{Normalize: true})
		if err != nil {
			b.Fatal(err)
		}
		part, err := e.Solve(0.5)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := set.Differences(NodesOf(set.PartitionRows(part)), TableOptions{Rank: ByOutlier}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDifferences10k measures the differences table alone of 2 runs
// of 10,000 ranks x 100 slices, a row for every node of the hierarchy
// over the whole window (10,101 rows, 100 blocks each): the permutation
// test of a level of 10,000 resources.
func BenchmarkDifferences10k(b *testing.B) {
	set := slowdownSet(b, 10000, 100, 100, 0.02, false)
	rows, _ := set.NodeRows(nil)
	for b.Loop() {
		if _, err := set.Differences(rows, TableOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
