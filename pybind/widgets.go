package pybind

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

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

// StartCells starts Cells as a Work whose Export gives the table, so that
// Ctrl-C stops it.
func (m *MicroModel) StartCells() (w *Work, err error) {
	defer guard(&err)
	return startTable(func(cancel <-chan struct{}) (arrow.RecordBatch, error) {
		return arrowio.CellsTableCancel(m.m, cmem, cancel)
	}), nil
}

// StartRows starts Rows as a Work whose Export gives the table, so that
// Ctrl-C stops it.
func (a *Aggregation) StartRows() (w *Work, err error) {
	defer guard(&err)
	return startTable(func(cancel <-chan struct{}) (arrow.RecordBatch, error) {
		return arrowio.PartRowsTableCancel(a.model.m, a.part, cmem, cancel)
	}), nil
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

// StateColors returns, as JSON, the colours the model's figures paint its
// states (plots.ModelStateColors: the options' "colors" overrides, the
// trace's colours, the palette's, the grey of "other"), for the
// explorers: "colors", "#rrggbb" parallel to the model's states, and
// "grouped", whether the figures draw each as "other".
func (m *MicroModel) StateColors(options string) (js string, err error) {
	defer guard(&err)
	var o struct {
		Colors map[string]string `json:"colors"`
	}
	if err := decodeOptions(options, &o); err != nil {
		return "", err
	}
	colors, grouped, err := plots.ModelStateColors(m.m, o.Colors)
	if err != nil {
		return "", err
	}
	out := make([]string, len(colors))
	for i, c := range colors {
		out[i] = plots.Hex(c)
	}
	return toJSON(map[string]any{"colors": out, "grouped": grouped, "other": plots.Hex(plots.OtherColor)})
}

// StateColors returns, as a JSON object from state name to "#rrggbb",
// the colours the moment display paints the states of the rows
// (plots.MomentsStateColors), for the explorer.
func (m *Moments) StateColors(options string) (js string, err error) {
	defer guard(&err)
	var o struct {
		Colors map[string]string `json:"colors"`
	}
	if err := decodeOptions(options, &o); err != nil {
		return "", err
	}
	named, err := plots.TraceStateColors(m.types, m.values, o.Colors)
	if err != nil {
		return "", err
	}
	out := map[string]string{}
	for name, c := range plots.MomentsStateColors(m.rows, named) {
		out[name] = plots.Hex(c)
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

// StateColors returns, as a JSON list of "#rrggbb" parallel to the
// comparison's states, the colours its figure gives them (the runs'
// trace colours, then the palette's: plots.ResolveColors), for the
// explorer.
func (c *Comparison) StateColors() (js string, err error) {
	defer guard(&err)
	colors, err := plots.ResolveColors(c.set.States, c.set.Colors, nil)
	if err != nil {
		return "", err
	}
	out := make([]string, len(colors))
	for i, col := range colors {
		out[i] = plots.Hex(col)
	}
	return toJSON(out)
}
