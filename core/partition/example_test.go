package partition_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/macroscope-hpc/macroscope/core/formats"
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

// An OTF2 archive whose location groups add up to it is read by group on
// all cores: the plan LocalPlan makes, the model FromSource builds, which
// is the one stream's, the message between the groups included.
func ExampleLocalPlan() {
	path := filepath.Join("testdata", "otf2-beyond", "traces.otf2")
	plan := partition.LocalPlan(path, "", nil, nil)
	for _, p := range plan.Parts {
		fmt.Println(p.Label)
	}
	src, _, err := formats.Open(path, "", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	m, sum, err := partition.FromSource(src, plan, micro.Options{Slices: 3, Depth: micro.Innermost}, trace.ReadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d resources, %d states, %d link\n", m.NumLeaves(), sum.States, sum.Links)
	// Output:
	// location group 0
	// location group 1
	// 2 resources, 3 states, 1 link
}

// Each part streamed into a sink of one's own: here, one that counts.
func ExampleRead() {
	path := filepath.Join("testdata", "otf2-beyond", "traces.otf2")
	plan, err := partition.PlanFile(path, "", nil, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range plan.Parts {
		var c trace.Counter
		if err := partition.Read(p, &c, trace.ReadOptions{}); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %d containers, %d states\n", p.Label, c.Containers, c.States)
	}
	// Output:
	// location group 0: 5 containers, 2 states
	// location group 1: 5 containers, 1 states
}
