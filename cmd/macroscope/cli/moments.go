package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/arrowio"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/moments"
	"github.com/macroscope-hpc/macroscope/plots"
)

var momentsCommand = command{
	name:     "moments",
	summary:  "moments of utilization of every resource, computed while reading: table and figure",
	synopsis: "[flags] trace",
	about: `
Computes the moments of utilization of every resource while reading the
trace (its states are not kept): m0 busy time, m1 mean, m2 scaled deviation
sqrt(3 mu2), m3 scaled skew 3 cbrt(mu3), in seconds.`,
	run: runMoments,
}

func runMoments(c *cli) error {
	var busy, idle, stateTypes nameList
	c.fs.Var(&busy, "busy", "comma-separated state values that count as busy (default: every state)")
	c.fs.Var(&idle, "idle", "comma-separated state values that do not count as busy; every other does")
	c.fs.Var(&stateTypes, "state-types", "comma-separated state types to look at (default: all)")
	gaps := c.fs.Bool("gaps", false, "also count the time a resource spends in no state as busy")
	nesting := c.fs.String("nesting", "innermost", "nested states: innermost (the top of the stack decides) or union (busy while any busy state is open)")
	by := c.fs.String("by", "resource", "one row per resource, state (of each resource) or node (of the hierarchy)")
	quiet := c.fs.Bool("quiet", false, "do not print the table")
	c.alias("quiet", "q")
	c.traceFlags()
	c.windowFlags()
	c.figureFlags("moments.png", 960, 0)
	table := c.tableFlag("table", "moments.parquet", "table of the moments")
	if err := c.parse(1, 1); err != nil {
		return err
	}
	path := c.arg(0)
	// --start and --end count from the trace's start (trace.Window).
	opt := moments.Options{StateTypes: stateTypes.names, Gaps: *gaps, Start: c.start, End: c.end, Relative: true}
	switch {
	case busy.set && idle.set:
		return errs.Argument("busy", "give --busy or --idle, not both")
	case busy.set:
		opt.Select, opt.Values = moments.Only, busy.names
		c.paramFlags["values"] = "--busy"
	case idle.set:
		opt.Select, opt.Values = moments.AllBut, idle.names
		c.paramFlags["values"] = "--idle"
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

	began := time.Now()
	check := opt
	check.Relative = false // its window's order checked, as seconds from the start
	if _, err := moments.New(check); err != nil {
		return err // bad options, before the read
	}
	// Through the door, with the reader options of --read (sort=true for
	// a Pajé trace not sorted by time, for instance).
	src, err := c.open(path)
	if err != nil {
		return err
	}
	var ro trace.ReadOptions
	read := func(sink trace.Sink) error {
		var done func(error) error
		ro, done = c.readOptions(path)
		err := guarded(path, func() error { return src.Read(sink, ro) })
		if berr := done(err); berr != nil && c.ctx.Err() == nil {
			return berr
		}
		return err
	}
	r, err := moments.Stream(read, src.Probe, opt)
	if err != nil {
		var fe *errs.FormatError
		if errors.As(err, &fe) {
			return err
		}
		// Other than bad options, the reader delivered an inconsistent
		// stream: the file is at fault.
		var ae *errs.ArgumentError
		if errors.As(err, &ae) {
			return err
		}
		return &errs.FormatError{File: path, Err: err}
	}
	if len(r.Resources) == 0 {
		return noStates("compute moments of", stateTypes.names)
	}
	rows, err := r.Rows(kind)
	if err != nil {
		return err
	}
	c.say("trace", "%s: %d resources, window %s, read in %.2f s",
		path, len(r.Resources), span(r.Start, r.End, r.Origin), time.Since(began).Seconds())
	c.sayNotes(ro.Notes)
	if !*quiet {
		printMoments(c.stdout, rows, kind, r.Origin)
	}
	if *table != "" {
		rec := arrowio.MomentsTable(rows, arrowio.MomentsColumnsFor(kind), map[string]string{
			"macroscope.start": r.Start.String(), "macroscope.end": r.End.String(), "macroscope.by": kind.String(),
		}, memory.DefaultAllocator)
		if err := c.writeTable(*table, rec, ""); err != nil {
			return err
		}
	}
	if *c.figure != "" {
		w, h := c.figureSize()
		colors, err := plots.TraceStateColors(r.Types, r.Values, nil) // the overview's
		if err != nil {
			return err
		}
		img, err := plots.ResultFigure(rows, kind, r.Start, r.End, plots.MomentsOptions{Origin: r.Origin,
			Width: w, Height: h, Format: c.imgFormat, StateColors: colors,
			Title: fmt.Sprintf("%s: moments of utilization by %s", filepath.Base(path), kind),
		})
		if err != nil {
			return err
		}
		if err := c.writeFigure(img); err != nil {
			return err
		}
	}
	return nil
}

// printMoments prints one line per row: path, state and the moments, m1
// in seconds from origin, the trace's start (the table keeps it on the
// trace's clock).
func printMoments(w io.Writer, rows []moments.Row, by moments.By, origin trace.Time) {
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
		m := r.Sums.MomentsFrom(origin)
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
