package pybind

import (
	"encoding/json"
	"fmt"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
	"path/filepath"
	"strings"
	"sync"

	"gonum.org/v1/plot/vg"

	"github.com/macroscope-hpc/macroscope/arrowio"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/views/forcelayout"
	"github.com/macroscope-hpc/macroscope/core/views/topology"
	"github.com/macroscope-hpc/macroscope/plots"
)

// Topology is the topology-based view of a trace (Schnorr, Legrand and
// Vincent 2012) and the state of its exploration: collapsed groups,
// window, positions. Unlike the other results it changes (collapse,
// expand, layout: Python changes a Clone); a mutex serialises the calls.
type Topology struct {
	mu     sync.Mutex
	tp     *topology.Topology
	source string
	// incomplete says why the trace was incomplete (none: complete).
	incomplete []string
	stats      *forcelayout.Stats // of the last layout
}

// topologyOptions mirror Trace.topology's keyword arguments.
type topologyOptions struct {
	Size   json.RawMessage `json:"size"`  // a name, a list of names, or {kind: name}
	Fill   json.RawMessage `json:"fill"`  // idem
	Edges  json.RawMessage `json:"edges"` // "platform", "communications" or a list of link types
	Kinds  []string        `json:"kinds"`
	Start  json.RawMessage `json:"start"`
	End    json.RawMessage `json:"end"`
	Charge string          `json:"charge"`
}

// metric decodes a size or fill option.
func metric(name string, raw json.RawMessage) (names []string, byKind map[string]string, err error) {
	text := strings.TrimSpace(string(raw))
	switch {
	case text == "" || text == "null":
		return nil, nil, nil
	case strings.HasPrefix(text, `"`):
		var s string
		err = json.Unmarshal(raw, &s)
		names = []string{s}
	case strings.HasPrefix(text, "["):
		err = json.Unmarshal(raw, &names)
	case strings.HasPrefix(text, "{"):
		err = json.Unmarshal(raw, &byKind)
	default:
		err = fmt.Errorf("not a name")
	}
	if err != nil {
		return nil, nil, errs.Argument(name, "must be a variable name, a list of names or a dict {kind: name}, got %s", raw)
	}
	return names, byKind, nil
}

// TopologyOfTrace builds the topology-based view of a trace; options is a
// JSON object (see topologyOptions).
func (t *Trace) Topology(options string) (tp *Topology, err error) {
	defer guard(&err)
	return t.topology(options, nil)
}

// StartTopology starts building the topology-based view of a trace
// (options as Topology's); a Work whose Topology is the view, so that
// Ctrl-C stops the construction.
func (t *Trace) StartTopology(options string) (w *Work, err error) {
	defer guard(&err)
	var tp *Topology
	w = startWork(func(ctl *aggregate.Control) error {
		built, err := t.topology(options, ctl.Cancel)
		tp = built
		return err
	})
	w.result = func() any { return tp }
	return w, nil
}

// Topology waits for the end of a StartTopology work and returns the
// view, or its error.
func (w *Work) Topology() (tp *Topology, err error) {
	defer guard(&err)
	r, err := w.finished("topology")
	if tp, ok := r.(*Topology); ok && tp != nil {
		return tp, nil
	}
	return nil, orNone(err, "topology")
}

func (t *Trace) topology(options string, cancel <-chan struct{}) (tp *Topology, err error) {
	var o topologyOptions
	if err := decodeOptions(options, &o); err != nil {
		return nil, err
	}
	opt := topology.Options{Kinds: o.Kinds, Charge: o.Charge, Cancel: cancel}
	if opt.Size, opt.SizeByKind, err = metric("size", o.Size); err != nil {
		return nil, err
	}
	if opt.Fill, opt.FillByKind, err = metric("fill", o.Fill); err != nil {
		return nil, err
	}
	if text := strings.TrimSpace(string(o.Edges)); text != "" && text != "null" {
		if strings.HasPrefix(text, "[") {
			if err := json.Unmarshal(o.Edges, &opt.EdgeTypes); err != nil {
				return nil, errs.Argument("edges", "must be \"platform\", \"communications\" or a list of link types, got %s", text)
			}
		} else if err := json.Unmarshal(o.Edges, &opt.EdgeSource); err != nil {
			return nil, errs.Argument("edges", "must be \"platform\", \"communications\" or a list of link types, got %s", text)
		}
	}
	if opt.Start, err = parseInstant("start", o.Start); err != nil {
		return nil, err
	}
	if opt.End, err = parseInstant("end", o.End); err != nil {
		return nil, err
	}
	if opt.Start, opt.End, err = window(opt.Start, opt.End, t.t); err != nil {
		return nil, err
	}
	g, err := topology.Build(t.t, opt)
	if err != nil {
		return nil, err
	}
	source := ""
	if len(t.t.Files) > 0 {
		source = t.t.Files[0]
	}
	return &Topology{tp: g, source: source, incomplete: incompleteOf(t)}, nil
}

// Info describes the view as JSON: counts, kinds and their metrics, the
// window, the collapsed groups and the last layout.
func (g *Topology) Info() (js string, err error) {
	defer guard(&err)
	g.mu.Lock()
	defer g.mu.Unlock()
	v := g.tp.View()
	kinds, size, fill := g.tp.Kinds()
	start, end := g.tp.Window()
	kept, skipped := g.tp.Links()
	aggregated := 0
	for _, n := range v.Nodes {
		if n.Aggregated {
			aggregated++
		}
	}
	info := map[string]any{
		"nodes": len(v.Nodes), "edges": len(v.Edges), "aggregated": aggregated, "resources": g.tp.Leaves(),
		"kinds": kinds, "size": size, "fill": fill, "edge_types": g.tp.EdgeTypes(),
		"links": kept, "links_skipped": skipped,
		"start": start.Seconds(), "end": end.Seconds(), "start_ns": int64(start), "end_ns": int64(end),
		"origin": g.tp.Trace().Start.Seconds(), "origin_ns": int64(g.tp.Trace().Start),
		"collapsed": g.tp.Collapsed(), "laid_out": g.tp.LaidOut(), "source": g.source,
		"incomplete": g.incomplete, "kind_colours": kindColours(v),
	}
	if s := g.stats; s != nil {
		last := 0.0
		if len(s.Energy) > 0 {
			last = s.Energy[len(s.Energy)-1]
		}
		info["layout"] = map[string]any{"iterations": s.Iterations, "converged": s.Converged, "energy": last}
	}
	return toJSON(info)
}

// Groups lists the groups that can be collapsed, as JSON: paths, depths.
func (g *Topology) Groups() (js string, err error) {
	defer guard(&err)
	g.mu.Lock()
	defer g.mu.Unlock()
	paths, depths := g.tp.Groups()
	return toJSON(map[string]any{"paths": paths, "depths": depths})
}

// Table exports the "nodes" or "edges" of the view.
func (g *Topology) Table(name string, addr uintptr) (err error) {
	defer guard(&err)
	g.mu.Lock()
	defer g.mu.Unlock()
	start, end := g.tp.Window()
	meta := map[string]string{"macroscope.start": start.String(), "macroscope.end": end.String()}
	switch name {
	case "nodes":
		return export(arrowio.TopologyNodesTable(g.tp.View(), meta, cmem), addr)
	case "edges":
		return export(arrowio.TopologyEdgesTable(g.tp.View(), meta, cmem), addr)
	}
	return errs.Argument("table", "unknown topology table %q (nodes or edges)", name)
}

// Clone returns a copy of the view that changes independently of g: the
// Python methods that change a view change a clone and return it.
func (g *Topology) Clone() (c *Topology, err error) {
	defer guard(&err)
	g.mu.Lock()
	defer g.mu.Unlock()
	return &Topology{tp: g.tp.Clone(), source: g.source, incomplete: g.incomplete, stats: g.stats}, nil
}

// Collapse replaces the nodes of the group at path by one node per kind.
func (g *Topology) Collapse(path string) (err error) {
	defer guard(&err)
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.tp.Collapse(path)
}

// Expand undoes Collapse.
func (g *Topology) Expand(path string) (err error) {
	defer guard(&err)
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.tp.Expand(path)
}

// CollapseDepth shows the graph with every group at depth d collapsed.
func (g *Topology) CollapseDepth(d int) (err error) {
	defer guard(&err)
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.tp.CollapseDepth(d)
}

// CollapseOptimal collapses the groups of the optimal spatial aggregation
// of Lamarche-Perrin et al. 2014 at p and returns their paths as JSON.
func (g *Topology) CollapseOptimal(p float64) (js string, err error) {
	defer guard(&err)
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.collapseOptimal(p)
}

// collapseOptimal is CollapseOptimal, g.mu held.
func (g *Topology) collapseOptimal(p float64) (string, error) {
	paths, err := g.tp.CollapseOptimal(p)
	if err != nil {
		return "", err
	}
	if paths == nil {
		paths = []string{}
	}
	return toJSON(paths)
}

// ExpandAll expands every group.
func (g *Topology) ExpandAll() (err error) {
	defer guard(&err)
	g.mu.Lock()
	defer g.mu.Unlock()
	g.tp.ExpandAll()
	return nil
}

// StartChange starts a change of the view as a Work, so that Ctrl-C stops
// it on a large graph: op is "collapse", "expand" (arg a JSON path),
// "collapse_depth" (a depth), "collapse_optimal" (p), "expand_all" or
// "set_window" (arg SetWindow's options). Its JSON is what the method of
// the same name returns (the groups CollapseOptimal collapsed), "null"
// for the others. A stopped change leaves the view half changed: Python
// changes a Clone, dropped then.
func (g *Topology) StartChange(op, arg string) (w *Work, err error) {
	defer guard(&err)
	var change func(h *Topology) (string, error)
	none := func(f func() error) (string, error) { return "null", f() }
	switch op {
	case "collapse", "expand":
		var path string
		if err := json.Unmarshal([]byte(arg), &path); err != nil {
			return nil, errs.Argument("path", "must be a string, got %s", arg)
		}
		change = func(h *Topology) (string, error) {
			if op == "collapse" {
				return none(func() error { return h.tp.Collapse(path) })
			}
			return none(func() error { return h.tp.Expand(path) })
		}
	case "collapse_depth":
		var d int
		if err := json.Unmarshal([]byte(arg), &d); err != nil {
			return nil, errs.Argument("depth", "must be an integer, got %s", arg)
		}
		change = func(h *Topology) (string, error) { return none(func() error { return h.tp.CollapseDepth(d) }) }
	case "collapse_optimal":
		var p float64
		if err := json.Unmarshal([]byte(arg), &p); err != nil {
			return nil, errs.Argument("p", "must be a number, got %s", arg)
		}
		change = func(h *Topology) (string, error) { return h.collapseOptimal(p) }
	case "expand_all":
		change = func(h *Topology) (string, error) { return none(func() error { h.tp.ExpandAll(); return nil }) }
	case "set_window":
		change = func(h *Topology) (string, error) { return none(func() error { return h.setWindow(arg) }) }
	default:
		return nil, errs.Argument("op", "unknown change of a topology %q", op)
	}
	var js string
	w = startWork(func(ctl *aggregate.Control) error {
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.tp.Change(ctl.Cancel, func(*topology.Topology) error {
			var err error
			js, err = change(g)
			return err
		})
	})
	w.result = func() any { return js }
	return w, nil
}

type windowOptions struct {
	Start json.RawMessage `json:"start"`
	End   json.RawMessage `json:"end"`
}

// SetWindow changes the time window ({"start": s, "end": s}; an absent
// bound is the trace's), keeping positions and collapsed groups.
func (g *Topology) SetWindow(options string) (err error) {
	defer guard(&err)
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.setWindow(options)
}

// setWindow is SetWindow, g.mu held.
func (g *Topology) setWindow(options string) error {
	var o windowOptions
	if err := decodeOptions(options, &o); err != nil {
		return err
	}
	t := g.tp.Trace()
	s, err := parseInstant("start", o.Start)
	if err != nil {
		return err
	}
	e, err := parseInstant("end", o.End)
	if err != nil {
		return err
	}
	// Seconds from the trace's start (trace.Window).
	start, end, err := trace.Window(s, e, t.Start, t.End)
	if err != nil {
		return err
	}
	return g.tp.SetWindow(start, end)
}

// topoLayoutOptions mirror Topology.layout's keyword arguments.
type topoLayoutOptions struct {
	Iterations int      `json:"iterations"`
	Seed       uint64   `json:"seed"`
	Theta      *float64 `json:"theta"`
	Exact      bool     `json:"exact"`
	RestLength float64  `json:"rest_length"`
	Attraction float64  `json:"attraction"`
	Repulsion  float64  `json:"repulsion"`
	Tolerance  float64  `json:"tolerance"`
}

func (o topoLayoutOptions) params() (forcelayout.Params, error) {
	p := forcelayout.Params{MaxIterations: o.Iterations, Seed: o.Seed, Exact: o.Exact,
		RestLength: o.RestLength, Attraction: o.Attraction, Repulsion: o.Repulsion, Tolerance: o.Tolerance}
	if o.Iterations < 0 {
		return p, errs.Argument("iterations", "must be positive, got %d", o.Iterations)
	}
	if o.Theta != nil {
		p.Theta, p.ExactTheta = *o.Theta, *o.Theta == 0
	}
	return p, nil
}

// Layout runs the force-directed layout from the current positions and
// returns its statistics as JSON.
func (g *Topology) Layout(options string) (js string, err error) {
	defer guard(&err)
	g.mu.Lock()
	defer g.mu.Unlock()
	var o topoLayoutOptions
	if err := decodeOptions(options, &o); err != nil {
		return "", err
	}
	p, err := o.params()
	if err != nil {
		return "", err
	}
	st, err := g.tp.Layout(p)
	if err != nil {
		return "", err
	}
	g.stats = &st
	return toJSON(map[string]any{"iterations": st.Iterations, "converged": st.Converged, "energy": st.Energy})
}

// StartLayout runs Layout on a goroutine of its own (see Work), so that
// Python shows its progress (iterations over the cap) and stops it on
// Ctrl-C; a stopped layout keeps the positions it reached.
func (g *Topology) StartLayout(options string) (w *Work, err error) {
	defer guard(&err)
	var o topoLayoutOptions
	if err := decodeOptions(options, &o); err != nil {
		return nil, err
	}
	p, err := o.params()
	if err != nil {
		return nil, err
	}
	return startWork(func(ctl *aggregate.Control) error {
		p.Cancel = ctl.Cancel
		p.Progress = func(done, max int) { ctl.Progress(done, float64(done)/float64(max)) }
		g.mu.Lock()
		defer g.mu.Unlock()
		st, err := g.tp.Layout(p)
		if err != nil {
			return err
		}
		g.stats = &st
		return nil
	}), nil
}

// LaidOut tells whether the view has positions for the graph as it is
// (Plot lays it out first otherwise).
func (g *Topology) LaidOut() (ok bool, err error) {
	defer guard(&err)
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.tp.LaidOut(), nil
}

type topoPlotOptions struct {
	Width   float64  `json:"width"`
	Height  float64  `json:"height"`
	Format  string   `json:"format"`
	Title   *string  `json:"title"`
	Labels  bool     `json:"labels"`
	MaxNode float64  `json:"max_node"`
	Notes   []string `json:"notes"`
}

// Plot draws the view (laying it out first if the graph changed since the
// last layout) and returns the image file's bytes; width and height are
// in pixels.
func (g *Topology) Plot(options string) (img []byte, err error) {
	defer guard(&err)
	return g.plot(options, nil)
}

// StartPlot starts Plot as a Work, which Ctrl-C stops while the layout
// (when the graph changed) and the drawing go; Work.Image gives the
// image.
func (g *Topology) StartPlot(options string) (w *Work, err error) {
	defer guard(&err)
	var img []byte
	w = startWork(func(ctl *aggregate.Control) error {
		var err error
		img, err = g.plot(options, ctl.Cancel)
		return err
	})
	w.result = func() any { return img }
	return w, nil
}

// plot is Plot, stopped once cancel is closed.
func (g *Topology) plot(options string, cancel <-chan struct{}) ([]byte, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	o := topoPlotOptions{Format: "png", Width: 960, Height: 820}
	f, err := decodePlotOptions(options, &o, &o.Format)
	if err != nil {
		return nil, err
	}
	if !(o.Width > 0 && o.Height > 0) {
		return nil, errs.Argument("width", "width and height must be positive pixels, got %v x %v", o.Width, o.Height)
	}
	if !g.tp.LaidOut() {
		st, err := g.tp.Layout(forcelayout.Params{Cancel: cancel})
		if err != nil {
			return nil, err
		}
		g.stats = &st
	}
	title := ""
	if o.Title != nil {
		title = *o.Title
	} else {
		title = "topology"
		if g.source != "" {
			title = filepath.Base(g.source) + ": topology"
		}
	}
	notes := o.Notes
	if notes == nil {
		notes = g.notes()
	}
	if note := incompleteNote(g.incomplete); note != "" {
		notes = append([]string{note}, notes...)
	}
	const ptPerPx = 72.0 / 96
	return plots.Topology(g.tp.View(), plots.TopologyOptions{
		Width: vg.Length(o.Width * ptPerPx), Height: vg.Length(o.Height * ptPerPx), Format: f,
		Title: title, Notes: notes, Labels: o.Labels, MaxNode: vg.Length(o.MaxNode * ptPerPx), Cancel: cancel,
	})
}

// notes says what the figure shows: counts, window, metrics.
func (g *Topology) notes() []string {
	v := g.tp.View()
	start, end := g.tp.Window()
	kinds, size, fill := g.tp.Kinds()
	var metrics []string
	for i, k := range kinds {
		s, f := size[i], fill[i]
		if s == "" {
			s = "-"
		}
		if f == "" {
			f = "-"
		}
		metrics = append(metrics, fmt.Sprintf("%s %s/%s", k, f, s))
	}
	first := fmt.Sprintf("%d nodes, %d edges; window [%g, %g] s", len(v.Nodes), len(v.Edges), start.Seconds(), end.Seconds())
	if c := g.tp.Collapsed(); len(c) > 0 {
		first += fmt.Sprintf("; %d groups collapsed", len(c))
	}
	return []string{first, "fill (used/capacity): " + strings.Join(metrics, ", ")}
}

// kindColours are the colours of the view's kinds of node in its figure,
// "#rrggbb" by kind (plots.TopologyKindColors), for the explorer.
func kindColours(v *topology.View) map[string]string {
	out := map[string]string{}
	for kind, c := range plots.TopologyKindColors(v) {
		out[kind] = plots.Hex(c)
	}
	return out
}
