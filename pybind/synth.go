package pybind

import (
	"github.com/macroscope-hpc/macroscope/arrowio"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/gen/synth"
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

// Synth writes a synthetic trace to path and describes it as JSON; options
// is a JSON object (see macroscope.synth).
func Synth(path, options string) (js string, err error) {
	defer guard(&err)
	o := synthOptions{Sites: 2, Clusters: 4, Machines: 8, Cores: 8, Events: 1_000_000, Seed: 1}
	if err := decodeOptions(options, &o); err != nil {
		return "", err
	}
	c := synth.Config{Sites: o.Sites, Clusters: o.Clusters, Machines: o.Machines, Cores: o.Cores,
		Events: o.Events, Seed: o.Seed, MemoryBudget: o.MemoryBudget}
	if o.Mean != nil {
		m, err := seconds("mean", o.Mean)
		if err != nil {
			return "", err
		}
		c.Mean = *m
		if c.Mean == 0 {
			return "", errs.Argument("mean", "must be at least 2 ns, got %v s", *o.Mean)
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
			return "", err
		}
		c.Anomalies = append(c.Anomalies, synth.Anomaly{Level: level, At: a.At, Weights: a.Weights, From: a.Start, To: a.End})
	}
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
