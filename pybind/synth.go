package pybind

import (
	"errors"
	"math"
	"strings"

	"github.com/macroscope-hpc/macroscope/arrowio"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/gen/synth"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
)

// synthOptions mirror the keyword arguments of macroscope.synth.
type synthOptions struct {
	Sites     int            `json:"sites"`
	Clusters  int            `json:"clusters"`
	Machines  int            `json:"machines"`
	Cores     int            `json:"cores"`
	Events    int64          `json:"events"`
	Mean      *float64       `json:"mean"`
	Seed      uint64         `json:"seed"`
	States    []synthState   `json:"states"`
	Anomalies []synthAnomaly `json:"anomalies"`
	Format    string         `json:"format"`
	// MemoryBudget: bytes; 0 the default share of the available memory,
	// negative no limit (see budget.Resolve).
	MemoryBudget int64 `json:"memory_budget"`
}

type synthState struct {
	Name   string  `json:"name"`
	Weight float64 `json:"weight"`
}

type synthAnomaly struct {
	Level   string             `json:"level"`
	At      []int              `json:"at"`
	Weights map[string]float64 `json:"weights"`
	Start   float64            `json:"start"`
	End     float64            `json:"end"`
}

// StartSynth starts writing a synthetic trace to path (options: a JSON
// object, see macroscope.synth) on a goroutine of its own, a Work that Python polls, shows the progress of
// (the states written, of about as many as asked) and cancels on Ctrl-C:
// the generation then stops within a few thousand states and the file
// left incomplete is removed. Work.JSON gives the description. Bad
// options are reported at once.
func StartSynth(path, options string) (w *Work, err error) {
	defer guard(&err)
	o, c, err := synthConfig(options)
	if err != nil {
		return nil, err
	}
	switch { // for the memory estimate (WriteSynth refuses unknown formats)
	case o.Format == "":
		c.Format = synth.FormatOf(path)
	case strings.EqualFold(o.Format, synth.FormatParquet):
		c.Format = synth.FormatParquet
	default:
		c.Format = synth.FormatPaje
	}
	if err := c.Validate(); err != nil { // before starting: the estimate, the options
		return nil, err
	}
	var js string
	w = startWork(func(ctl *aggregate.Control) error {
		c.Cancel = ctl.Cancel
		c.Progress = func(states int64) {
			ctl.Progress(int(min(states, math.MaxInt32)), min(float64(states)/float64(max(c.Events, 1)), 0.99))
		}
		var err error
		js, err = writeSynth(path, o, c)
		if errors.Is(err, synth.ErrCanceled) {
			return aggregate.ErrCanceled
		}
		return err
	})
	w.result = func() any { return js }
	return w, nil
}

// synthConfig decodes the options of StartSynth.
func synthConfig(options string) (synthOptions, synth.Config, error) {
	o := synthOptions{Sites: 2, Clusters: 4, Machines: 8, Cores: 8, Events: 1_000_000, Seed: 1}
	if err := decodeOptions(options, &o); err != nil {
		return o, synth.Config{}, err
	}
	c := synth.Config{Sites: o.Sites, Clusters: o.Clusters, Machines: o.Machines, Cores: o.Cores,
		Events: o.Events, Seed: o.Seed, MemoryBudget: o.MemoryBudget}
	if o.Mean != nil {
		m, err := seconds("mean", o.Mean)
		if err != nil {
			return o, c, err
		}
		c.Mean = *m
		if c.Mean == 0 {
			return o, c, errs.Argument("mean", "must be at least 2 ns, got %v s", *o.Mean)
		}
	}
	if o.States != nil {
		c.States = []synth.State{}
		for _, s := range o.States {
			c.States = append(c.States, synth.State{Name: s.Name, Weight: s.Weight})
		}
	}
	for _, a := range o.Anomalies {
		level, err := synth.ParseLevel(a.Level)
		if err != nil {
			return o, c, err
		}
		c.Anomalies = append(c.Anomalies, synth.Anomaly{Level: level, At: a.At, Weights: a.Weights, From: a.Start, To: a.End})
	}
	return o, c, nil
}

// writeSynth writes the trace c describes to path and describes it.
func writeSynth(path string, o synthOptions, c synth.Config) (string, error) {
	st, err := arrowio.WriteSynth(path, o.Format, c)
	if err != nil {
		return "", err
	}
	format := o.Format
	if format == "" {
		format = synth.FormatOf(path)
	}
	return toJSON(map[string]any{
		"path": path, "format": format, "containers": st.Containers, "cores": c.NumCores(),
		"states": st.States, "events": st.Events, "bytes": st.Bytes, "duration": st.Duration.Seconds(),
	})
}
