package arrowio

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
)

// HierarchyTable lists the nodes of a model's hierarchy in node order
// (a parent before its children): id, parent (-1 for the root), depth,
// name, path, and the rows its resources take in the overview, row_lo to
// row_hi (exclusive; rows are the leaves in order). Interactive views draw
// and label the rows from it.
func HierarchyTable(m *micro.Model, mem memory.Allocator) arrow.RecordBatch {
	t := m.Tree
	n := t.Len()
	id := make([]int32, n)
	path := make([]string, n)
	for i := range n {
		id[i] = int32(i)
		path[i] = t.Path(int32(i), PathSep)
	}
	c := newColumns(mem, n)
	c.int32s("id", id)
	c.int32s("parent", t.Parent)
	c.int32s("depth", t.Depth)
	c.strings("name", t.Names)
	c.strings("path", path)
	c.int32s("row_lo", t.LeafLo)
	c.int32s("row_hi", t.LeafHi)
	return c.batch(modelMeta(m))
}

// PartRowsTable gives, for each aggregate of p in the order of
// PartitionTable, its node's id in the hierarchy and the rows it covers,
// row_lo to row_hi (exclusive): node paths may repeat (two containers of
// the same name), node ids do not.
func PartRowsTable(m *micro.Model, p *aggregate.Partition, mem memory.Allocator) arrow.RecordBatch {
	rec, _ := PartRowsTableCancel(m, p, mem, nil)
	return rec
}

// PartRowsTableCancel is PartRowsTable stopped by cancel (Ctrl-C): it
// looks every trace.StopEvery aggregates and before each column, and once
// closed returns trace.ErrComputationCanceled and nothing.
func PartRowsTableCancel(m *micro.Model, p *aggregate.Partition, mem memory.Allocator, cancel <-chan struct{}) (arrow.RecordBatch, error) {
	n := len(p.Parts)
	node, lo, hi := make([]int32, n), make([]int32, n), make([]int32, n)
	for i, pt := range p.Parts {
		if lookAt(i, cancel) {
			break
		}
		node[i] = pt.Node
		lo[i], hi[i] = m.Tree.LeafLo[pt.Node], m.Tree.LeafHi[pt.Node]
	}
	c := newColumns(mem, n)
	c.cancel = cancel
	c.int32s("node_id", node)
	c.int32s("row_lo", lo)
	c.int32s("row_hi", hi)
	return c.finish(nil)
}

// CellsTable lists the model's values that are not zero by number: row
// (the leaf, 0 at the top), slice and state indices, and value, in the
// order of the cells. Interactive views rebuild the cells of a window from
// it; names may repeat (two containers or states of the same name),
// numbers do not.
func CellsTable(m *micro.Model, mem memory.Allocator) arrow.RecordBatch {
	rec, _ := CellsTableCancel(m, mem, nil)
	return rec
}

// CellsTableCancel is CellsTable stopped by cancel (Ctrl-C): it looks
// every trace.StopEvery cells, and once closed returns
// trace.ErrComputationCanceled and nothing.
func CellsTableCancel(m *micro.Model, mem memory.Allocator, cancel <-chan struct{}) (arrow.RecordBatch, error) {
	c := newColumns(mem, m.NonZero())
	c.cancel = cancel
	row, slice, state := c.int32Column("row"), c.int32Column("slice"), c.int32Column("state")
	value := c.float64Column("value")
	i := 0
	at := func(leaf, k, x int, v float64) {
		row[i], slice[i], state[i], value[i] = int32(leaf), int32(k), int32(x), v
		i++
	}
	cells := m.NumCells()
	for lo := 0; lo < cells && !c.stopped(); lo += trace.StopEvery {
		m.EachNonZeroIn(lo, min(lo+trace.StopEvery, cells), at)
	}
	return c.finish(modelMeta(m))
}
