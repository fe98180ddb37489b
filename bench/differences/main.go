// Command differences measures what the differences table of a comparison
// of two runs costs, step by step, in CPU time (user+sys of the process:
// the machine is shared and the wall clock says little), on generated runs
// of 1,000 and 10,000 resources or on given pairs of traces:
//
//	go run ./bench/differences [-sizes 1k,10k] [-rounds 3] [-sweep] [a b]...
//
// The steps are those of Comparison.differences() with its defaults: the
// runs read into one model (compare.Build, 100 slices), the recommended
// level (the knee, aggregate.Knee; with -sweep also the sweep of every
// significant level it replaces, SignificantCompact and Recommend), the
// partition at its p, the level's rows (NodesOf) and their table with 999
// permutations at most per row, seed 0. Each step prints its CPU seconds
// and a digest of its result (p, the table's rows and test), so that two
// builds can be checked to give the same numbers.
//
// The runs are core/gen/synth traces written once to -dir: sites of
// clusters of machines of 10 cores, 200,000 state changes, the second run
// with another seed and MPI_Wait six times as likely on one machine for
// the middle half of the run.
package main

import (
	"crypto/sha256"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"github.com/macroscope-hpc/macroscope/core/gen/synth"
	"github.com/macroscope-hpc/macroscope/core/partition"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
	"github.com/macroscope-hpc/macroscope/core/views/compare"

	_ "github.com/macroscope-hpc/macroscope/core/formats"
)

func cpu() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// sizes are the generated pairs: sites, clusters, machines (of 10 cores).
var sizes = map[string][3]int{"1k": {2, 5, 10}, "10k": {4, 5, 50}}

func generate(dir, size string) (string, string, error) {
	sz, ok := sizes[size]
	if !ok {
		return "", "", fmt.Errorf("unknown size %q (1k or 10k)", size)
	}
	an, err := synth.ParseAnomaly("machine:1/0/2:MPI_Wait=6@0.25-0.75")
	if err != nil {
		return "", "", err
	}
	var paths [2]string
	for i := range paths {
		paths[i] = filepath.Join(dir, fmt.Sprintf("diff-%s-%d.trace", size, i))
		if _, err := os.Stat(paths[i]); err == nil {
			continue
		}
		c := synth.Config{Sites: sz[0], Clusters: sz[1], Machines: sz[2], Cores: 10, Events: 200_000, Seed: uint64(i + 1)}
		if i == 1 {
			c.Anomalies = []synth.Anomaly{an}
		}
		if _, err := synth.WriteFile(paths[i], c); err != nil {
			return "", "", err
		}
	}
	return paths[0], paths[1], nil
}

// digest hashes the table's numbers, bit for bit.
func digest(tab *compare.Table) string {
	h := sha256.New()
	put := func(v float64) { binary.Write(h, binary.LittleEndian, math.Float64bits(v)) }
	for _, d := range tab.Rows {
		binary.Write(h, binary.LittleEndian, []int32{d.Node, d.First, d.Last, int32(d.Test.Permutations)})
		for _, v := range []float64{d.Score, d.Divergence, d.CellDivergence, d.Outlier, d.OutlierScore,
			d.Test.Statistic, d.Test.Floor, d.Test.PValue, d.Test.OutlierP, d.Test.OutlierFloor,
			d.Test.PAdjusted, d.Test.OutlierPAdjusted} {
			put(v)
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil)[:8])
}

func run(name, a, b string, sweep bool, givenP float64) error {
	step := func(what string, f func() (string, error)) error {
		c0 := cpu()
		out, err := f()
		if err != nil {
			return fmt.Errorf("%s: %s: %w", name, what, err)
		}
		fmt.Printf("%s\t%s\t%.3f\t%s\n", name, what, cpu()-c0, out)
		return nil
	}
	var set *compare.Set
	inputs := make([]compare.Input, 2)
	for i, p := range []string{a, b} {
		src, _, err := partition.Open(p, "", nil)
		if err != nil {
			return err
		}
		inputs[i] = compare.Input{Name: filepath.Base(p), Source: src}
	}
	if err := step("build", func() (string, error) {
		var err error
		set, err = compare.Build(inputs, compare.Options{}, trace.ReadOptions{})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%d resources x %d slices x %d states", len(set.Resources.Leaves), set.Slices, len(set.States)), nil
	}); err != nil {
		return err
	}
	kind := aggregate.KindSpatiotemporal
	var e aggregate.Engine
	if err := step("engine", func() (string, error) {
		var err error
		e, err = aggregate.New(kind, set.Input(), aggregate.Options{Normalize: true, Gain: aggregate.DefaultGain(kind),
			Entities: aggregate.DefaultEntities(kind)})
		return "", err
	}); err != nil {
		return err
	}
	g0, l0 := e.Scale()
	p := givenP
	if p < 0 {
		if err := step("knee", func() (string, error) {
			lv, err := aggregate.Knee(e, 1e-2, g0, l0, nil)
			p = (lv.PLow + lv.PHigh) / 2
			return fmt.Sprintf("p=%v", p), err
		}); err != nil {
			return err
		}
	}
	if sweep {
		if err := step("sweep", func() (string, error) {
			levels, err := aggregate.SignificantCompact(e, 1e-2)
			if err != nil {
				return "", err
			}
			rec, _, err := aggregate.Recommend(levels, aggregate.RuleKnee, g0, l0)
			if err != nil {
				return "", err
			}
			lp := (levels[rec].PLow + levels[rec].PHigh) / 2
			if lp != p {
				return "", fmt.Errorf("the sweep recommends p=%v, the knee %v", lp, p)
			}
			return fmt.Sprintf("%d levels, p=%v", len(levels), lp), nil
		}); err != nil {
			return err
		}
	}
	var rows []compare.Row
	if err := step("solve", func() (string, error) {
		part, err := e.Solve(p)
		if err != nil {
			return "", err
		}
		rows = compare.NodesOf(set.PartitionRows(part))
		return fmt.Sprintf("%d rows", len(rows)), nil
	}); err != nil {
		return err
	}
	return step("differences", func() (string, error) {
		tab, err := set.Differences(rows, compare.TableOptions{})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%d reported, %d permutations at most, digest %s", tab.Test.Reported, tab.Test.Permutations, digest(tab)), nil
	})
}

func main() {
	sizesFlag := flag.String("sizes", "1k,10k", "generated pairs: 1k, 10k (comma-separated; empty for none)")
	rounds := flag.Int("rounds", 1, "rounds")
	givenP := flag.Float64("p", -1, "the level's p (default: the knee's, searched for)")
	sweep := flag.Bool("sweep", false, "also time the sweep of every significant level (minutes on 10k)")
	dir := flag.String("dir", os.TempDir(), "where the generated runs are written")
	flag.Parse()
	if flag.NArg()%2 != 0 {
		fmt.Fprintln(os.Stderr, "traces come in pairs")
		os.Exit(2)
	}
	type pair struct{ name, a, b string }
	var pairs []pair
	for _, s := range strings.Split(*sizesFlag, ",") {
		if s == "" {
			continue
		}
		a, b, err := generate(*dir, s)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		pairs = append(pairs, pair{s, a, b})
	}
	for i := 0; i < flag.NArg(); i += 2 {
		pairs = append(pairs, pair{filepath.Base(flag.Arg(i)), flag.Arg(i), flag.Arg(i + 1)})
	}
	fmt.Printf("# GOMAXPROCS %d\n", runtime.GOMAXPROCS(0))
	for r := 0; r < *rounds; r++ {
		for _, p := range pairs {
			if err := run(p.name, p.a, p.b, *sweep, *givenP); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
	}
}
