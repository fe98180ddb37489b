// Package synthmodel builds microscopic models without a trace file, for
// tests and benchmarks of the aggregation engines at any scale:
//
//   - LCG is the deterministic model the reference measurements of
//     lpaggreg (Ocelotl's engine) used: a balanced hierarchy with
//     pseudo-random state proportions and one anomaly.
//   - Scenario is the large-scale validation of Lamarche-Perrin et al. (section 5.3):
//     processes grouped by machine, cluster, super-cluster and site, all
//     alike except where heterogeneity is injected at each level.
package synthmodel

import (
	"fmt"

	"github.com/macroscope-hpc/macroscope/core/hier"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
)

// Input returns what the aggregation engines need of m.
func Input(m *micro.Model) aggregate.Input {
	return aggregate.Input{Tree: m.Tree, Slices: m.Slices, States: len(m.States), Values: m.Values, Cells: m.Cells}
}

// newModel wraps a tree and its values as a model of slices one-second
// slices whose nodes have no trace container.
func newModel(tree *hier.Tree, states []string, slices int, values []float64) *micro.Model {
	containers := make([]int32, tree.Len())
	for i := range containers {
		containers[i] = trace.None
	}
	return &micro.Model{
		Tree: tree, Container: containers, States: states, Slices: slices,
		Start: 0, End: trace.Time(slices) * trace.Second, Values: values,
	}
}

// balanced builds a tree whose nodes at depth d have fanout[d] children,
// named by names(d, i) for the i-th child.
func balanced(fanout []int, names func(depth, i int) string) *hier.Tree {
	b := hier.NewBuilder("root")
	var grow func(node, depth int)
	grow = func(node, depth int) {
		if depth == len(fanout) {
			return
		}
		for i := 0; i < fanout[depth]; i++ {
			grow(b.Add(node, names(depth, i)), depth+1)
		}
	}
	grow(0, 0)
	tree, _ := b.Build()
	return tree
}

// LCG returns the synthetic model of the lpaggreg measurements (REFERENCE
// section 11): a balanced hierarchy of fan-out f and depth d (f^d leaves,
// named by child index), slices slices and 4 states. A 64-bit LCG (s <- s *
// 6364136223846793005 + 1442695040888963407, from s = 42) draws, for each
// leaf in depth-first order, each slice and each state, u = (s >> 11) *
// 2^-53; the 4 values of a cell are then normalised to sum to 1, except that
// in the first depth-1 subtree, during slices T/3 <= t < 2T/3, state 0 is
// multiplied by 4 before normalising.
func LCG(f, d, slices int) (*micro.Model, error) {
	if f < 1 || d < 0 || slices < 1 {
		return nil, fmt.Errorf("synthmodel: fan-out %d, depth %d and %d slices do not make a model", f, d, slices)
	}
	fanout := make([]int, d)
	for i := range fanout {
		fanout[i] = f
	}
	tree := balanced(fanout, func(_, i int) string { return fmt.Sprint(i) })
	const states = 4
	values := make([]float64, len(tree.Leaves)*slices*states)
	seed := uint64(42)
	firstSubtree := len(tree.Leaves)
	if d > 0 {
		firstSubtree = tree.NumLeaves(tree.Children[0][0])
	}
	for leaf := range tree.Leaves {
		for s := 0; s < slices; s++ {
			row := values[(leaf*slices+s)*states:][:states]
			for x := range row {
				seed = seed*6364136223846793005 + 1442695040888963407
				row[x] = float64(seed>>11) * 0x1p-53
			}
			if leaf < firstSubtree && 3*s >= slices && 3*s < 2*slices {
				row[0] *= 4
			}
			sum := 0.0
			for _, v := range row {
				sum += v
			}
			for x := range row {
				row[x] /= sum
			}
		}
	}
	return newModel(tree, []string{"s0", "s1", "s2", "s3"}, slices, values), nil
}
