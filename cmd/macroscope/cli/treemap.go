package cli

import (
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/arrowio"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/gen/synthmodel"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
	"github.com/macroscope-hpc/macroscope/core/views/treemap"
	"github.com/macroscope-hpc/macroscope/plots"
)

// scenarios are the synthetic models the treemap command can draw without
// a trace: Lamarche-Perrin et al.'s large-scale validation, and smaller versions of it.
var scenarios = map[string]synthmodel.Scenario{
	"million": synthmodel.Million(),
	"100k":    {Fanout: [5]int{10, 10, 10, 10, 10}, Slices: 1, Noise: 0.002, Contrast: 0.4},
	"small":   {Fanout: [5]int{4, 2, 2, 2, 2}, Slices: 1, Noise: 0.002, Contrast: 0.4},
}

var treemapCommand = command{
	name:     "treemap",
	summary:  "squarified treemap of the optimal cut of the hierarchy: figure and table of rectangles",
	synopsis: "[flags] trace\n--scenario million [flags]",
	about: `
Aggregates the trace optimally (by default a cut of the hierarchy,
Lamarche-Perrin et al. 2014) and draws the squarified treemap of the
aggregates, with a table of its rectangles.`,
	run: runTreemap,
}

func runTreemap(c *cli) error {
	scenario := c.fs.String("scenario", "", "draw a synthetic model instead of a trace: million (Lamarche-Perrin et al.'s 1,000,000 processes), 100k or small")
	seed := c.fs.Uint64("seed", 0, "with --scenario: a variant with random noise and the heterogeneous groups elsewhere (0: the paper's layout)")
	value := c.fs.String("value", "leaves", "area of a rectangle: leaves (resources) or activity (time in states)")
	root := c.fs.String("root", "", "path of the hierarchy node at the top (default: everything)")
	proportions := c.fs.Bool("proportions", true, "divide every aggregate into a strip per state as wide as its share (default; --no-proportions: the mode state's colour)")
	c.negatable("proportions")
	zooms := c.fs.Int("zooms", 3, "enlarged views of detailed groups too small to read")
	c.aggregationFlags(aggregate.KindSpatial, "spatial (a cut of the hierarchy) or spatiotemporal")
	c.figureFlags("treemap.png", 960, 720)
	table := c.tableFlag("table", "treemap.parquet", "rectangles table")
	if err := c.parse(0, 1); err != nil {
		return err
	}
	switch { // a trace or a scenario
	case *scenario == "" && len(c.positional) == 0:
		return c.usageError("")
	case *scenario != "" && len(c.positional) > 0:
		return c.usageError("give a trace or --scenario, not both")
	}
	if c.kind == aggregate.KindTemporal {
		return errs.Argument("kind", "a temporal aggregation never merges resources: its treemap is the hierarchy; use spatial or spatiotemporal")
	}
	val, err := treemap.ParseValue(*value)
	if err != nil {
		return err
	}
	began := time.Now()
	var m *micro.Model
	var name string
	if *scenario != "" {
		sc, ok := scenarios[*scenario]
		if !ok {
			return errs.Argument("scenario", "%q is not one of million, 100k, small", *scenario)
		}
		sc.Seed = *seed
		if m, err = sc.Model(); err != nil {
			return err
		}
		name = thousands(sc.Processes()) + " processes"
		c.say("model", "%d resources x %d slices x %d states", m.NumLeaves(), m.Slices, len(m.States))
	} else {
		name = c.arg(0)
		if m, err = c.readModel(name); err != nil {
			return err
		}
	}
	a, err := c.aggregate(m, false)
	if err != nil {
		return err
	}
	topt := treemap.Options{Value: val, Cancel: c.ctx.Done()}
	if *root != "" {
		if topt.Root, err = treemap.NodeByPath(m.Tree, *root, arrowio.PathSep); err != nil {
			return err
		}
	}
	tm, err := treemap.OfPartition(m, a.part, topt)
	if err != nil {
		return err
	}
	c.say("treemap", "%d rectangles by %s", len(tm.Cells), val)
	if *zooms == 0 {
		*zooms = -1
	}
	if *c.figure != "" {
		w, h := c.figureSize()
		img, err := plots.Treemap(m, a.part, plots.TreemapOptions{
			Width: w, Height: h, Format: c.imgFormat,
			Title: fmt.Sprintf("%s, %s aggregation, p = %.3g", filepath.Base(name), c.kind, a.p),
			Value: val, Root: topt.Root, Proportions: *proportions, Zooms: *zooms, Cancel: c.ctx.Done(),
		})
		if err != nil {
			return err
		}
		if err := c.writeFigure(img); err != nil {
			return err
		}
	}
	if *table != "" {
		if err := c.writeTable(*table, arrowio.TreemapTable(tm, memory.DefaultAllocator), fmt.Sprintf("%d rectangles", len(tm.Cells))); err != nil {
			return err
		}
	}
	c.say("done in", "%.2f s", time.Since(began).Seconds())
	return nil
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
