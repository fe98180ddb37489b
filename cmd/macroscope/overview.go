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
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/plots"
)

func runOverview(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("overview", flag.ContinueOnError)
	fs.SetOutput(stderr)
	slices := fs.Int("slices", 100, "number of time slices")
	pFlag := fs.String("p", "auto", `trade-off p in [0,1], or "auto" for the recommended level`)
	start := fs.String("start", "", "window start in seconds (default: trace start)")
	end := fs.String("end", "", "window end in seconds (default: trace end)")
	png := fs.String("o", "overview.png", "figure file (.png or .svg)")
	table := fs.String("table", "aggregates.parquet", "aggregates table (.parquet, .feather or .csv); empty for none")
	levelsOut := fs.String("levels", "", "table of the significant p values (.parquet, .feather or .csv)")
	threshold := fs.Float64("threshold", 1e-3, "resolution in p of the search for significant levels (0: all)")
	width := fs.Int("width", 960, "figure width in pixels")
	height := fs.Int("height", 576, "figure height in pixels")
	traceFormat := fs.String("format", "", "trace format ("+formatNames()+"); default: by extension or content")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: macroscope overview [flags] trace\n\nAggregates the trace optimally in space and time (Ocelotl's technique) and draws the overview.\n\nflags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	began := time.Now()
	opt := micro.Options{Slices: *slices, Depth: micro.Innermost}
	var err error
	if opt.Start, err = parseSeconds("start", *start); err != nil {
		return err
	}
	if opt.End, err = parseSeconds("end", *end); err != nil {
		return err
	}
	// The model is built while reading: the trace's events are not kept.
	m, sum, err := micro.ReadFile(fs.Arg(0), *traceFormat, opt, trace.ReadOptions{})
	if sum != nil {
		fmt.Fprintf(stdout, "trace      %s: %d containers, %d states, %.6g-%.6g s\n",
			fs.Arg(0), sum.Containers, sum.States, sum.Start.Seconds(), sum.End.Seconds())
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "model      %d resources x %d slices x %d states\n", m.NumLeaves(), m.Slices, len(m.States))
	in := aggregate.Input{Tree: m.Tree, Slices: m.Slices, States: len(m.States), Values: m.Values}
	engine, err := aggregate.NewSpatiotemporal(in, aggregate.Options{Normalize: true})
	if err != nil {
		return err
	}
	levels, err := aggregate.SignificantExact(engine, *threshold)
	if err != nil {
		return err
	}
	rec, p, err := aggregate.Recommend(levels, aggregate.RuleKnee, 1, 1)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "levels     %d distinct optimal partitions; recommended p = %.4g (%d aggregates)\n",
		len(levels), p, len(levels[rec].Partition.Parts))
	if *pFlag != "auto" {
		if p, err = strconv.ParseFloat(*pFlag, 64); err != nil || math.IsNaN(p) {
			return errs.Argument("p", "%q is not a number", *pFlag)
		}
	}
	part, err := engine.Solve(p)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "aggregated p = %.4g: %d aggregates, gain %.4g, loss %.4g (normalised)\n",
		p, len(part.Parts), part.Gain, part.Loss)
	format, err := plots.ParseFormat(*png)
	if err != nil {
		return err
	}
	img, err := plots.Overview(m, in, part, plots.OverviewOptions{
		Width: vg.Length(*width) * 0.75, Height: vg.Length(*height) * 0.75, Format: format,
		Title: fmt.Sprintf("%s, p = %.3g", fs.Arg(0), p),
	})
	if err != nil {
		return err
	}
	if err := writeFile(*png, img); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote      %s\n", *png)
	if *table != "" {
		rec := arrowio.PartitionTable(m, in, part, memory.DefaultAllocator)
		defer rec.Release()
		if err := files.Write(rec, *table); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote      %s\n", *table)
	}
	if *levelsOut != "" {
		lv := arrowio.LevelsTable(levels, rec, memory.DefaultAllocator)
		defer lv.Release()
		if err := files.Write(lv, *levelsOut); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote      %s\n", *levelsOut)
	}
	fmt.Fprintf(stdout, "done in    %.2f s\n", time.Since(began).Seconds())
	return nil
}

func parseSeconds(name, s string) (*trace.Time, error) {
	if s == "" {
		return nil, nil
	}
	t, err := trace.ParseTime(s)
	if err != nil {
		return nil, errs.Argument(name, "%q: %v", s, err)
	}
	return &t, nil
}
