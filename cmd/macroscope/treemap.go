package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"gonum.org/v1/plot/vg"

	"github.com/macroscope-hpc/macroscope/arrowio"
	"github.com/macroscope-hpc/macroscope/arrowio/files"
	"github.com/macroscope-hpc/macroscope/core/aggregate"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/synthmodel"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/treemap"
	"github.com/macroscope-hpc/macroscope/plots"
)

// scenarios are the synthetic models the treemap command can draw without
// a trace: Lamarche-Perrin et al.'s large-scale validation, and smaller versions of it.
var scenarios = map[string]synthmodel.Scenario{
	"million": synthmodel.Million(),
	"100k":    {Fanout: [5]int{10, 10, 10, 10, 10}, Slices: 1, Noise: 0.002, Contrast: 0.4},
	"small":   {Fanout: [5]int{4, 2, 2, 2, 2}, Slices: 1, Noise: 0.002, Contrast: 0.4},
}

func runTreemap(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("treemap", flag.ContinueOnError)
	fs.SetOutput(stderr)
	slices := fs.Int("slices", 100, "number of time slices")
	kindFlag := fs.String("kind", "spatial", "kind of aggregation: spatial (a cut of the hierarchy) or spatiotemporal")
	pFlag := fs.String("p", "auto", `trade-off p in [0,1], or "auto" for the recommended level`)
	start := fs.String("start", "", "window start in seconds (default: trace start)")
	end := fs.String("end", "", "window end in seconds (default: trace end)")
	value := fs.String("value", "leaves", "area of a rectangle: leaves (resources) or activity (time in states)")
	root := fs.String("root", "", "path of the hierarchy node at the top (default: everything)")
	proportions := fs.Bool("proportions", false, "divide every aggregate into a strip per state")
	threshold := fs.Float64("threshold", 1e-3, "resolution in p of the search for significant levels (0: all)")
	zooms := fs.Int("zooms", 3, "enlarged views of detailed groups too small to read")
	png := fs.String("o", "treemap.png", "figure file (.png or .svg)")
	table := fs.String("table", "treemap.parquet", "rectangles table (.parquet, .feather or .csv); empty for none")
	width := fs.Int("width", 960, "figure width in pixels")
	height := fs.Int("height", 720, "figure height in pixels")
	traceFormat := fs.String("format", "", "trace format ("+formatNames()+"); default: by extension or content")
	scenario := fs.String("scenario", "", "draw a synthetic model instead of a trace: million (Lamarche-Perrin et al.'s 1,000,000 processes), 100k or small")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: macroscope treemap [flags] trace\n       macroscope treemap -scenario million [flags]\n\n"+
			"Aggregates the trace optimally (by default a cut of the hierarchy, Lamarche-Perrin et al.) and draws the squarified treemap\nof the aggregates, with a table of its rectangles.\n\nflags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if (*scenario == "") == (fs.NArg() == 0) || fs.NArg() > 1 {
		fs.Usage()
		return errUsage
	}
	kind, err := aggregate.ParseKind(*kindFlag)
	if err != nil {
		return err
	}
	if kind == aggregate.KindTemporal {
		return errs.Argument("kind", "a temporal aggregation never merges resources: its treemap is the hierarchy; use spatial or spatiotemporal")
	}
	val, err := treemap.ParseValue(*value)
	if err != nil {
		return err
	}
	format, err := plots.ParseFormat(*png)
	if err != nil {
		return err
	}
	began := time.Now()
	var m *micro.Model
	name := *scenario
	if *scenario != "" {
		sc, ok := scenarios[*scenario]
		if !ok {
			return errs.Argument("scenario", "%q is not one of million, 100k, small", *scenario)
		}
		if m, err = sc.Model(); err != nil {
			return err
		}
		name = thousands(sc.Processes()) + " processes"
	} else {
		opt := micro.Options{Slices: *slices, Depth: micro.Innermost}
		if opt.Start, err = parseSeconds("start", *start); err != nil {
			return err
		}
		if opt.End, err = parseSeconds("end", *end); err != nil {
			return err
		}
		var sum *micro.Summary
		m, sum, err = micro.ReadFile(fs.Arg(0), *traceFormat, opt, trace.ReadOptions{})
		if err != nil {
			return err
		}
		name = fs.Arg(0)
		fmt.Fprintf(stdout, "trace      %s: %d containers, %d states, %.6g-%.6g s\n",
			fs.Arg(0), sum.Containers, sum.States, sum.Start.Seconds(), sum.End.Seconds())
	}
	fmt.Fprintf(stdout, "model      %d resources x %d slices x %d states\n", m.NumLeaves(), m.Slices, len(m.States))
	in := aggregate.Input{Tree: m.Tree, Slices: m.Slices, States: len(m.States), Values: m.Values}
	engine, err := aggregate.New(kind, in, aggregate.Options{Normalize: true})
	if err != nil {
		return err
	}
	var p float64
	if *pFlag == "auto" {
		levels, err := aggregate.SignificantCompact(engine, *threshold)
		if err != nil {
			return err
		}
		rec, rp, err := aggregate.Recommend(levels, aggregate.RuleKnee, 1, 1)
		if err != nil {
			return err
		}
		p = rp
		fmt.Fprintf(stdout, "levels     %d distinct optimal %s partitions; recommended p = %.4g (%d aggregates)\n",
			len(levels), kind, p, levels[rec].Partition.NumParts)
	} else if p, err = strconv.ParseFloat(*pFlag, 64); err != nil || math.IsNaN(p) {
		return errs.Argument("p", "%q is not a number", *pFlag)
	}
	part, err := engine.Solve(p)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "aggregated p = %.4g: %d aggregates, gain %.4g, loss %.4g (normalised)\n",
		p, len(part.Parts), part.Gain, part.Loss)
	topt := treemap.Options{Value: val}
	if *root != "" {
		if topt.Root, err = treemap.NodeByPath(m.Tree, *root, arrowio.PathSep); err != nil {
			return err
		}
	}
	if *zooms == 0 {
		*zooms = -1
	}
	img, err := plots.Treemap(m, part, plots.TreemapOptions{
		Width: vg.Length(*width) * 0.75, Height: vg.Length(*height) * 0.75, Format: format,
		Title: fmt.Sprintf("%s, %s aggregation, p = %.3g", name, kind, p),
		Value: val, Root: topt.Root, Proportions: *proportions, Zooms: *zooms,
	})
	if err != nil {
		return err
	}
	if err := writeFile(*png, img); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote      %s\n", *png)
	if *table != "" {
		tm, err := treemap.OfPartition(m, part, topt)
		if err != nil {
			return err
		}
		rec := arrowio.TreemapTable(tm, memory.DefaultAllocator)
		defer rec.Release()
		if err := files.Write(rec, *table); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote      %s (%d rectangles)\n", *table, len(tm.Cells))
	}
	fmt.Fprintf(stdout, "done in    %.2f s\n", time.Since(began).Seconds())
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
