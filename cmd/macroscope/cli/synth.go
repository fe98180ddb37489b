package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/macroscope-hpc/macroscope/arrowio"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/gen/synth"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// anomalyFlags collects the repeated -anomaly flags.
type anomalyFlags []synth.Anomaly

func (a *anomalyFlags) String() string { return "" }

func (a *anomalyFlags) Set(s string) error {
	x, err := synth.ParseAnomaly(s)
	if err != nil {
		return err
	}
	*a = append(*a, x)
	return nil
}

var synthCommand = command{
	name:     "synth",
	summary:  "synthetic trace of any size (Pajé or Parquet) with anomalies where asked",
	synopsis: "[flags] out.trace|out.parquet",
	about: `
Writes a synthetic trace: sites of clusters of machines of cores changing
state, with anomalies where asked. Pajé traces (PajeSetState events) read
with pj_dump; Parquet files hold one row per state interval. The same flags
give the same bytes.`,
	run: runSynth,
}

func runSynth(c *cli) error {
	fs := c.fs
	cfg := synth.Config{}
	fs.IntVar(&cfg.Sites, "sites", 2, "number of sites")
	fs.IntVar(&cfg.Clusters, "clusters", 4, "clusters per site")
	fs.IntVar(&cfg.Machines, "machines", 8, "machines per cluster")
	fs.IntVar(&cfg.Cores, "cores", 8, "cores per machine")
	fs.Int64Var(&cfg.Events, "events", 1_000_000, "number of state changes (the trace has about as many)")
	mean := fs.String("mean", "0.001", "mean state duration in seconds")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "seed of the random generator: the same seed gives the same trace")
	states := fs.String("states", "", "states and weights, Name=weight,... (default "+defaultStates()+")")
	format := fs.String("format", "", "paje or parquet (default: from the extension, .parquet or Pajé)")
	var anomalies anomalyFlags
	fs.Var(&anomalies, "anomaly", "an anomaly, level:i/j/...:State=weight[,...][@from-to], e.g. "+
		"machine:1/0/2:MPI_Wait=6@0.25-0.75 gives MPI_Wait the weight 6 on machine 2 of "+
		"cluster 0 of site 1 from 25% to 75% of the trace (repeatable)")
	if err := c.parse(1, 1); err != nil {
		return err
	}
	if err := writableDir(filepath.Dir(c.arg(0))); err != nil {
		return fmt.Errorf("cannot write %s: %w", c.arg(0), err)
	}
	m, err := trace.ParseTime(*mean)
	if err != nil {
		return errs.Argument("mean", "%q: %v", *mean, err)
	}
	cfg.Mean = m
	if *states != "" {
		if cfg.States, err = synth.ParseStates(*states); err != nil {
			return err
		}
	}
	cfg.Anomalies = anomalies
	began := time.Now()
	st, err := arrowio.WriteSynth(c.arg(0), *format, cfg)
	if err != nil {
		return err
	}
	took := time.Since(began).Seconds()
	c.say("wrote", "%s: %d containers (%d cores), %d states, %d bytes, [0, %s] s",
		c.arg(0), st.Containers, cfg.NumCores(), st.States, st.Bytes, st.Duration)
	c.say("done in", "%.2f s (%.0f MB/s)", took, float64(st.Bytes)/took/1e6)
	return nil
}

func defaultStates() string {
	var parts []string
	for _, s := range synth.DefaultStates() {
		parts = append(parts, fmt.Sprintf("%s=%g", s.Name, s.Weight))
	}
	return strings.Join(parts, ",")
}
