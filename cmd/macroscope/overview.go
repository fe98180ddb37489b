package main

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/arrowio"
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
aggregates at the recommended level (or at -p) and draws the overview.`,
	run: runOverview,
}

func runOverview(c *cli) error {
	c.aggregationFlags(aggregate.KindSpatiotemporal, "spatiotemporal, spatial (a cut of the hierarchy over the window) or temporal (time cuts shared by every resource)")
	c.figureFlags("overview.png", 960, 576)
	table := c.tableFlag("table", "aggregates.parquet", "aggregates table")
	levelsOut := c.tableFlag("levels", "", "table of the significant levels of p")
	if err := c.parse(1, 1); err != nil {
		return err
	}
	began := time.Now()
	path := c.fs.Arg(0)
	m, err := c.readModel(path)
	if err != nil {
		return err
	}
	a, err := c.aggregate(m, *levelsOut != "")
	if err != nil {
		return err
	}
	w, h := c.figureSize()
	title := fmt.Sprintf("%s, p = %.3g", filepath.Base(path), a.p)
	if c.kind != aggregate.KindSpatiotemporal {
		title = fmt.Sprintf("%s, %s aggregation, p = %.3g", filepath.Base(path), c.kind, a.p)
	}
	img, err := plots.Overview(m, a.in, a.part, plots.OverviewOptions{Width: w, Height: h, Format: c.imgFormat, Title: title})
	if err != nil {
		return err
	}
	if err := c.writeFigure(img); err != nil {
		return err
	}
	if *table != "" {
		if err := c.writeTable(*table, arrowio.PartitionTable(m, a.in, a.part, memory.DefaultAllocator), ""); err != nil {
			return err
		}
	}
	if *levelsOut != "" {
		if err := c.writeTable(*levelsOut, arrowio.LevelsTable(a.levels, a.rec, memory.DefaultAllocator), ""); err != nil {
			return err
		}
	}
	c.say("done in", "%.2f s", time.Since(began).Seconds())
	return nil
}
