package pybind

import (
	"encoding/json"
	"fmt"

	"github.com/macroscope-hpc/macroscope/arrowio"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
	"github.com/macroscope-hpc/macroscope/core/views/kaleido"
	"github.com/macroscope-hpc/macroscope/plots"
)

// CallTree is a dynamic call or spawn tree (Tick and Park 1991).
type CallTree struct {
	t *kaleido.Tree
	// incomplete says why the trace was incomplete (none: complete).
	incomplete []string
}

// callTreeOptions mirror Trace.call_tree's keyword arguments.
type callTreeOptions struct {
	StateTypes   []string `json:"state_types"`
	Containers   []string `json:"containers"`
	Root         string   `json:"root"`
	PerContainer bool     `json:"per_container"`
}

// StartCallTreeOfTrace starts building the call tree of the nested states
// of a trace: a Work whose CallTree is the tree, so that Ctrl-C stops it.
func StartCallTreeOfTrace(t *Trace, options string) (w *Work, err error) {
	defer guard(&err)
	var o callTreeOptions
	if err := decodeOptions(options, &o); err != nil {
		return nil, err
	}
	var c *CallTree
	w = startWork(func(ctl *aggregate.Control) error {
		tree, err := kaleido.FromTrace(t.t, kaleido.TraceOptions{
			StateTypes: o.StateTypes, Containers: o.Containers, Root: o.Root, PerContainer: o.PerContainer,
			Cancel: ctl.Cancel,
		})
		if err != nil {
			return errs.NameFile(err, t.t.Files...)
		}
		c = &CallTree{t: tree, incomplete: incompleteOf(t)}
		return nil
	})
	w.result = func() any { return c }
	return w, nil
}

// StartSpawnTreeOfTrace starts building the spawn tree the links of type
// linkType draw between the trace's containers (goroutine creations in Go
// traces): a Work whose CallTree is the tree, so that Ctrl-C stops it.
func StartSpawnTreeOfTrace(t *Trace, linkType string) (w *Work, err error) {
	defer guard(&err)
	var c *CallTree
	w = startWork(func(ctl *aggregate.Control) error {
		tree, err := kaleido.FromSpawnLinksCancel(t.t, linkType, ctl.Cancel)
		if err != nil {
			return err
		}
		c = &CallTree{t: tree, incomplete: incompleteOf(t)}
		return nil
	})
	w.result = func() any { return c }
	return w, nil
}

type treeTableOptions struct {
	Order string `json:"order"` // "start" or "rows"
}

// CallTreeFromTable builds a tree from the table in the ArrowArrayStream
// at addr (columns id, parent, and optionally procedure, pe, start or
// start_ns; see arrowio.ImportCallTree).
func CallTreeFromTable(addr uintptr, options string) (c *CallTree, err error) {
	defer guard(&err)
	o := treeTableOptions{Order: "rows"}
	if err := decodeOptions(options, &o); err != nil {
		return nil, err
	}
	if o.Order != "rows" && o.Order != "start" {
		return nil, errs.Argument("order", "must be \"rows\" or \"start\", got %q", o.Order)
	}
	tree, err := arrowio.ImportCallTree(addr, arrowio.TreeTableOptions{OrderByStart: o.Order == "start"})
	if err != nil {
		return nil, err
	}
	return &CallTree{t: tree}, nil
}

// Info describes the tree as JSON.
func (c *CallTree) Info() (js string, err error) {
	defer guard(&err)
	t := c.t
	ids := "int"
	switch {
	case t.StrKeys != nil:
		ids = "str"
	case t.IntKeys == nil:
		ids = "node"
	}
	return toJSON(map[string]any{
		"nodes": t.Len(), "height": t.Height, "procedures": len(t.Procedures), "pes": len(t.PEs),
		"has_start": t.HasStart(), "has_procedure": t.Procedure != nil, "has_pe": t.PE != nil,
		"ids": ids, "root": t.Key(0), "incomplete": c.incomplete,
		"origin": t.Origin.Seconds(), "origin_ns": int64(t.Origin),
	})
}

// Table exports the nodes of the tree.
func (c *CallTree) Table(addr uintptr) (err error) {
	defer guard(&err)
	return export(arrowio.CallTreeTable(c.t, cmem), addr)
}

type layoutOptions struct {
	Width        float64         `json:"width"`
	LevelSpacing float64         `json:"level_spacing"`
	Subtree      json.RawMessage `json:"subtree"`
	MinSector    float64         `json:"min_sector"`
}

// StartLayout starts laying the tree out in a window (Tick and Park
// 1991): a Work whose Kaleidoscope is the layout, so that Ctrl-C stops
// it.
func (c *CallTree) StartLayout(options string) (w *Work, err error) {
	defer guard(&err)
	o := layoutOptions{Width: 850}
	if err := decodeOptions(options, &o); err != nil {
		return nil, err
	}
	// The window is the figure's side: bounded as figures are.
	if !(o.Width >= 1 && o.Width <= plots.MaxSide) {
		return nil, errs.Argument("width", "must be from 1 to %d pixels, got %v", plots.MaxSide, o.Width)
	}
	sub, err := c.node(o.Subtree)
	if err != nil {
		return nil, err
	}
	var k *Kaleidoscope
	w = startWork(func(ctl *aggregate.Control) error {
		l, err := c.t.Layout(kaleido.Options{Width: o.Width, LevelSpacing: o.LevelSpacing, Subtree: sub, MinSector: o.MinSector,
			Cancel: ctl.Cancel})
		if err != nil {
			return err
		}
		k = &Kaleidoscope{l: l, incomplete: c.incomplete}
		return nil
	})
	w.result = func() any { return k }
	return w, nil
}

// node finds the node whose id is the JSON value raw (absent: the root).
func (c *CallTree) node(raw json.RawMessage) (int32, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, nil
	}
	t := c.t
	if t.StrKeys != nil {
		var key string
		if err := json.Unmarshal(raw, &key); err != nil {
			return 0, errs.Argument("subtree", "ids of this tree are strings, got %s", raw)
		}
		for v, r := range t.Row {
			if t.StrKeys[r] == key {
				return int32(v), nil
			}
		}
		return 0, errs.Argument("subtree", "no node with id %q", key)
	}
	var id int64
	if err := json.Unmarshal(raw, &id); err != nil {
		return 0, errs.Argument("subtree", "ids of this tree are integers, got %s", raw)
	}
	if t.IntKeys == nil { // a trace's tree: ids are node numbers
		if id >= 0 && id < int64(t.Len()) {
			return int32(id), nil
		}
	} else {
		for v, r := range t.Row {
			if t.IntKeys[r] == id {
				return int32(v), nil
			}
		}
	}
	return 0, errs.Argument("subtree", "no node with id %d", id)
}

// Kaleidoscope is a call tree laid out radially (Tick and Park 1991).
type Kaleidoscope struct {
	l          *kaleido.Layout
	incomplete []string // why the trace was incomplete (none: complete)
}

// Info describes the layout as JSON: the window and the condensing.
func (k *Kaleidoscope) Info() (js string, err error) {
	defer guard(&err)
	l := k.l
	c := l.Condensing
	return toJSON(map[string]any{
		"width": l.Width, "level_spacing": l.Spacing, "min_sector": l.MinSector, "root": l.Tree.Key(l.Root),
		"nodes": l.Len(), "height": c.Height, "h_max": c.MaxHeight, "condensed": c.Active,
		"c0": c.C0, "threshold": c.Threshold, "levels": l.Levels,
		"kept": l.NumKept, "drawn": l.NumDrawn, "collapsed": l.NumCollapsed,
		"incomplete": k.incomplete,
		// The trace's first instant: the explorer shows start times from it.
		"origin": l.Tree.Origin.Seconds(), "origin_ns": int64(l.Tree.Origin),
	})
}

// Table exports the laid-out nodes.
func (k *Kaleidoscope) Table(addr uintptr) (err error) {
	defer guard(&err)
	return export(arrowio.KaleidoscopeTable(k.l, cmem), addr)
}

type kaleidoPlotOptions struct {
	View   string            `json:"view"`
	Format string            `json:"format"`
	Title  string            `json:"title"`
	Colors map[string]string `json:"colors"`
}

// StartPlot starts drawing the kaleidoscope: a Work whose Image is the
// image file's bytes, so that Ctrl-C stops the drawing.
func (k *Kaleidoscope) StartPlot(options string) (w *Work, err error) {
	defer guard(&err)
	o := kaleidoPlotOptions{Format: "png", View: plots.KaleidoscopeByPE}
	f, err := decodePlotOptions(options, &o, &o.Format)
	if err != nil {
		return nil, err
	}
	var img []byte
	w = startWork(func(ctl *aggregate.Control) error {
		drawn, err := plots.Kaleidoscope(k.l, plots.KaleidoscopeOptions{View: o.View, Format: f, Title: o.Title,
			Notes: []string{incompleteNote(k.incomplete)}, Colors: o.Colors, Cancel: ctl.Cancel})
		img = drawn
		return err
	})
	w.result = func() any { return img }
	return w, nil
}

// Legend returns, as JSON {"labels": [...], "short": [...], "colours":
// ["#rrggbb", ...]}, the PEs or procedures of a view (options: view,
// colors) in colour order with the names as the figure writes them
// (plots.KaleidoscopeLabel) and the colours it paints them, for the
// interactive view.
func (k *Kaleidoscope) Legend(options string) (js string, err error) {
	defer guard(&err)
	var o kaleidoPlotOptions
	if err := decodeOptions(options, &o); err != nil {
		return "", err
	}
	names, colors, err := plots.KaleidoscopeLegend(k.l.Tree, o.View, o.Colors)
	if err != nil {
		return "", err
	}
	out := struct {
		Labels  []string `json:"labels"`
		Short   []string `json:"short"`
		Colours []string `json:"colours"`
	}{names, make([]string, len(names)), make([]string, len(colors))}
	for i, name := range names {
		out.Short[i] = plots.KaleidoscopeLabel(name)
	}
	for i, c := range colors {
		out.Colours[i] = fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)
	}
	return toJSON(out)
}
