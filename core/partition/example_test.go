package partition_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/partition"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Two ranks of a job, a Kineto file each, modelled apart and merged: the
// model of the two files read as one trace, a "Run" container each.
func Example() {
	dir, _ := os.MkdirTemp("", "ranks")
	defer os.RemoveAll(dir)
	var paths []string
	for rank := range 2 {
		path := filepath.Join(dir, fmt.Sprintf("rank%d.json", rank))
		doc := fmt.Sprintf(`{"traceEvents":[{"ph":"X","name":"step","pid":%d,"tid":1,"ts":0,"dur":%d}]}`, rank, 60+40*rank)
		os.WriteFile(path, []byte(doc), 0o644)
		paths = append(paths, path)
	}
	plan, _ := partition.PlanRuns(paths, "", nil)
	opt := micro.Options{Slices: 4}
	// The window, from the parts' extents (on a cluster: a task each).
	start, end := trace.Time(0), trace.Time(0)
	for _, p := range plan.Parts {
		_, e, _ := partition.Extent(p, true, trace.ReadOptions{})
		end = max(end, e)
	}
	// A partial per part (a task each), merged (a tree of tasks).
	var parts []*micro.Partial
	for _, p := range plan.Parts {
		part, _ := partition.Build(p, opt, start, end, trace.ReadOptions{})
		parts = append(parts, part)
	}
	merged, _ := micro.Merge(plan.Order, parts...)
	m, _ := merged.Model()
	for leaf := range m.NumLeaves() {
		fmt.Printf("%s:", m.Tree.Path(m.Tree.Leaves[leaf], "/"))
		for k := range m.Slices {
			fmt.Printf(" %.1f", m.Value(leaf, k, 0))
		}
		fmt.Println()
	}
	// Output:
	// rank0.json/0/1: 1.0 1.0 0.4 0.0
	// rank1.json/1/1: 1.0 1.0 1.0 1.0
}
