package moments_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/partition"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
	"github.com/macroscope-hpc/macroscope/core/views/moments"
)

// Two ranks of a job, a Kineto file each, summed apart (on a cluster: a
// task each) and merged: the moments of the two files read as one trace.
func ExampleComputePart() {
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
	// The window, from the parts' extents.
	start, end := trace.Time(0), trace.Time(0)
	for _, p := range plan.Parts {
		_, e, _ := partition.Extent(p, true, trace.ReadOptions{})
		end = max(end, e)
	}
	var sum *moments.Result
	for _, p := range plan.Parts {
		r, err := moments.ComputePart(p, moments.Options{}, start, end, trace.ReadOptions{})
		if err != nil {
			fmt.Println(err)
			return
		}
		if sum == nil {
			sum = r
		} else if sum, err = moments.Merge(sum, r); err != nil {
			fmt.Println(err)
			return
		}
	}
	rows, _ := sum.Rows(moments.ByResource)
	for _, r := range rows {
		m := r.Sums.Moments()
		fmt.Printf("%s: busy %g µs, centred on %g µs\n", r.Path, m.M0*1e6, m.M1*1e6)
	}
	// Output:
	// rank0.json/0/1: busy 60 µs, centred on 30 µs
	// rank1.json/1/1: busy 100 µs, centred on 50 µs
}

// The moments of the aggregates of an aggregation of a model: each
// aggregate's resources, over its time range.
func ExampleAggregates() {
	t, err := formats.ReadFile("../../../testdata/jacobi32.trace", "paje")
	if err != nil {
		fmt.Println(err)
		return
	}
	opt := micro.Options{Slices: 20, Depth: micro.Innermost}
	m, err := micro.Build(t, opt)
	if err != nil {
		fmt.Println(err)
		return
	}
	engine, err := aggregate.New(aggregate.KindSpatiotemporal, aggregate.Input{Tree: m.Tree, Slices: m.Slices, States: len(m.States), Values: m.Values, Cells: m.Cells}, aggregate.Options{Normalize: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	part, err := engine.Solve(0.5)
	if err != nil {
		fmt.Println(err)
		return
	}
	rows, index, err := moments.Aggregates(t, m, part, moments.Options{StateTypes: moments.ModelStateTypes(opt)})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d aggregates, %d rows\n", len(part.Parts), len(rows))
	for i, r := range rows[:2] {
		fmt.Printf("aggregate %d: %s, %d resources, %s-%s s, busy %.4g s\n", index[i], r.Path, r.Resources, r.Start, r.End, r.Sums.Moments().M0)
	}
	// Output:
	// 115 aggregates, 115 rows
	// aggregate 0: root, 32 resources, 0.000000000-0.425190050 s, busy 13.61 s
	// aggregate 1: root, 32 resources, 0.425190050-2.551140300 s, busy 68.03 s
}
