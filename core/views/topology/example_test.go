package topology_test

import (
	"fmt"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/views/topology"
)

// A clone is collapsed to the first level of the platform's hierarchy;
// the original still shows every resource.
func ExampleTopology_Clone() {
	tr, err := formats.ReadFile("../../../testdata/jacobi32-platform.trace", "paje")
	if err != nil {
		fmt.Println(err)
		return
	}
	whole, err := topology.Build(tr, topology.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	sites := whole.Clone()
	if err := sites.CollapseDepth(1); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(whole.View().Nodes), "nodes, collapsed:", whole.Collapsed())
	fmt.Println(len(sites.View().Nodes), "nodes, collapsed:", sites.Collapsed())
	// Output:
	// 69 nodes, collapsed: []
	// 7 nodes, collapsed: [alpha beta]
}
