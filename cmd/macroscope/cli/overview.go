package cli

import (
	"fmt"
	"path/filepath"
	"sort"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/arrowio"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
	"github.com/macroscope-hpc/macroscope/plots"
)

var overviewCommand = command{
	name:     "overview",
	summary:  "optimal aggregation (spatiotemporal, spatial or temporal) at the recommended p: figure and tables",
	synopsis: "[flags] trace",
	about: `
Builds the microscopic model of the trace while reading it, finds every
significant level of detail of the optimal aggregation of the kind asked
(Dosimont et al. 2014's spatiotemporal partitions, Lamarche-Perrin et al.
2014's cuts of the hierarchy, or time cuts shared by every resource),
aggregates at the recommended level (or at --p) and draws the overview,
writes the aggregates and the significant levels as tables, and names
the largest aggregates.`,
	run: runOverview,
}

func runOverview(c *cli) error {
	c.aggregationFlags(aggregate.KindSpatiotemporal, "spatiotemporal, spatial (a cut of the hierarchy over the window) or temporal (time cuts shared by every resource)")
	c.figureFlags("overview.png", 960, 576)
	table := c.tableFlag("table", "aggregates.parquet", "aggregates table")
	// No default file: --p auto finds the recommended level alone (the
	// knee), and the sweep of every level is run only when this names a file.
	levelsOut := c.tableFlag("levels", "", "table of every significant level of p, found by a sweep of the levels")
	if err := c.parse(1, 1); err != nil {
		return err
	}
	began := time.Now()
	path := c.arg(0)
	m, err := c.readModel(path)
	if err != nil {
		return err
	}
	a, err := c.aggregate(m, *levelsOut != "")
	if err != nil {
		return err
	}
	c.sayLargest(m, a, 3)
	// The table of aggregates is written while the figure is drawn: the
	// two are independent, about a second each on 100,000 resources. The
	// files are named in the same order as when written one after the other.
	tableWritten := inBackground(func() error {
		if *table == "" {
			return nil
		}
		return c.saveTable(*table, arrowio.PartitionTable(m, a.in, a.part, memory.DefaultAllocator))
	})
	figErr := c.overviewFigure(m, a, path)
	tableErr := tableWritten()
	if tableErr == nil && *table != "" {
		// Named even when the figure failed: the file is there, complete.
		c.say("wrote", "%s", c.path(*table))
	}
	if figErr != nil {
		return figErr
	}
	if tableErr != nil {
		return tableErr
	}
	if *levelsOut != "" && a.levels != nil {
		if err := c.writeTable(*levelsOut, arrowio.LevelsTable(a.levels, a.rec, memory.DefaultAllocator), ""); err != nil {
			return err
		}
	}
	c.say("done in", "%.2f s", time.Since(began).Seconds())
	return nil
}

// inBackground runs f on a goroutine of its own and returns the wait for
// its end and error. A panic of f is raised again by the wait, on the
// caller's goroutine, where the command reports internal errors.
func inBackground(f func() error) (wait func() error) {
	var (
		err      error
		panicked any
		done     = make(chan struct{})
	)
	go func() {
		defer close(done)
		defer func() { panicked = recover() }()
		err = f()
	}()
	return func() error {
		<-done
		if panicked != nil {
			panic(panicked)
		}
		return err
	}
}

// overviewFigure draws the overview of aggregation a of model m (read
// from path) to --figure, if asked for, and says so.
func (c *cli) overviewFigure(m *micro.Model, a *aggregation, path string) error {
	if *c.figure == "" {
		return nil
	}
	w, h := c.figureSize()
	title := fmt.Sprintf("%s, p = %.3g", filepath.Base(path), a.p)
	if c.kind != aggregate.KindSpatiotemporal {
		title = fmt.Sprintf("%s, %s aggregation, p = %.3g", filepath.Base(path), c.kind, a.p)
	}
	img, err := plots.Overview(m, a.in, a.part, plots.OverviewOptions{Width: w, Height: h, Format: c.imgFormat, Title: title, Cancel: c.ctx.Done()})
	if err != nil {
		return err
	}
	return c.writeFigure(img)
}

// sayLargest names the n largest aggregates, of the most resources x
// slices (the first of the aggregates' order among equals): their node,
// resources, time range and mode state. The largest are what the figure
// shows most of: a row of every resource over one slice is not.
func (c *cli) sayLargest(m *micro.Model, a *aggregation, n int) {
	order := make([]int, len(a.part.Parts))
	for i := range order {
		order[i] = i
	}
	leaves := func(i int) int { return m.Tree.NumLeaves(a.part.Parts[i].Node) }
	area := func(i int) int { return leaves(i) * int(a.part.Parts[i].Last-a.part.Parts[i].First+1) }
	sort.SliceStable(order, func(i, j int) bool { return area(order[i]) > area(order[j]) })
	fmt.Fprintln(c.stdout, "largest aggregates:")
	means := make([]float64, len(m.States))
	for _, i := range order[:min(n, len(order))] {
		pt := a.part.Parts[i]
		node := m.Tree.Path(pt.Node, arrowio.PathSep)
		if node == "" {
			node = plots.RootLabel
		}
		aggregate.MeanValues(a.in, pt, means)
		x, share := aggregate.Mode(means)
		mode := "in no state"
		if share > 0 {
			mode = fmt.Sprintf("mostly %s (%.0f%%)", m.States[x], 100*share)
		}
		fmt.Fprintf(c.stdout, "  %s: %s, %s-%s s, %s\n", node, plural(leaves(i), "resource"),
			since(m.SliceStart(int(pt.First)), m.Origin), since(m.SliceStart(int(pt.Last)+1), m.Origin), mode)
	}
}

// plural writes n things.
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
