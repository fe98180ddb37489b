package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"gonum.org/v1/plot/vg"

	"github.com/macroscope-hpc/macroscope/arrowio"
	"github.com/macroscope-hpc/macroscope/arrowio/files"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/moments"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/plots"
)

// nameList is a comma-separated list flag that remembers whether it was
// given, so that "-busy=" (no state is busy) differs from no flag.
type nameList struct {
	names []string
	set   bool
}

func (l *nameList) String() string { return strings.Join(l.names, ",") }

func (l *nameList) Set(s string) error {
	l.set, l.names = true, nil
	for _, n := range strings.Split(s, ",") {
		if n = strings.TrimSpace(n); n != "" {
			l.names = append(l.names, n)
		}
	}
	return nil
}

func runMoments(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("moments", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var busy, idle, stateTypes nameList
	fs.Var(&busy, "busy", "comma-separated state values that count as busy (default: every state)")
	fs.Var(&idle, "idle", "comma-separated state values that do not count as busy; every other does")
	fs.Var(&stateTypes, "state-types", "comma-separated state types to look at (default: all)")
	gaps := fs.Bool("gaps", false, "also count the time a resource spends in no state as busy")
	nesting := fs.String("nesting", "innermost", "nested states: innermost (the top of the stack decides) or union (busy while any busy state is open)")
	by := fs.String("by", "resource", "one row per resource, state (of each resource) or node (of the hierarchy)")
	format := fs.String("format", "", "trace format (paje, otf2, chrome, paraver, pjdump); default: by extension or content")
	start := fs.String("start", "", "window start in seconds (default: trace start)")
	end := fs.String("end", "", "window end in seconds (default: trace end)")
	table := fs.String("table", "", "also write the table (.csv, .parquet, .feather)")
	figure := fs.String("o", "", "draw the moment display (.png or .svg)")
	width := fs.Int("width", 960, "figure width in pixels")
	height := fs.Int("height", 0, "figure height in pixels (default: from the number of rows)")
	quiet := fs.Bool("q", false, "do not print the table")
	fs.Usage = func() {
		fmt.Fprintln(stderr, `usage: macroscope moments [flags] trace

Computes the moments of utilization of every resource while reading the
trace (its states are not kept): m0 busy time, m1 mean, m2 scaled deviation
sqrt(3 mu2), m3 scaled skew 3 cbrt(mu3), in seconds.

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
	opt := moments.Options{StateTypes: stateTypes.names, Gaps: *gaps}
	switch {
	case busy.set && idle.set:
		return errs.Argument("busy", "give -busy or -idle, not both")
	case busy.set:
		opt.Select, opt.Values = moments.Only, busy.names
	case idle.set:
		opt.Select, opt.Values = moments.AllBut, idle.names
	}
	var err error
	if opt.Nesting, err = moments.ParseNesting(*nesting); err != nil {
		return err
	}
	kind, err := moments.ParseBy(*by)
	if err != nil {
		return err
	}
	opt.ByState = kind == moments.ByState
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
		if *width <= 0 || *height < 0 {
			return errs.Argument("width", "the figure must be at least a pixel wide, got %d x %d", *width, *height)
		}
	}

	began := time.Now()
	acc, err := moments.New(opt)
	if err != nil {
		return err
	}
	if err := formats.Read(path, *format, acc, trace.ReadOptions{}); err != nil {
		return err
	}
	r, err := acc.Result()
	if err != nil {
		// Other than bad options, the reader delivered an inconsistent
		// stream: the file is at fault.
		var ae *errs.ArgumentError
		if errors.As(err, &ae) {
			return err
		}
		return &errs.FormatError{File: path, Err: err}
	}
	rows, err := r.Rows(kind)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "trace   %s: %d resources, window %s-%s s, read in %.2f s\n",
		path, len(r.Resources), r.Start, r.End, time.Since(began).Seconds())
	if !*quiet {
		printMoments(stdout, rows, kind)
	}
	if *table != "" {
		rec := arrowio.MomentsTable(rows, arrowio.MomentsColumnsFor(kind), map[string]string{
			"macroscope.start": r.Start.String(), "macroscope.end": r.End.String(), "macroscope.by": kind.String(),
		}, memory.DefaultAllocator)
		defer rec.Release()
		if err := files.Write(rec, *table); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote   %s\n", *table)
	}
	if *figure != "" {
		img, err := plots.ResultFigure(rows, kind, r.Start, r.End, plots.MomentsOptions{
			Width: vg.Length(*width) * 0.75, Height: vg.Length(*height) * 0.75, Format: imgFormat,
			Title: fmt.Sprintf("%s: moments of utilization by %s", filepath.Base(path), kind),
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

// printMoments prints one line per row: path, state, the moments and the
// exact busy time.
func printMoments(w io.Writer, rows []moments.Row, by moments.By) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	key := "resource"
	if by == moments.ByNode {
		key = "node\tresources"
	}
	if by == moments.ByState {
		key = "resource\tstate"
	}
	fmt.Fprintf(tw, "%s\tm0 (s)\tm1 (s)\tm2 (s)\tm3 (s)\t\n", key)
	for _, r := range rows {
		m := r.Sums.Moments()
		label := r.Path
		switch by {
		case moments.ByNode:
			if label == "" {
				label = plots.RootLabel
			}
			label += fmt.Sprintf("\t%d", r.Resources)
		case moments.ByState:
			label += "\t" + r.State
		}
		fmt.Fprintf(tw, "%s\t%.9g\t%.9g\t%.9g\t%.9g\t\n", label, m.M0, m.M1, m.M2, m.M3)
	}
	tw.Flush()
}
