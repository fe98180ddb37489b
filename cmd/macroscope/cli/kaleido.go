package cli

import (
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/arrowio"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/views/kaleido"
	"github.com/macroscope-hpc/macroscope/plots"
)

var kaleidoCommand = command{
	name:     "kaleido",
	summary:  "kaleidoscope of the call tree of the nested states: figure and table of laid-out nodes",
	synopsis: "[flags] trace",
	about: `
Builds the dynamic call tree of the nested states of the trace (a state
that began inside another of the same container and state type is its
callee; the outermost states of all containers hang from one root) and
draws it as Tick and Park 1991's kaleidoscope: the root at the centre, each
level on a circle, each family a polygon, coloured by processing element,
procedure or start time, the tree condensed to fit the window. The table
lists the laid-out nodes.`,
	run: runKaleido,
}

func runKaleido(c *cli) error {
	var stateTypes, containers nameList
	c.fs.Var(&stateTypes, "state-types", "comma-separated state types whose states make the tree (default: all)")
	c.fs.Var(&containers, "containers", "comma-separated containers (names or paths) whose states make the tree, with their descendants' (default: all)")
	perContainer := c.fs.Bool("per-container", false, "one node per container between the root and its outermost states")
	root := c.fs.String("root", "program", "procedure name of the root")
	view := c.fs.String("view", plots.KaleidoscopeByPE, "what the colours show: pe, procedure or time")
	subtree := c.fs.Int("subtree", 0, "number of the node at the centre (its row in the table; 0, the root: the whole tree, condensed)")
	spacing := c.fs.Float64("spacing", 0, "pixels between levels (0: the largest whole number that fits, at least 4)")
	minSector := c.fs.Float64("min-sector", 1, "a node whose sector is narrower along its circle, in pixels, is drawn without its descendants")
	c.traceFlags()
	c.figureFlags("kaleido.png", 850, -1)
	table := c.tableFlag("table", "kaleido.parquet", "table of the laid-out nodes")
	if err := c.parse(1, 1); err != nil {
		return err
	}
	switch *view {
	case plots.KaleidoscopeByPE, plots.KaleidoscopeByProcedure, plots.KaleidoscopeByTime:
	default:
		return errs.Argument("view", "%q is not pe, procedure or time", *view)
	}
	if !(*spacing >= 0) || !(*minSector > 0) {
		return errs.Argument("spacing", "--spacing must be 0 or more and --min-sector more than 0, got %g and %g", *spacing, *minSector)
	}

	began := time.Now()
	path := c.arg(0)
	tr, err := c.readTrace(path)
	if err != nil {
		return err
	}
	tree, err := kaleido.FromTrace(tr, kaleido.TraceOptions{
		StateTypes: stateTypes.names, Containers: containers.names, Root: *root, PerContainer: *perContainer,
		Cancel: c.ctx.Done(),
	})
	if err != nil {
		return err
	}
	c.say("tree", "%d nodes, height %d, %d procedures, %d PEs", tree.Len(), tree.Height, len(tree.Procedures), len(tree.PEs))
	if *subtree < 0 || *subtree >= tree.Len() {
		return errs.Argument("subtree", "no node %d: the tree has nodes 0 to %d", *subtree, tree.Len()-1)
	}
	l, err := tree.Layout(kaleido.Options{Width: float64(*c.width), LevelSpacing: *spacing, Subtree: int32(*subtree), MinSector: *minSector,
		Cancel: c.ctx.Done()})
	if err != nil {
		return err
	}
	condensed := "not condensed"
	if cond := l.Condensing; cond.Active {
		condensed = fmt.Sprintf("condensed %d:1 up to level %d, %d:1 beyond", cond.C0, cond.Threshold, cond.C0+1)
	}
	c.say("layout", "%d nodes, %d levels shown (%s), %g px between levels; %d drawn, %d drawn without descendants",
		l.Len(), l.Levels, condensed, l.Spacing, l.NumDrawn, l.NumCollapsed)
	if *c.figure != "" {
		img, err := plots.Kaleidoscope(l, plots.KaleidoscopeOptions{View: *view, Format: c.imgFormat, Cancel: c.ctx.Done()})
		if err != nil {
			return err
		}
		if err := c.writeFigure(img); err != nil {
			return err
		}
	}
	if *table != "" {
		if err := c.writeTable(*table, arrowio.KaleidoscopeTable(l, memory.DefaultAllocator), fmt.Sprintf("%d nodes", l.Len())); err != nil {
			return err
		}
	}
	c.say("done in", "%.2f s", time.Since(began).Seconds())
	return nil
}
