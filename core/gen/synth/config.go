// Package synth generates synthetic traces of any size: a hierarchy of
// sites, clusters, machines and cores whose cores go from state to state,
// with anomalies injected where and when asked. The same configuration and
// seed always give the same bytes, so tests and benchmarks can rely on the
// traces they generate.
//
// Cores draw each state independently with the configured weights and hold
// it for a duration drawn uniformly around the mean, the same for every
// state. The share of time a core spends in a state therefore tends to the
// state's normalised weight; an anomaly replaces some weights for the
// cores below one site, cluster, machine or core during a window of time.
//
// Output is streamed: memory depends on the number of cores, never on the
// number of events, so traces of many gigabytes can be written.
package synth

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/macroscope-hpc/macroscope/core/budget"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Level is a level of the resource hierarchy.
type Level uint8

// The levels, from the top.
const (
	Site Level = iota
	Cluster
	Machine
	Core
)

var levelNames = [...]string{"site", "cluster", "machine", "core"}

func (l Level) String() string {
	if int(l) < len(levelNames) {
		return levelNames[l]
	}
	return "Level(?)"
}

// ParseLevel reads a level name: site, cluster, machine or core.
func ParseLevel(s string) (Level, error) {
	for i, n := range levelNames {
		if strings.EqualFold(s, n) {
			return Level(i), nil
		}
	}
	return 0, errs.Argument("level", "unknown level %q (use site, cluster, machine or core)", s)
}

// State is a state cores can be in, with its weight: the share of time it
// gets is its weight divided by the sum of the weights.
type State struct {
	Name   string
	Weight float64
}

// Anomaly changes the weights of some states for the cores below one node
// of the hierarchy, during a window of time.
type Anomaly struct {
	Level Level
	// At locates the node: its index among its siblings at each level from
	// the site down, so len(At) is Level+1 (At = {1, 0} is cluster 0 of
	// site 1).
	At []int
	// Weights replace the weights of the states they name; the others keep
	// theirs.
	Weights map[string]float64
	// From and To delimit the window as fractions of the trace's duration,
	// 0 <= From < To <= 1. To = 0 means 1: the anomaly lasts to the end.
	From, To float64
}

// DefaultStates are the states of an MPI-like program.
func DefaultStates() []State {
	return []State{
		{"Compute", 6}, {"MPI_Send", 1}, {"MPI_Recv", 1}, {"MPI_Wait", 1.5}, {"Idle", 0.5},
	}
}

// Config describes a synthetic trace. Counts are per parent: Clusters is the
// number of clusters of each site, and so on.
type Config struct {
	Sites, Clusters, Machines, Cores int
	// States lists the states; nil means DefaultStates.
	States []State
	// Events is the number of state changes wanted in the whole trace; the
	// generated trace has about as many (the duration is set from it, the
	// number of cores and Mean).
	Events int64
	// Mean is the mean duration of a state; 0 means one millisecond.
	Mean trace.Time
	Seed uint64
	// Anomalies apply in order: where two cover the same core at the same
	// instant, the later one applies.
	Anomalies []Anomaly
	// MemoryBudget bounds the memory generation may take (see
	// MemoryNeeded): 0 means budget.Default (a share of the memory
	// available), a negative value no limit. Validate refuses a
	// configuration that needs more.
	MemoryBudget int64
	// Format is the format written (FormatPaje, FormatParquet; "" means
	// Pajé), for the memory estimate: the writers differ.
	Format string
	// Cancel, once closed, stops the generation (Ctrl-C): the writers
	// return ErrCanceled soon after (every CheckEvery states) and remove
	// the file left incomplete.
	Cancel <-chan struct{}
	// Progress, if set, is told every CheckEvery states how many states
	// were generated.
	Progress func(states int64)
}

// CheckEvery is how many states pass between two looks at Cancel and two
// progress reports.
const CheckEvery = 1 << 14

// ErrCanceled is the error of a generation stopped by Config.Cancel.
var ErrCanceled = errors.New("generation canceled")

// tick reports progress and looks at Cancel, every CheckEvery states.
func (c *Config) tick(states int64) error {
	if states%CheckEvery != 0 {
		return nil
	}
	if c.Progress != nil {
		c.Progress(states)
	}
	if c.Cancel != nil {
		select {
		case <-c.Cancel:
			return ErrCanceled
		default:
		}
	}
	return nil
}

// Memory the generator takes: a pending state change per core (its heap,
// 16 bytes each), and the writer's buffers. Measured as the peak resident
// size of processes writing 256,000, 2,560,000 and 7,680,000 cores (1,000,
// 10,000 and 30,000 sites of 4 x 8 x 8, one to four states per core), a
// program of some 40 MB included:
//
//   - Pajé: 44, 80 and 160 MB, 16 bytes per core; over a process writing
//     one site, 7.8 MiB for 256,000 cores and 19.7 MiB for 1,024,000
//     (TestMemoryEstimate);
//   - Parquet: 166, 265 and 426 MB, 31 to 43 bytes per core over some
//     160 MB (batches of 2^17 rows, their pages, the compressor). Its
//     batches leave garbage, which the collector lets grow as large as
//     what is live, the heap of pending changes: twice its 16 bytes per
//     core, and more.
//
// The estimates are above every measure, within a factor of two, so that
// a generation the budget lets start does not run out of memory.
const (
	pajeBytesPerCore      = 24
	pajeOverhead          = 8 << 20
	parquetBytesPerCore   = 48
	parquetWriterOverhead = 192 << 20
)

// MinBytes is a low estimate of the size of the file of the trace c
// describes in format (FormatPaje or FormatParquet): in Pajé, each
// container's creation and destruction lines (40 bytes at least) and each
// state change's line (20); in Parquet, compressed, 4 bytes per state.
// Computed in floating point: the largest counts overflow an int64, and
// the result saturates at math.MaxInt64.
func (c *Config) MinBytes(format string) int64 {
	states := float64(c.NumCores()) * float64(c.perCore()) // each core changes state as often
	size := float64(c.NumContainers())*40 + states*20
	if format == FormatParquet {
		size = states * 4
	}
	if size >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(size)
}

// CheckDisk refuses to write the trace c describes to path in format
// when even a low estimate of its size exceeds the free disk space.
func (c *Config) CheckDisk(path, format string) error {
	return budget.CheckDisk("cores", fmt.Sprintf("a synthetic %s trace of %d cores and %d events", format, c.NumCores(), max(c.Events, int64(c.NumCores()))),
		path, c.MinBytes(format), "ask for fewer cores or events, or write elsewhere")
}

// MemoryNeeded estimates the peak memory of writing the trace c describes
// in c.Format.
func (c *Config) MemoryNeeded() int64 {
	if c.Format == FormatParquet {
		return int64(c.NumCores())*parquetBytesPerCore + parquetWriterOverhead
	}
	return int64(c.NumCores())*pajeBytesPerCore + pajeOverhead
}

// formatName names c.Format in messages.
func (c *Config) formatName() string {
	if c.Format == FormatParquet {
		return "Parquet"
	}
	return "Pajé"
}

// DefaultMean is the mean state duration when Config.Mean is zero.
const DefaultMean = trace.Second / 1000

// maxCores bounds the hierarchy so that every index fits an int32.
const maxCores = 1 << 28

// NumCores is the number of cores of the hierarchy.
func (c *Config) NumCores() int { return c.Sites * c.Clusters * c.Machines * c.Cores }

// NumContainers is the number of containers of the hierarchy (the root
// excluded).
func (c *Config) NumContainers() int {
	return c.Sites * (1 + c.Clusters*(1+c.Machines*(1+c.Cores)))
}

// perCore is how many times each core changes state: Events divided by
// the cores, rounded up (without Events+n-1, which overflows for the
// largest counts).
func (c *Config) perCore() int64 {
	n := int64(c.NumCores())
	per := c.Events / n
	if c.Events%n != 0 {
		per++
	}
	return per
}

// Duration is the length of the trace: enough for each core to change state
// Events/NumCores times on average, rounded up to whole mean durations.
func (c *Config) Duration() trace.Time {
	return trace.Time(c.perCore()) * c.mean()
}

func (c *Config) mean() trace.Time {
	if c.Mean == 0 {
		return DefaultMean
	}
	return c.Mean
}

func (c *Config) states() []State {
	if c.States == nil {
		return DefaultStates()
	}
	return c.States
}

// Validate reports the first problem of the configuration as an
// *errs.ArgumentError named like the Config field (in lower case).
func (c *Config) Validate() error {
	for _, f := range []struct {
		name string
		n    int
	}{{"sites", c.Sites}, {"clusters", c.Clusters}, {"machines", c.Machines}, {"cores", c.Cores}} {
		if f.n < 1 || f.n > maxCores {
			return errs.Argument(f.name, "must be between 1 and %d, got %d", maxCores, f.n)
		}
	}
	if n := float64(c.Sites) * float64(c.Clusters) * float64(c.Machines) * float64(c.Cores); n > maxCores {
		return errs.Argument("cores", "the hierarchy has %.0f cores, more than %d", n, maxCores)
	}
	if c.Events < 1 {
		return errs.Argument("events", "must be at least 1, got %d", c.Events)
	}
	if c.Format != "" && c.Format != FormatPaje && c.Format != FormatParquet {
		return errs.Argument("format", "unknown format %q (use %s or %s)", c.Format, FormatPaje, FormatParquet)
	}
	// Refused before the first allocation: a hierarchy of a million
	// sites would otherwise grow until the kernel kills the process.
	if err := budget.Check("cores", fmt.Sprintf("a synthetic %s trace of %d cores (%d sites x %d clusters x %d machines x %d cores)",
		c.formatName(), c.NumCores(), c.Sites, c.Clusters, c.Machines, c.Cores), c.MemoryNeeded(), c.MemoryBudget,
		"ask for fewer sites, clusters, machines or cores"); err != nil {
		return err
	}
	if c.Mean != 0 && c.Mean < 2 {
		return errs.Argument("mean", "must be at least 2 ns, got %d ns", c.Mean)
	}
	if d := float64(c.perCore()) * float64(c.mean()); d > math.MaxInt64/2 {
		return errs.Argument("events", "%d events of %s s on %d cores last more than the 146 years a trace can hold", c.Events, c.mean(), c.NumCores())
	}
	states := c.states()
	if len(states) == 0 {
		return errs.Argument("states", "at least one state is needed")
	}
	seen := map[string]bool{}
	sum := 0.0
	for _, s := range states {
		if err := checkName(s.Name); err != nil {
			return err
		}
		if seen[s.Name] {
			return errs.Argument("states", "state %q is listed twice", s.Name)
		}
		seen[s.Name] = true
		if err := checkWeight("states", s.Name, s.Weight); err != nil {
			return err
		}
		sum += s.Weight
	}
	if sum <= 0 {
		return errs.Argument("states", "the weights sum to 0: no state can be drawn")
	}
	for i := range c.Anomalies {
		if err := c.checkAnomaly(&c.Anomalies[i], seen); err != nil {
			return err
		}
	}
	return nil
}

func checkName(n string) error {
	if n == "" || !utf8.ValidString(n) || strings.ContainsAny(n, "\"\n\r") {
		return errs.Argument("states", "state name %q must be non-empty valid UTF-8 without double quotes or line breaks", n)
	}
	return nil
}

func checkWeight(param, state string, w float64) error {
	if math.IsNaN(w) || math.IsInf(w, 0) || w < 0 {
		return errs.Argument(param, "the weight of %q must be a finite number >= 0, got %v", state, w)
	}
	return nil
}

func (c *Config) checkAnomaly(a *Anomaly, states map[string]bool) error {
	if a.Level > Core {
		return errs.Argument("anomalies", "unknown level %d", a.Level)
	}
	if len(a.At) != int(a.Level)+1 {
		return errs.Argument("anomalies", "a %s is located by %d indices (site first), got %d", a.Level, a.Level+1, len(a.At))
	}
	counts := []int{c.Sites, c.Clusters, c.Machines, c.Cores}
	for i, k := range a.At {
		if k < 0 || k >= counts[i] {
			return errs.Argument("anomalies", "%s index %d is out of range [0, %d)", levelNames[i], k, counts[i])
		}
	}
	if len(a.Weights) == 0 {
		return errs.Argument("anomalies", "an anomaly must change the weight of at least one state")
	}
	for name, w := range a.Weights {
		if !states[name] {
			return errs.Argument("anomalies", "unknown state %q", name)
		}
		if err := checkWeight("anomalies", name, w); err != nil {
			return err
		}
	}
	from, to := a.window()
	if math.IsNaN(from) || math.IsNaN(to) || from < 0 || to > 1 || from >= to {
		return errs.Argument("anomalies", "the window [%v, %v] must satisfy 0 <= from < to <= 1", a.From, a.To)
	}
	return nil
}

func (a *Anomaly) window() (from, to float64) {
	if a.To == 0 {
		return a.From, 1
	}
	return a.From, a.To
}

// Proportions returns the share of time each state tends to for the core
// at site s, cluster c, machine m, core k (indices among siblings) at the
// instant at: the normalised weights in force there. Tests compare
// generated traces with it.
func (c *Config) Proportions(s, cl, m, k int, at trace.Time) []float64 {
	p := newPlan(c)
	w := p.cumulative[p.profile(p.coreIndex(s, cl, m, k), at)]
	out := make([]float64, len(w))
	prev := 0.0
	for i, x := range w {
		out[i], prev = x-prev, x
	}
	return out
}
