package pop

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// Scaling says how the runs of a series relate: strong scaling (the same
// problem on more processes) or weak (a problem growing with them).
type Scaling uint8

// The scalings.
const (
	// Auto guesses as BSC's modelfactors.py does: weak when the useful
	// instructions grow with the processes (their ratio to the reference
	// run's over the ratio of processes averages above 0.9), else strong;
	// strong without counters or with one run.
	Auto Scaling = iota
	Strong
	Weak
)

// ParseScaling reads "auto", "strong" or "weak"; "" is auto.
func ParseScaling(s string) (Scaling, error) {
	switch strings.ToLower(s) {
	case "", "auto":
		return Auto, nil
	case "strong":
		return Strong, nil
	case "weak":
		return Weak, nil
	}
	return 0, errs.Argument("scaling", "%q is not auto, strong or weak", s)
}

func (s Scaling) String() string {
	return [...]string{"auto", "strong", "weak"}[s]
}

// Form is how the factors compose: multiplicatively (BSC's
// modelfactors.py, POP's standard metrics: each efficiency is the product
// of its children) or additively (pypop's MPI_Metrics: each is the sum of
// its children minus their number less one).
type Form uint8

// The forms.
const (
	Multiplicative Form = iota
	Additive
)

// Factor is a line of the table of efficiencies: a metric, one value per
// run.
type Factor struct {
	Key, Label string
	// Depth is the metric's level in the hierarchy: 0 global efficiency,
	// 1 parallel efficiency and computation scalability, 2 their
	// children, 3 communication's; plain numbers (IPC...) have depth 0.
	Depth int
	// Fraction tells an efficiency (a fraction of 1) from a plain number
	// (speed-up, IPC, frequency in GHz).
	Fraction bool
	// Form is "multiplicative", "additive" or "" for the metrics both
	// forms share.
	Form   string
	Values []float64
}

// Factors are the POP metrics of a series of runs, the reference run
// (the one with the fewest processes) first.
type Factors struct {
	Runs    []Run
	Scaling Scaling // as decided (strong or weak)
	// NormalisedInstructions is BSC's measure of weak scaling (NaN
	// without counters or with one run).
	NormalisedInstructions float64
	Rows                   []Factor
}

// Compute computes the factors of runs (sorted here by processes, then
// resources); scaling Auto decides as BSC does.
func ComputeFactors(runs []Run, scaling Scaling) (*Factors, error) {
	if len(runs) == 0 {
		return nil, errs.Argument("runs", "no run given")
	}
	runs = slices.Clone(runs)
	slices.SortStableFunc(runs, func(a, b Run) int {
		if a.Processes != b.Processes {
			return a.Processes - b.Processes
		}
		return a.Resources - b.Resources
	})
	f := &Factors{Runs: runs, NormalisedInstructions: math.NaN()}
	ref := runs[0]
	if len(runs) > 1 {
		sum := 0.0
		for _, r := range runs {
			sum += (r.Instructions / ref.Instructions) / (float64(r.Processes) / float64(ref.Processes))
		}
		f.NormalisedInstructions = (sum - 1) / float64(len(runs)-1)
	}
	f.Scaling = scaling
	if scaling == Auto {
		f.Scaling = Strong
		if f.NormalisedInstructions > 0.9 {
			f.Scaling = Weak
		}
	}
	n := len(runs)
	row := func(key, label string, depth int, fraction bool, form string, value func(r Run) float64) {
		v := make([]float64, n)
		for i, r := range runs {
			v[i] = value(r)
		}
		f.Rows = append(f.Rows, Factor{Key: key, Label: label, Depth: depth, Fraction: fraction, Form: form, Values: v})
	}
	weak := func(r Run) float64 {
		if f.Scaling == Weak {
			return float64(r.Processes) / float64(ref.Processes)
		}
		return 1
	}
	t := func(r Run) float64 { return float64(r.Runtime) }
	umax := func(r Run) float64 { return float64(r.UsefulMax) }
	ideal := func(r Run, v float64) float64 {
		if !r.HasIdeal {
			return math.NaN()
		}
		return v
	}
	lb := func(r Run) float64 { return r.UsefulAvg / umax(r) }
	commE := func(r Run) float64 { return umax(r) / t(r) }
	serE := func(r Run) float64 { return ideal(r, float64(r.UsefulIdealMax)/float64(r.IdealRuntime)) }
	pe := func(r Run) float64 { return r.UsefulAvg / t(r) }
	compS := func(r Run) float64 { return float64(ref.UsefulTotal) / float64(r.UsefulTotal) * weak(r) }
	ipc := func(r Run) float64 { return r.Instructions / r.Cycles }
	freq := func(r Run) float64 { return r.Cycles / float64(r.UsefulTotal) } // cycles per ns: GHz

	row("global_efficiency", "Global efficiency", 0, true, "", func(r Run) float64 { return pe(r) * compS(r) })
	row("parallel_efficiency", "Parallel efficiency", 1, true, "", pe)
	row("load_balance", "Load balance", 2, true, "multiplicative", lb)
	row("load_balance", "Load balance", 2, true, "additive", func(r Run) float64 { return 1 - (umax(r)-r.UsefulAvg)/t(r) })
	row("communication_efficiency", "Communication efficiency", 2, true, "", commE)
	row("serialisation_efficiency", "Serialisation efficiency", 3, true, "multiplicative", serE)
	row("serialisation_efficiency", "Serialisation efficiency", 3, true, "additive", func(r Run) float64 {
		return ideal(r, 1-(float64(r.IdealRuntime)-umax(r))/t(r))
	})
	row("transfer_efficiency", "Transfer efficiency", 3, true, "multiplicative", func(r Run) float64 { return commE(r) / serE(r) })
	row("transfer_efficiency", "Transfer efficiency", 3, true, "additive", func(r Run) float64 {
		return ideal(r, float64(r.IdealRuntime)/t(r))
	})
	row("computation_scalability", "Computation scalability", 1, true, "", compS)
	row("ipc_scalability", "IPC scalability", 2, true, "", func(r Run) float64 { return ipc(r) / ipc(ref) })
	row("instruction_scalability", "Instruction scalability", 2, true, "", func(r Run) float64 {
		return ref.Instructions / r.Instructions * weak(r)
	})
	row("frequency_scalability", "Frequency scalability", 2, true, "", func(r Run) float64 { return freq(r) / freq(ref) })
	row("speedup", "Speedup", 0, false, "", func(r Run) float64 { return t(ref) / t(r) * weak(r) })
	row("ipc", "Average IPC", 0, false, "", ipc)
	row("frequency", "Average frequency (GHz)", 0, false, "", freq)
	return f, nil
}

// Form returns the rows of one form (with the rows both forms share), in
// the order of the hierarchy.
func (f *Factors) Form(form Form) []Factor {
	want := "multiplicative"
	if form == Additive {
		want = "additive"
	}
	var out []Factor
	for _, r := range f.Rows {
		if r.Form == "" || r.Form == want {
			out = append(out, r)
		}
	}
	return out
}

// Labels names the runs: their processes, and threads per process when
// there are several ("4x2"); repeated labels get a suffix.
func (f *Factors) Labels() []string {
	out := make([]string, len(f.Runs))
	seen := map[string]int{}
	for i, r := range f.Runs {
		l := fmt.Sprint(r.Processes)
		if r.Resources != r.Processes && r.Processes > 0 && r.Resources%r.Processes == 0 {
			l = fmt.Sprintf("%dx%d", r.Processes, r.Resources/r.Processes)
		}
		seen[l]++
		if seen[l] > 1 {
			l = fmt.Sprintf("%s (%d)", l, seen[l])
		}
		out[i] = l
	}
	return out
}

// RunSummaryKeys are the factors a one-line summary of a run carries (a
// row of a series of runs compared): those one run defines, without the
// scalability factors, which need the series' reference run.
var RunSummaryKeys = []string{"parallel_efficiency", "load_balance", "communication_efficiency", "serialisation_efficiency", "transfer_efficiency"}

// RunSummary returns run i's factors of RunSummaryKeys in the
// multiplicative form, in the order of the hierarchy.
func (f *Factors) RunSummary(i int) []Factor {
	var out []Factor
	for _, r := range f.Form(Multiplicative) {
		if slices.Contains(RunSummaryKeys, r.Key) {
			r.Values = r.Values[i : i+1 : i+1]
			out = append(out, r)
		}
	}
	return out
}
