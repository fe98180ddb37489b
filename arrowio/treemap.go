package arrowio

import (
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/core/views/treemap"
)

// TreemapTable lists the rectangles of the treemap of an aggregation, in
// preorder (a group's rectangles follow it): the node's path, name and
// depth, parent (row of the enclosing rectangle, -1 for the root),
// aggregated (the node is an aggregate of the partition), group (its
// children are shown inside it), leaves (resources under it), value (the
// measure of its area), x, y (lower-left corner, y up), w, h, the mode
// state, its mean proportion, and the mean of every state ("prop:" +
// state) over the window.
func TreemapTable(tm *treemap.Map, mem memory.Allocator) arrow.RecordBatch {
	m := tm.Model
	tree := m.Tree
	n := len(tm.Cells)
	node := make([]string, n)
	name := make([]string, n)
	depth := make([]int32, n)
	parent := make([]int32, n)
	aggregated := make([]bool, n)
	group := make([]bool, n)
	leaves := make([]int32, n)
	value := make([]float64, n)
	x, y, w, h := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	mode := make([]int32, n)
	modeProp := make([]float64, n)
	props := make([][]float64, len(m.States))
	for s := range props {
		props[s] = make([]float64, n)
	}
	for i, c := range tm.Cells {
		node[i] = tree.Path(c.Node, PathSep)
		name[i] = tree.Names[c.Node]
		depth[i] = tree.Depth[c.Node]
		parent[i] = c.Parent
		aggregated[i], group[i] = c.Aggregated, c.Group
		leaves[i] = int32(tree.NumLeaves(c.Node))
		value[i] = c.Value
		x[i], y[i], w[i], h[i] = c.X, c.Y, c.W, c.H
		mode[i], modeProp[i] = int32(c.Mode), c.ModeProportion
		if c.ModeProportion == 0 {
			mode[i] = -1 // no activity: no mode
		}
		for s, v := range tm.CellMeans(i) {
			props[s][i] = v
		}
	}
	c := newColumns(mem, n)
	c.strings("node", node)
	c.strings("name", name)
	c.int32s("depth", depth)
	c.int32s("parent", parent)
	c.bools("aggregated", aggregated)
	c.bools("group", group)
	c.int32s("leaves", leaves)
	c.float64s("value", value)
	c.float64s("x", x)
	c.float64s("y", y)
	c.float64s("w", w)
	c.float64s("h", h)
	c.optionalCategories("mode", m.States, mode)
	c.float64s("mode_proportion", modeProp)
	for s, st := range m.States {
		c.float64s("prop:"+st, props[s])
	}
	meta := modelMeta(m)
	meta["macroscope.treemap.value"] = string(tm.Value)
	meta["macroscope.treemap.width"] = strconv.FormatFloat(tm.Bounds.W, 'g', -1, 64)
	meta["macroscope.treemap.height"] = strconv.FormatFloat(tm.Bounds.H, 'g', -1, 64)
	meta["macroscope.treemap.first_slice"] = strconv.Itoa(int(tm.First))
	meta["macroscope.treemap.last_slice"] = strconv.Itoa(int(tm.Last))
	meta["macroscope.treemap.hidden"] = strconv.Itoa(tm.Hidden)
	return c.batch(meta)
}
