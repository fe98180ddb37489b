package pybind

import (
	"fmt"

	"github.com/macroscope-hpc/macroscope/arrowio"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
	"github.com/macroscope-hpc/macroscope/plots"
)

// What the notebook widgets need from the core and cannot compute from the
// other tables: the hierarchy's rows, the static figures' colours, and a
// model restricted to a window of its slices.

// Hierarchy exports the nodes of the model's hierarchy with the rows they
// cover (arrowio.HierarchyTable).
func (m *MicroModel) Hierarchy(addr uintptr) (err error) {
	defer guard(&err)
	return export(arrowio.HierarchyTable(m.m, cmem), addr)
}

// Cells exports the model's values that are not zero, by row, slice and
// state number (arrowio.CellsTable).
func (m *MicroModel) Cells(addr uintptr) (err error) {
	defer guard(&err)
	return export(arrowio.CellsTable(m.m, cmem), addr)
}

// Rows exports each aggregate's node id and rows (arrowio.PartRowsTable).
func (a *Aggregation) Rows(addr uintptr) (err error) {
	defer guard(&err)
	return export(arrowio.PartRowsTable(a.model.m, a.part, cmem), addr)
}

// CategoryColors returns, as a JSON list of "#rrggbb", the colours the
// static figures give the first n categories, so that widgets agree.
func CategoryColors(n int) (js string, err error) {
	defer guard(&err)
	out := make([]string, max(n, 0))
	for i := range out {
		c := plots.CategoryColor(i)
		out[i] = fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)
	}
	return toJSON(out)
}

// Window returns the model of slices first to last (inclusive): the same
// resources and cells over a shorter time, for zooming into a model that
// has no trace behind it to rebuild from.
func (m *MicroModel) Window(first, last int) (w *MicroModel, err error) {
	defer guard(&err)
	sub, err := m.m.Window(first, last)
	if err != nil {
		return nil, err
	}
	return &MicroModel{m: sub, in: aggregate.Input{Tree: sub.Tree, Slices: sub.Slices, States: len(sub.States), Values: sub.Values, Cells: sub.Cells},
		source: m.source, stateTypes: m.stateTypes, summary: m.summary}, nil
}
