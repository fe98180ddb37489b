package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/arrowio"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/views/forcelayout"
	"github.com/macroscope-hpc/macroscope/core/views/topology"
	"github.com/macroscope-hpc/macroscope/plots"
)

var topologyCommand = command{
	name:     "topology",
	summary:  "topology-based view: resources and their links as a graph, sized by capacity, filled by use",
	synopsis: "[flags] trace",
	about: `
Builds the topology-based view of Schnorr, Legrand and Vincent 2012: the
resources of the trace (hosts, links, routers, or processes) as nodes sized
by their capacity and filled by their utilization over the window, their
relations as edges, groups of the hierarchy collapsed as asked, laid out by
a force-directed layout (Barnes-Hut).`,
	run: runTopology,
}

func runTopology(c *cli) error {
	var kinds, size, fill, collapse nameList
	edges := c.fs.String("edges", "", "where edges come from: platform, communications, or comma-separated link types (default: the platform's links if any, else the communications)")
	c.fs.Var(&kinds, "kinds", "comma-separated container types whose containers are nodes (default: the ends of the edges and HOST, LINK, ROUTER)")
	c.fs.Var(&size, "size", "comma-separated names of the capacity variable, the first each kind has (default: power, speed, bandwidth)")
	c.fs.Var(&fill, "fill", "comma-separated names of the utilization variable (default: power_used, speed_used, bandwidth_used)")
	c.fs.Var(&collapse, "collapse", "comma-separated paths of groups to collapse (\"\" is the root)")
	depth := c.fs.Int("depth", 0, "collapse every group at this depth of the hierarchy (1: the children of the root); 0: none")
	optimal := c.fs.Float64("optimal", -1, "collapse the groups of the optimal spatial aggregation at this p in [0, 1] (Lamarche-Perrin et al. 2014; default: none)")
	charge := c.fs.String("charge", "", "charge of an aggregate in the layout: members (the sum of theirs; default), sqrt (of its members) or unit")
	iterations := c.fs.Int("iterations", 0, "cap on the layout's iterations (default 500)")
	seed := c.fs.Uint64("seed", 0, "seed of the initial positions")
	c.traceFlags()
	c.windowFlags()
	c.figureFlags("topology.png", 960, 820)
	nodesTable := c.tableFlag("nodes", "nodes.parquet", "table of the nodes")
	edgesTable := c.tableFlag("edges-table", "edges.parquet", "table of the edges")
	if err := c.parse(1, 1); err != nil {
		return err
	}
	path := c.arg(0)
	opt := topology.Options{Charge: *charge, Start: c.start, End: c.end, Cancel: c.ctx.Done()}
	if kinds.set {
		opt.Kinds = kinds.names
	}
	if size.set {
		opt.Size = size.names
	}
	if fill.set {
		opt.Fill = fill.names
	}
	switch e := strings.TrimSpace(*edges); {
	case e == topology.EdgesPlatform || e == topology.EdgesCommunications || e == "":
		opt.EdgeSource = e
	default:
		opt.EdgeTypes = strings.Split(e, ",")
	}
	if *iterations < 0 {
		return errs.Argument("iterations", "must be positive, got %d", *iterations)
	}
	if *optimal != -1 && !(*optimal >= 0 && *optimal <= 1) {
		return errs.Argument("optimal", "must be a p in [0, 1], got %g", *optimal)
	}

	began := time.Now()
	tr, err := c.readTrace(path)
	if err != nil {
		return err
	}
	// --start and --end count from the trace's start.
	if opt.Start, opt.End, err = resolveWindow(opt.Start, opt.End, tr); err != nil {
		return err
	}
	tp, err := topology.Build(tr, opt)
	if err != nil {
		return err
	}
	if *depth > 0 {
		if err := tp.CollapseDepth(*depth); err != nil {
			return err
		}
	}
	if *optimal >= 0 {
		groups, err := tp.CollapseOptimal(*optimal)
		if err != nil {
			return err
		}
		c.say("optimal", "%d groups collapsed at p = %g", len(groups), *optimal)
	}
	for _, g := range collapse.names {
		if err := tp.Collapse(g); err != nil {
			return err
		}
	}
	v := tp.View()
	kindNames, sizeNames, fillNames := tp.Kinds()
	count := map[string]int{}
	for _, n := range v.Nodes {
		count[n.Kind]++
	}
	var parts []string
	for i, k := range kindNames {
		parts = append(parts, fmt.Sprintf("%d %s (size %s, fill %s)", count[k], k, orDash(sizeNames[i]), orDash(fillNames[i])))
	}
	s, e := tp.Window()
	collapsed := ""
	if n := len(tp.Collapsed()); n > 0 {
		collapsed = fmt.Sprintf("; %d groups collapsed", n)
	}
	c.say("graph", "%d nodes: %s; %d edges%s; window %s", len(v.Nodes), strings.Join(parts, ", "), len(v.Edges), collapsed, span(s, e, tr.Start))
	if *c.figure != "" || *nodesTable != "" {
		t0 := time.Now()
		st, err := tp.Layout(forcelayout.Params{MaxIterations: *iterations, Seed: *seed, Cancel: c.ctx.Done()})
		if err != nil {
			return err
		}
		c.say("layout", "%d iterations (converged: %v) in %.2f s", st.Iterations, st.Converged, time.Since(t0).Seconds())
	}
	meta := map[string]string{"macroscope.start": s.String(), "macroscope.end": e.String()}
	if *nodesTable != "" {
		if err := c.writeTable(*nodesTable, arrowio.TopologyNodesTable(tp.View(), meta, memory.DefaultAllocator), ""); err != nil {
			return err
		}
	}
	if *edgesTable != "" {
		if err := c.writeTable(*edgesTable, arrowio.TopologyEdgesTable(tp.View(), meta, memory.DefaultAllocator), ""); err != nil {
			return err
		}
	}
	if *c.figure != "" {
		w, h := c.figureSize()
		img, err := plots.Topology(tp.View(), plots.TopologyOptions{
			Width: w, Height: h, Format: c.imgFormat,
			Title: filepath.Base(path) + ": topology",
			Notes: []string{fmt.Sprintf("%d nodes, %d edges; window %s", len(v.Nodes), len(v.Edges), span(s, e, tr.Start))},
		})
		if err != nil {
			return err
		}
		if err := c.writeFigure(img); err != nil {
			return err
		}
	}
	c.say("done in", "%.2f s", time.Since(began).Seconds())
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
