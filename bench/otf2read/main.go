// Command otf2read reads OTF2 archives with Macroscope's reader and prints
// the counts and the best reading time of several runs: into a sink that
// only counts (the default), or into the microscopic model (-micro stream:
// micro.FromSource, the single stream; -micro parallel: partition.Local,
// the locations on all cores). bench/otf2_vs_otf2print.sh compares it with
// otf2-print; -cpuprofile writes a Go CPU profile of all the runs.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"runtime/pprof"
	"time"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/partition"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

func main() {
	repeat := flag.Int("n", 5, "number of runs; the best time is printed")
	model := flag.String("micro", "", "build the microscopic model: stream or parallel")
	slices := flag.Int("slices", 100, "time slices of the model")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the runs to this file")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: otf2read [-n runs] [-micro stream|parallel] [-cpuprofile file] anchor.otf2...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			fail(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fail(err)
		}
		defer pprof.StopCPUProfile()
	}
	for _, path := range flag.Args() {
		best := time.Duration(math.MaxInt64)
		var what string
		for range max(*repeat, 1) {
			start := time.Now()
			var err error
			what, err = run(path, *model, *slices)
			if err != nil {
				pprof.StopCPUProfile()
				fail(err)
			}
			best = min(best, time.Since(start))
		}
		fmt.Printf("%s\t%.6f s\t%s\n", path, best.Seconds(), what)
	}
}

// run reads the archive once as asked and says what it read.
func run(path, model string, slices int) (string, error) {
	opt := micro.Options{Slices: slices, Depth: micro.Innermost}
	switch model {
	case "":
		var c trace.Counter
		if err := formats.Read(path, "otf2", &c, trace.ReadOptions{}); err != nil {
			return "", err
		}
		return fmt.Sprintf("%d containers, %d states, %d variable pieces, %d links, %d events",
			c.Containers, c.States, c.Variables, c.Links, c.Events), nil
	case "stream":
		src, _, err := formats.Open(path, "otf2", nil)
		if err != nil {
			return "", err
		}
		m, sum, err := micro.FromSource(src, opt, trace.ReadOptions{})
		if err != nil {
			return "", err
		}
		return summary(m, sum), nil
	case "parallel":
		plan, err := partition.PlanFile(path, "otf2", nil, math.MaxInt32)
		if err != nil {
			return "", err
		}
		m, sum, err := partition.Local(plan, opt, trace.ReadOptions{}, 0)
		if err != nil {
			return "", err
		}
		return summary(m, sum), nil
	}
	return "", fmt.Errorf("-micro: stream or parallel, not %q", model)
}

func summary(m *micro.Model, sum *micro.Summary) string {
	return fmt.Sprintf("model of %d leaves x %d slices x %d states; %d states, %d links, %d events read",
		m.NumLeaves(), m.Slices, len(m.States), sum.States, sum.Links, sum.Events)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "otf2read:", err)
	os.Exit(1)
}
