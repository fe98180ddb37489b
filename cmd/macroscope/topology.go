package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"gonum.org/v1/plot/vg"

	"github.com/macroscope-hpc/macroscope/arrowio"
	"github.com/macroscope-hpc/macroscope/arrowio/files"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/forcelayout"
	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/topology"
	"github.com/macroscope-hpc/macroscope/plots"
)

func runTopology(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("topology", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var kinds, size, fill, collapse nameList
	edges := fs.String("edges", "", "where edges come from: platform, communications, or comma-separated link types (default: the platform's links if any, else the communications)")
	fs.Var(&kinds, "kinds", "comma-separated container types whose containers are nodes (default: the ends of the edges and HOST, LINK, ROUTER)")
	fs.Var(&size, "size", "comma-separated names of the capacity variable, the first each kind has (default: power, speed, bandwidth)")
	fs.Var(&fill, "fill", "comma-separated names of the utilization variable (default: power_used, speed_used, bandwidth_used)")
	fs.Var(&collapse, "collapse", "comma-separated paths of groups to collapse (\"\" is the root)")
	depth := fs.Int("depth", 0, "collapse every group at this depth of the hierarchy (1: the children of the root); 0: none")
	optimal := fs.Float64("optimal", -1, "collapse the groups of the optimal spatial aggregation at this p in [0, 1] (Lamarche-Perrin et al. 2014)")
	format := fs.String("format", "", "trace format (paje, otf2, chrome, paraver, pjdump); default: by extension or content")
	start := fs.String("start", "", "window start in seconds (default: trace start)")
	end := fs.String("end", "", "window end in seconds (default: trace end)")
	charge := fs.String("charge", "", "charge of an aggregate in the layout: sqrt (of its members; default), members or unit")
	iterations := fs.Int("iterations", 0, "cap on the layout's iterations (default 500)")
	seed := fs.Uint64("seed", 0, "seed of the initial positions")
	nodesTable := fs.String("nodes", "", "write the nodes table (.csv, .parquet, .feather)")
	edgesTable := fs.String("edges-table", "", "write the edges table (.csv, .parquet, .feather)")
	figure := fs.String("o", "", "draw the graph (.png or .svg)")
	width := fs.Int("width", 960, "figure width in pixels")
	height := fs.Int("height", 820, "figure height in pixels")
	fs.Usage = func() {
		fmt.Fprintln(stderr, `usage: macroscope topology [flags] trace

Builds the topology-based view of Schnorr, Legrand and Vincent 2012: the
resources of the trace (hosts, links, routers, or processes) as nodes sized
by their capacity and filled by their utilization over the window, their
relations as edges, groups of the hierarchy collapsed as asked, laid out by
a force-directed layout (Barnes-Hut).

flags:`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	path := fs.Arg(0)
	opt := topology.Options{Charge: *charge}
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
	var err error
	if opt.Start, err = parseSeconds("start", *start); err != nil {
		return err
	}
	if opt.End, err = parseSeconds("end", *end); err != nil {
		return err
	}
	var imgFormat plots.Format
	if *figure != "" {
		if imgFormat, err = plots.ParseFormat(*figure); err != nil {
			return err
		}
		if *width <= 0 || *height <= 0 {
			return errs.Argument("width", "the figure must be at least a pixel wide and high, got %d x %d", *width, *height)
		}
	}
	if *iterations < 0 {
		return errs.Argument("iterations", "must be positive, got %d", *iterations)
	}

	began := time.Now()
	tr, err := formats.ReadFile(path, *format)
	if err != nil {
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
		fmt.Fprintf(stdout, "optimal %d groups collapsed at p = %g\n", len(groups), *optimal)
	}
	if collapse.set {
		for _, g := range collapse.names {
			if err := tp.Collapse(g); err != nil {
				return err
			}
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
	fmt.Fprintf(stdout, "trace   %s: window %s-%s s, read in %.2f s\n", path, s, e, time.Since(began).Seconds())
	fmt.Fprintf(stdout, "graph   %d nodes: %s; %d edges\n", len(v.Nodes), strings.Join(parts, ", "), len(v.Edges))
	if *figure != "" || *nodesTable != "" {
		t0 := time.Now()
		st, err := tp.Layout(forcelayout.Params{MaxIterations: *iterations, Seed: *seed})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "layout  %d iterations (converged: %v) in %.2f s\n", st.Iterations, st.Converged, time.Since(t0).Seconds())
	}
	meta := map[string]string{"macroscope.start": s.String(), "macroscope.end": e.String()}
	for _, out := range []struct {
		path  string
		nodes bool
	}{{*nodesTable, true}, {*edgesTable, false}} {
		if out.path == "" {
			continue
		}
		rec := arrowio.TopologyEdgesTable(tp.View(), meta, memory.DefaultAllocator)
		if out.nodes {
			rec = arrowio.TopologyNodesTable(tp.View(), meta, memory.DefaultAllocator)
		}
		err := files.Write(rec, out.path)
		rec.Release()
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote   %s\n", out.path)
	}
	if *figure != "" {
		img, err := plots.Topology(tp.View(), plots.TopologyOptions{
			Width: vg.Length(*width) * 0.75, Height: vg.Length(*height) * 0.75, Format: imgFormat,
			Title: filepath.Base(path) + ": topology",
			Notes: []string{fmt.Sprintf("%d nodes, %d edges; window [%g, %g] s", len(v.Nodes), len(v.Edges), s.Seconds(), e.Seconds())},
		})
		if err != nil {
			return err
		}
		if err := writeFile(*figure, img); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote   %s\n", *figure)
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
