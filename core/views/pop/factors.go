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
	// instructions grow with the CPUs (their ratio to the reference run's
	// over the ratio of resources, the threads of all processes, averages
	// above 0.9), else strong; strong without counters or with one run.
	// BSC's CPUs are the .row file's, every thread of every task: a
	// series of threads of one process (pypop's ImageMagick runs) is
	// strong scaling when its instructions stay constant.
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
	slices.SortStableFunc(runs, referenceFirst)
	f := &Factors{Runs: runs, NormalisedInstructions: math.NaN()}
	ref := runs[0]
	if len(runs) > 1 {
		sum := 0.0
		for _, r := range runs {
			sum += (r.Instructions / ref.Instructions) / (float64(r.Resources) / float64(ref.Resources))
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
			// BSC's proc_ratio: of CPUs, as the detection above.
			return float64(r.Resources) / float64(ref.Resources)
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
	withoutMPI := f.WithoutMPI()
	if f.Hybrid() || withoutMPI {
		f.hybridRows(row, ideal)
	}
	row("computation_scalability", "Computation scalability", 1, true, "", compS)
	row("ipc_scalability", "IPC scalability", 2, true, "", func(r Run) float64 { return ipc(r) / ipc(ref) })
	row("instruction_scalability", "Instruction scalability", 2, true, "", func(r Run) float64 {
		return ref.Instructions / r.Instructions * weak(r)
	})
	row("frequency_scalability", "Frequency scalability", 2, true, "", func(r Run) float64 { return freq(r) / freq(ref) })
	row("speedup", "Speedup", 0, false, "", func(r Run) float64 { return t(ref) / t(r) * weak(r) })
	row("ipc", "Average IPC", 0, false, "", ipc)
	row("frequency", "Average frequency (GHz)", 0, false, "", freq)
	if withoutMPI {
		f.Rows = openMPRows(f.Rows)
	} else if f.Serial() {
		f.Rows = serialRows(f.Rows)
	}
	return f, nil
}

// Serial tells a series of serial runs: each one thread of one process,
// without MPI calls or OpenMP constructs (Run.Model "serial"). Nothing
// runs in parallel there: load balance is 1 by definition, communication
// efficiency repeats the parallel efficiency, serialisation and transfer
// have no messages to measure; its factors are serialRows'.
func (f *Factors) Serial() bool {
	for _, r := range f.Runs {
		if r.Model != "serial" || r.Resources > 1 || r.Calls > 0 {
			return false
		}
	}
	return len(f.Runs) > 0
}

// serialRows keeps of the rows of a serial series those that say
// something of one thread: global efficiency, the parallel efficiency
// (the share of the runtime in useful computation, outside the
// measurement's own regions), computation scalability with instruction,
// IPC and frequency scalability below it; then the plain numbers. The
// rows of the MPI model would be 100 % or repeat the parallel efficiency.
func serialRows(rows []Factor) []Factor {
	var out []Factor
	for _, key := range []string{"global_efficiency", "parallel_efficiency", "computation_scalability",
		"instruction_scalability", "ipc_scalability", "frequency_scalability", "speedup", "ipc", "frequency"} {
		for _, r := range rows {
			if r.Key == key && r.Form == "" {
				out = append(out, r)
				break
			}
		}
	}
	return out
}

// WithoutMPI tells a series of runs without MPI calls that run OpenMP
// constructs or several threads per process (pypop's OpenMP_Metrics
// apply, not its MPI or hybrid sets): its factors are openMPRows'. A run
// whose model is MPI's (Run.Model "MPI...", as a run built by hand may
// say without counting its calls) has MPI calls.
func (f *Factors) WithoutMPI() bool {
	threads := false
	for _, r := range f.Runs {
		if r.Calls > 0 || strings.HasPrefix(r.Model, "MPI") {
			return false
		}
		threads = threads || r.ThreadsPerProcess > 1 || r.Model == "OpenMP"
	}
	return threads
}

// openMPRows keeps of the rows of a series without MPI calls those of
// pypop's OpenMP_Metrics (pypop/metrics/openmp.py), in its order: global
// and parallel efficiency, OpenMP region and serial region efficiency
// below it, computation scalability with instruction, IPC and frequency
// scalability below it; then the plain numbers. The multiplicative form
// keeps BSC's load balance and communication efficiency (its OpenMP
// factors: the MPI ones are 1 without MPI calls) and pypop's
// multiplicative thread level with its two factors. Every row of the MPI
// model (serialisation and transfer on an ideal network, BSC's MPI
// factors, pypop's process level) would be 100 % or repeat another, and
// pypop's thread level is the parallel efficiency's only child, so these
// are left out.
func openMPRows(rows []Factor) []Factor {
	const mul, add = "multiplicative", "additive"
	var out []Factor
	keep := func(key, form, as string, depth int) {
		for _, r := range rows {
			if r.Key == key && r.Form == form {
				r.Form, r.Depth = as, depth
				out = append(out, r)
				return
			}
		}
		panic("pop: no row " + key + " " + form)
	}
	keep("global_efficiency", "", "", 0)
	keep("parallel_efficiency", "", "", 1)
	keep("load_balance", mul, mul, 2)
	keep("communication_efficiency", "", mul, 2)
	keep("thread_level_efficiency", mul, mul, 2)
	keep("openmp_region_efficiency", mul, mul, 3)
	keep("serial_region_efficiency", mul, mul, 3)
	keep("openmp_region_efficiency", add, add, 2)
	keep("serial_region_efficiency", add, add, 2)
	keep("computation_scalability", "", "", 1)
	keep("instruction_scalability", "", "", 2)
	keep("ipc_scalability", "", "", 2)
	keep("frequency_scalability", "", "", 2)
	keep("speedup", "", "", 0)
	keep("ipc", "", "", 0)
	keep("frequency", "", "", 0)
	return out
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
// a run of the series has several ("4x2"; "1x1" for a run of one thread
// among them, as pypop's hybrid layout names every run); repeated labels
// get a suffix.
func (f *Factors) Labels() []string {
	out := make([]string, len(f.Runs))
	seen := map[string]int{}
	hybrid := f.Hybrid()
	for i, r := range f.Runs {
		l := fmt.Sprint(r.Processes)
		if (hybrid || r.Resources != r.Processes) && r.Processes > 0 && r.Resources%r.Processes == 0 {
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

// referenceFirst orders the runs of a series, the reference first: as
// pypop's MetricSet._choose_ref_key, the fewest threads in all (resources),
// then the fewest threads per process (BSC sorts by CPUs too); then the
// fewest processes.
func referenceFirst(a, b Run) int {
	if a.Resources != b.Resources {
		return a.Resources - b.Resources
	}
	if a.ThreadsPerProcess != b.ThreadsPerProcess {
		return a.ThreadsPerProcess - b.ThreadsPerProcess
	}
	return a.Processes - b.Processes
}

// StudySummaryKeys are the factors of a series that need every run of it
// (each against the series' reference): what one run's summary
// (RunSummaryKeys) cannot say.
var StudySummaryKeys = []string{"global_efficiency", "computation_scalability", "ipc_scalability",
	"instruction_scalability", "frequency_scalability", "speedup"}

// StudySummary computes the factors of the series of runs and returns
// each run's factors of StudySummaryKeys (multiplicative form), in the
// order the runs are given (ComputeFactors sorts them, reference first).
func StudySummary(runs []Run, scaling Scaling) ([][]Factor, error) {
	f, err := ComputeFactors(runs, scaling)
	if err != nil {
		return nil, err
	}
	// The sorted position of each run given: the same stable sort.
	order := make([]int, len(runs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return referenceFirst(runs[a], runs[b]) })
	out := make([][]Factor, len(runs))
	for at, i := range order {
		for _, r := range f.Form(Multiplicative) {
			if slices.Contains(StudySummaryKeys, r.Key) {
				r.Values = r.Values[at : at+1 : at+1]
				out[i] = append(out[i], r)
			}
		}
	}
	return out, nil
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

// Hybrid tells whether a run of the series has several threads per
// process: the factors then include the hybrid model's.
func (f *Factors) Hybrid() bool {
	for _, r := range f.Runs {
		if r.ThreadsPerProcess > 1 {
			return true
		}
	}
	return false
}

// hybridStats are the per-run quantities of the hybrid models, in
// nanoseconds: over the processes (their main threads) the mean and
// largest time outside MPI calls, the largest the ideal replay keeps,
// the means of the time in OpenMP constructs and of the serial useful
// computation, and over all threads the mean useful computation inside
// OpenMP constructs.
type hybridStats struct {
	outAvg, outMax, idealOutMax   float64
	nonMPIAvg, nonMPIMax          float64
	openMPAvg, serialAvg          float64
	usefulOpenMPAvg, threadsFirst float64
	openMPKnown                   bool
}

func hybridOf(r Run) hybridStats {
	var h hybridStats
	n := float64(len(r.PerProcess))
	for _, p := range r.PerProcess {
		h.outAvg += float64(p.OutsideMPI) / n
		h.outMax = max(h.outMax, float64(p.OutsideMPI))
		h.idealOutMax = max(h.idealOutMax, float64(p.IdealOutside))
		nonMPI := float64(p.OpenMP + p.SerialUseful)
		h.nonMPIAvg += nonMPI / n
		h.nonMPIMax = max(h.nonMPIMax, nonMPI)
		h.openMPAvg += float64(p.OpenMP) / n
		h.serialAvg += float64(p.SerialUseful) / n
	}
	for _, res := range r.PerResource {
		h.usefulOpenMPAvg += float64(res.UsefulOpenMP) / float64(len(r.PerResource))
	}
	h.threadsFirst = 1
	if len(r.PerProcess) > 0 {
		h.threadsFirst = float64(r.PerProcess[0].Threads)
	}
	h.openMPKnown = r.Model != "MPI+threads"
	return h
}

// hybridRows adds the factors of the hybrid models: BSC's
// (modelfactors.py, its "hybrid" table; multiplicative) and pypop's
// MPI+OpenMP metrics (pypop/metrics/hybrid.py: MPI_OpenMP_Metrics,
// additive, and of MPI_OpenMP_Multiplicative_Metrics the thread level's
// split, which BSC's table has not).
func (f *Factors) hybridRows(row func(key, label string, depth int, fraction bool, form string, value func(r Run) float64),
	ideal func(r Run, v float64) float64) {
	const mul, add = "multiplicative", "additive"
	t := func(r Run) float64 { return float64(r.Runtime) }
	// pypop's quantities need the OpenMP constructs.
	omp := func(r Run, v float64) float64 {
		if !hybridOf(r).openMPKnown {
			return math.NaN()
		}
		return v
	}
	mpiPE := func(r Run) float64 { return hybridOf(r).outAvg / t(r) }
	mpiLB := func(r Run) float64 { h := hybridOf(r); return h.outAvg / h.outMax }
	mpiCommE := func(r Run) float64 { return hybridOf(r).outMax / t(r) }
	mpiSerE := func(r Run) float64 {
		return ideal(r, hybridOf(r).idealOutMax/float64(r.IdealRuntime))
	}
	row("mpi_parallel_efficiency", "MPI parallel efficiency", 2, true, mul, mpiPE)
	row("mpi_load_balance", "MPI load balance", 3, true, mul, mpiLB)
	row("mpi_communication_efficiency", "MPI communication efficiency", 3, true, mul, mpiCommE)
	row("mpi_serialisation_efficiency", "MPI serialisation efficiency", 4, true, mul, mpiSerE)
	row("mpi_transfer_efficiency", "MPI transfer efficiency", 4, true, mul, func(r Run) float64 { return mpiCommE(r) / mpiSerE(r) })
	row("openmp_parallel_efficiency", "OpenMP parallel efficiency", 2, true, mul, func(r Run) float64 {
		return r.UsefulAvg / t(r) / mpiPE(r)
	})
	row("openmp_load_balance", "OpenMP load balance", 3, true, mul, func(r Run) float64 {
		return r.UsefulAvg / float64(r.UsefulMax) / mpiLB(r)
	})
	row("openmp_communication_efficiency", "OpenMP communication efficiency", 3, true, mul, func(r Run) float64 {
		return float64(r.UsefulMax) / t(r) / mpiCommE(r)
	})
	// pypop's split of the thread level, multiplicative.
	row("thread_level_efficiency", "Thread level efficiency (pypop)", 2, true, mul, func(r Run) float64 {
		h := hybridOf(r)
		return omp(r, r.UsefulAvg/(h.openMPAvg+h.serialAvg))
	})
	row("openmp_region_efficiency", "OpenMP region efficiency (pypop)", 3, true, mul, func(r Run) float64 {
		h := hybridOf(r)
		return omp(r, (h.usefulOpenMPAvg+h.serialAvg)/(h.openMPAvg+h.serialAvg))
	})
	row("serial_region_efficiency", "Serial region efficiency (pypop)", 3, true, mul, func(r Run) float64 {
		h := hybridOf(r)
		return omp(r, r.UsefulAvg/(h.usefulOpenMPAvg+h.serialAvg))
	})
	// pypop's additive metrics: the process level over the main
	// threads' time outside MPI (serial useful computation plus OpenMP
	// constructs), the thread level from the OpenMP constructs.
	row("process_level_efficiency", "Process level efficiency", 2, true, add, func(r Run) float64 {
		return omp(r, hybridOf(r).nonMPIAvg/t(r))
	})
	row("mpi_load_balance", "MPI load balance", 3, true, add, func(r Run) float64 {
		h := hybridOf(r)
		return omp(r, 1-(h.nonMPIMax-h.nonMPIAvg)/t(r))
	})
	row("mpi_communication_efficiency", "MPI communication efficiency", 3, true, add, func(r Run) float64 {
		return omp(r, hybridOf(r).nonMPIMax/t(r))
	})
	row("mpi_serialisation_efficiency", "MPI serialisation efficiency", 4, true, add, func(r Run) float64 {
		return omp(r, ideal(r, 1-(float64(r.IdealRuntime)-hybridOf(r).nonMPIMax)/t(r)))
	})
	row("mpi_transfer_efficiency", "MPI transfer efficiency", 4, true, add, func(r Run) float64 {
		return ideal(r, float64(r.IdealRuntime)/t(r))
	})
	row("thread_level_efficiency", "Thread level efficiency", 2, true, add, func(r Run) float64 {
		h := hybridOf(r)
		return omp(r, 1-(h.openMPAvg-h.usefulOpenMPAvg+h.serialAvg*(1-1/h.threadsFirst))/t(r))
	})
	row("openmp_region_efficiency", "OpenMP region efficiency", 3, true, add, func(r Run) float64 {
		h := hybridOf(r)
		return omp(r, 1-(h.openMPAvg-h.usefulOpenMPAvg)/t(r))
	})
	row("serial_region_efficiency", "Serial region efficiency", 3, true, add, func(r Run) float64 {
		h := hybridOf(r)
		return omp(r, 1-h.serialAvg*(1-1/h.threadsFirst)/t(r))
	})
}
