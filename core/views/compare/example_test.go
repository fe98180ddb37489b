package compare_test

import (
	"fmt"

	"github.com/macroscope-hpc/macroscope/core/gen/bsp"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
	"github.com/macroscope-hpc/macroscope/core/views/compare"
)

// Two runs of a bulk-synchronous program of 8 ranks, the second with rank
// 5 computing 20% longer: the rows of the optimal partition at p = 0.3,
// ranked by outlier score, name rank 5.
func Example() {
	a := bsp.Scenario{Ranks: 8, PerNode: 4, Iterations: 50, Noise: 0.01, Seed: 1}
	b := a
	b.Seed, b.Slow, b.Slowdown = 2, []int{5}, 0.2
	set, err := compare.Build([]compare.Input{{Name: "before", Source: a.Source()}, {Name: "after", Source: b.Source()}},
		compare.Options{Slices: 10}, trace.ReadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	e, _ := aggregate.New(aggregate.KindSpatiotemporal, set.Input(), aggregate.Options{Normalize: true})
	part, _ := e.Solve(0.3)
	tab, _ := set.Differences(compare.NodesOf(set.PartitionRows(part)), compare.TableOptions{Rank: compare.ByOutlier})
	top := tab.Rows[0]
	fmt.Printf("%s: compute %.3f -> %.3f\n", set.Resources.Path(top.Node, "/"), top.Props[0][0], top.Props[1][0])
	// Output:
	// node-1/rank-5: compute 0.792 -> 0.827
}
