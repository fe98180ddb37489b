package treemap

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/gen/synthmodel"
	"github.com/macroscope-hpc/macroscope/core/hier"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
)

// detailedCut returns the optimal spatial cut of the scenario that details
// exactly its injected heterogeneity.
func detailedCut(t testing.TB, sc synthmodel.Scenario) (*micro.Model, *aggregate.Partition) {
	t.Helper()
	m, part, err := sc.DetailedCut()
	if err != nil {
		t.Fatal(err)
	}
	return m, part
}

// checkMap verifies the treemap of a partition against the partition: the
// aggregated cells are exactly its aggregates under the root, the groups
// exactly their ancestors, every area is the node's share of the root's
// (no padding), children lie in their group and tile it, and the colours
// are the aggregates' mode states over the window.
func checkMap(t *testing.T, m *micro.Model, part *aggregate.Partition, tm *Map) {
	t.Helper()
	tree := m.Tree
	in := synthmodel.Input(m)
	inRoot := func(v int32) bool { return v >= tm.Root && v < tree.End[tm.Root] }
	wantAgg := map[int32]bool{}
	wantGroup := map[int32]bool{}
	for _, p := range part.Parts {
		if !inRoot(p.Node) || p.Node == tm.Root {
			continue
		}
		wantAgg[p.Node] = true
		for v := tree.Parent[p.Node]; ; v = tree.Parent[v] {
			wantGroup[v] = true
			if v == tm.Root {
				break
			}
		}
	}
	total := tm.Cells[0].Value
	area := tm.Bounds.Area()
	childArea := map[int32]float64{}
	means := make([]float64, len(m.States))
	for i, c := range tm.Cells {
		if c.Node != tm.Root && c.Aggregated != wantAgg[c.Node] {
			t.Fatalf("cell %s: aggregated %v", tree.Path(c.Node, "/"), c.Aggregated)
		}
		if c.Group != wantGroup[c.Node] {
			t.Fatalf("cell %s: group %v", tree.Path(c.Node, "/"), c.Group)
		}
		delete(wantAgg, c.Node)
		delete(wantGroup, c.Node)
		if tm.Value == Leaves && c.Value != float64(tree.NumLeaves(c.Node)) {
			t.Fatalf("cell %s: value %v, %d leaves", tree.Path(c.Node, "/"), c.Value, tree.NumLeaves(c.Node))
		}
		if want := c.Value / total * area; math.Abs(c.Area()-want) > 1e-9*want {
			t.Fatalf("cell %s: area %v, want %v", tree.Path(c.Node, "/"), c.Area(), want)
		}
		if c.Parent >= 0 {
			p := tm.Cells[c.Parent]
			if p.Node != tree.Parent[c.Node] || !p.Contains(c.Rect, 1e-12) {
				t.Fatalf("cell %s %+v: parent cell %s %+v", tree.Path(c.Node, "/"), c.Rect, tree.Path(p.Node, "/"), p.Rect)
			}
			childArea[p.Node] += c.Area()
		}
		aggregate.MeanValues(in, aggregate.Part{Node: c.Node, First: tm.First, Last: tm.Last}, means)
		mode, prop := aggregate.Mode(means)
		// Groups that are not aggregates add up their children: their
		// means may differ in the last bits, and an exact tie between two
		// states may go either way.
		tie := false
		for x, v := range means {
			tie = tie || (x != mode && math.Abs(v-prop) <= 1e-12)
		}
		if (mode != c.Mode && !(tie && !c.Aggregated)) || math.Abs(prop-c.ModeProportion) > 1e-12 {
			t.Fatalf("cell %s: mode %d (%v), want %d (%v)", tree.Path(c.Node, "/"), c.Mode, c.ModeProportion, mode, prop)
		}
		for x, v := range tm.CellMeans(i) {
			if math.Abs(v-means[x]) > 1e-12 {
				t.Fatalf("cell %s: mean of state %d %v, want %v", tree.Path(c.Node, "/"), x, v, means[x])
			}
		}
	}
	if len(wantAgg) > 0 || len(wantGroup) > 0 {
		t.Fatalf("%d aggregates and %d groups have no cell", len(wantAgg), len(wantGroup))
	}
	for _, c := range tm.Cells {
		if c.Group && math.Abs(childArea[c.Node]-c.Area()) > 1e-9*c.Area() {
			t.Fatalf("group %s: children's areas add up to %v, its area is %v", tree.Path(c.Node, "/"), childArea[c.Node], c.Area())
		}
	}
}

func TestTreemapOfTheDetailedCut(t *testing.T) {
	scales := []synthmodel.Scenario{
		{Fanout: [5]int{4, 2, 2, 2, 2}, Slices: 1, Noise: 0.002, Contrast: 0.4},
		{Fanout: [5]int{5, 3, 3, 3, 4}, Slices: 3, Noise: 0.002, Contrast: 0.4},
	}
	if !testing.Short() {
		scales = append(scales, synthmodel.Million())
	}
	for _, sc := range scales {
		m, part := detailedCut(t, sc)
		tm, err := OfPartition(m, part, Options{Width: 4, Height: 3})
		if err != nil {
			t.Fatal(err)
		}
		checkMap(t, m, part, tm)
		aggregates := 0
		for _, c := range tm.Cells {
			if c.Aggregated {
				aggregates++
			}
		}
		if aggregates != len(part.Parts) || tm.Hidden != 0 {
			t.Errorf("%d processes: %d aggregated cells for %d aggregates, %d hidden", sc.Processes(), aggregates, len(part.Parts), tm.Hidden)
		}
		// The heterogeneous machine's processes are shown one by one, each
		// with its share of the area, in the colour of its own mode.
		machine, err := NodeByPath(m.Tree, "site-3/sc-0/cluster-0/machine-0", "/")
		if err != nil {
			t.Fatal(err)
		}
		procs := 0
		for _, c := range tm.Cells {
			if m.Tree.Parent[c.Node] == machine {
				procs++
				if !c.Aggregated || c.Group {
					t.Errorf("process %s is not an aggregate of its own", m.Tree.Path(c.Node, "/"))
				}
			}
		}
		if procs != sc.Fanout[4] {
			t.Errorf("%d processes: the heterogeneous machine shows %d processes, want %d", sc.Processes(), procs, sc.Fanout[4])
		}
		t.Logf("%d processes: %d cells (%d aggregates)", sc.Processes(), len(tm.Cells), aggregates)

		// A subtree, with padding: only its cells, inside the padded groups.
		root, _ := NodeByPath(m.Tree, "site-3/sc-0", "/")
		sub, err := OfPartition(m, part, Options{Root: root, Padding: 0.01, Header: 0.02})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range sub.Cells {
			if c.Node < root || c.Node >= m.Tree.End[root] {
				t.Fatalf("cell %s outside the root", m.Tree.Path(c.Node, "/"))
			}
			if c.Parent >= 0 {
				p := sub.Cells[c.Parent]
				inner := p.Rect
				if c.Parent != 0 {
					inner = Pad(p.Rect, 0.01, 0.02)
				}
				if !inner.Contains(c.Rect, 1e-12) {
					t.Fatalf("cell %s %+v outside its parent's inner rectangle %+v", m.Tree.Path(c.Node, "/"), c.Rect, inner)
				}
			}
		}
	}
}

// model builds a model by hand: a tree, states, slices of one second and
// values at [(leaf*slices+slice)*states+state].
func model(tree *hier.Tree, states []string, slices int, values []float64) *micro.Model {
	containers := make([]int32, tree.Len())
	for i := range containers {
		containers[i] = trace.None
	}
	return &micro.Model{Tree: tree, Container: containers, States: states, Slices: slices,
		Start: 0, End: trace.Time(slices) * trace.Second, Values: values}
}

// A spatiotemporal partition: a node aggregated over one slice and split
// over the other is a group with its children shown; the activity is the
// time spent in states; a resource without states has no area.
func TestTreemapOfASpatiotemporalPartitionByActivity(t *testing.T) {
	b := hier.NewBuilder("root")
	a := b.Add(0, "a")
	b.Add(a, "a1")
	b.Add(a, "a2")
	c := b.Add(0, "c")
	b.Add(c, "c1")
	b.Add(c, "c2")
	tree, _ := b.Build()
	// Leaves a1 a2 c1 c2, 2 slices of 1 s, states x, y.
	values := []float64{
		1, 0, 0.5, 0.5, // a1: slice 0 all x, slice 1 half x half y
		0, 1, 0, 0.25, // a2
		0.25, 0.25, 0.25, 0.25, // c1
		0, 0, 0, 0, // c2: no state at all
	}
	m := model(tree, []string{"x", "y"}, 2, values)
	id := func(path string) int32 {
		v, err := NodeByPath(tree, path, "/")
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	part := &aggregate.Partition{Parts: []aggregate.Part{
		{Node: id("a"), First: 0, Last: 0},
		{Node: id("a/a1"), First: 1, Last: 1}, {Node: id("a/a2"), First: 1, Last: 1},
		{Node: id("c"), First: 0, Last: 1},
	}}
	tm, err := OfPartition(m, part, Options{Value: Activity, Width: 2, Height: 1})
	if err != nil {
		t.Fatal(err)
	}
	checkMap(t, m, part, tm)
	want := map[string]float64{"root": 4.25, "a": 3.25, "a/a1": 2, "a/a2": 1.25, "c": 1}
	if len(tm.Cells) != len(want) {
		t.Errorf("%d cells, want %d", len(tm.Cells), len(want))
	}
	for _, cell := range tm.Cells {
		path := tree.Path(cell.Node, "/")
		if math.Abs(cell.Value-want[path]) > 1e-12 {
			t.Errorf("%s: activity %v s, want %v", path, cell.Value, want[path])
		}
	}
	if tm.Cells[1].Node != id("a") || !tm.Cells[1].Aggregated || !tm.Cells[1].Group {
		t.Errorf("a: %+v, want an aggregate shown as a group", tm.Cells[1])
	}
	// c2 alone, by activity: no area, counted as hidden; by leaves it has
	// its share.
	part2 := &aggregate.Partition{Parts: []aggregate.Part{
		{Node: id("a"), First: 0, Last: 1}, {Node: id("c/c1"), First: 0, Last: 1}, {Node: id("c/c2"), First: 0, Last: 1},
	}}
	tm, err = OfPartition(m, part2, Options{Value: Activity})
	if err != nil {
		t.Fatal(err)
	}
	if tm.Hidden != 1 || len(tm.Cells) != 4 {
		t.Errorf("by activity: %d cells, %d hidden; want 4 and 1", len(tm.Cells), tm.Hidden)
	}
	tm, err = OfPartition(m, part2, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkMap(t, m, part2, tm)
	if tm.Hidden != 0 || len(tm.Cells) != 5 {
		t.Errorf("by leaves: %d cells, %d hidden; want 5 and 0", len(tm.Cells), tm.Hidden)
	}
	// A root inside an aggregate: that node alone.
	tm, err = OfPartition(m, part2, Options{Root: id("a/a2")})
	if err != nil {
		t.Fatal(err)
	}
	if len(tm.Cells) != 1 || tm.Cells[0].Node != id("a/a2") || tm.Cells[0].Aggregated || tm.Cells[0].Area() != 1 {
		t.Errorf("root inside an aggregate: %+v", tm.Cells)
	}
}

func TestTreemapErrors(t *testing.T) {
	b := hier.NewBuilder("root")
	b.Add(0, "a")
	tree, _ := b.Build()
	m := model(tree, []string{"x"}, 1, []float64{1})
	part := &aggregate.Partition{Parts: []aggregate.Part{{Node: 0}}}
	variable := model(tree, []string{"v"}, 1, []float64{1})
	variable.Metric = micro.VariableAverage
	for _, c := range []struct {
		m    *micro.Model
		part *aggregate.Partition
		opt  Options
		want string
	}{
		{m, part, Options{Value: "area"}, `value: must be "leaves" or "activity"`},
		{variable, part, Options{Value: Activity}, "variable_average"},
		{m, &aggregate.Partition{}, Options{}, "no aggregates"},
		{m, part, Options{Root: 7}, "root: node 7"},
		{m, part, Options{Width: -1}, "width"},
		{m, part, Options{Height: math.NaN()}, "width"},
		{m, &aggregate.Partition{Parts: []aggregate.Part{{Node: 0, Last: 3}}}, Options{}, "does not fit"},
	} {
		_, err := OfPartition(c.m, c.part, c.opt)
		var ae *errs.ArgumentError
		if !errors.As(err, &ae) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want an argument error saying %q", c.opt, err, c.want)
		}
	}
	if _, err := NodeByPath(tree, "a/b", "/"); err == nil || !strings.Contains(err.Error(), `"a/b"`) {
		t.Errorf("unknown path: %v", err)
	}
	if v, err := NodeByPath(tree, "a", "/"); err != nil || v != 1 {
		t.Errorf("path a: %d, %v", v, err)
	}
}
