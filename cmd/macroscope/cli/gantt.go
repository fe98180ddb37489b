package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/plots"
)

var ganttCommand = command{
	name:     "gantt",
	summary:  "Gantt chart of the raw states over a window, row per resource: figure",
	synopsis: "[flags] trace",
	about: `
Draws the states of the trace as a Gantt chart: one row per resource (the
overview's rows, in its order), each state a bar in its value's colour,
nested states as thinner bars inside the states they interrupt. Use it to
check aggregates against the raw states: --start, --end and --resources
(names, paths or globs, comma-separated) select the window and rows.`,
	run: runGantt,
}

func runGantt(c *cli) error {
	c.traceFlags()
	c.windowFlags()
	resources := c.fs.String("resources", "", "containers to draw (names, paths or globs such as rank-*, comma-separated; a container brings the rows below it); default all")
	stateTypes := c.fs.String("state-types", "", "state types to draw, comma-separated (default all)")
	colors := c.fs.String("colors", "", "state colours over the trace's, as state=colour,... (#rrggbb or a colour name)")
	c.figureFlags("gantt.png", 960, 576)
	if err := c.parse(1, 1); err != nil {
		return err
	}
	opt := plots.GanttOptions{Start: c.start, End: c.end, Resources: splitList(*resources), StateTypes: splitList(*stateTypes),
		Cancel: c.ctx.Done()}
	if *colors != "" {
		opt.Colors = map[string]string{}
		for _, kv := range splitList(*colors) {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return errs.Argument("colors", "%q is not state=colour", kv)
			}
			opt.Colors[k] = v
		}
	}
	began := time.Now()
	t, err := c.readTrace(c.arg(0))
	if err != nil {
		return err
	}
	// --start and --end count from the trace's start.
	if opt.Start, opt.End, err = resolveWindow(opt.Start, opt.End, t); err != nil {
		return err
	}
	opt.Width, opt.Height = c.figureSize()
	opt.Format = c.imgFormat
	opt.Title = fmt.Sprintf("%s: states", filepath.Base(c.arg(0)))
	img, err := plots.Gantt(t, opt)
	if err != nil {
		return err
	}
	if err := c.writeFigure(img); err != nil {
		return err
	}
	c.say("done in", "%.2f s", time.Since(began).Seconds())
	return nil
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
