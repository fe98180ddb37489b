package cli

import (
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/arrowio"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/commmatrix"
	"github.com/macroscope-hpc/macroscope/core/views/critpath"
	"github.com/macroscope-hpc/macroscope/core/views/pop"
	"github.com/macroscope-hpc/macroscope/core/views/profile"
	"github.com/macroscope-hpc/macroscope/core/views/stragglers"
	"github.com/macroscope-hpc/macroscope/plots"
)

// The commands of the performance analyses (docs/analyses.md): flat
// profile, load imbalance, communication matrix, POP efficiencies,
// critical path and stragglers. Those that can are computed while the
// trace is read.

var profileCommand = command{
	name:     "profile",
	summary:  "flat profile of the states (pipit's), computed while reading: table and figure",
	synopsis: "[flags] trace",
	about: `
Computes, while reading the trace, the flat profile of its states: for each
state name its count, inclusive and exclusive times (a state's duration
minus that of the states directly nested in it) added up, and their means
over the processes that have it (pipit's flat_profile).`,
	run: runProfile,
}

var imbalanceCommand = command{
	name:     "imbalance",
	summary:  "load imbalance of every state name over the processes, computed while reading: table and figure",
	synopsis: "[flags] trace",
	about: `
Computes, while reading the trace, the load imbalance of every state name:
its mean, largest and smallest time per process, their ratio max / mean
(pipit's load_imbalance), the processes of the largest times, and the time
a perfect balance would save on the slowest.`,
	run: runImbalance,
}

var commMatrixCommand = command{
	name:     "commmatrix",
	summary:  "communication matrix (messages, bytes) between resources, computed while reading: table and figure",
	synopsis: "[flags] trace",
	about: `
Counts, while reading the trace, its links (MPI messages, kernel launches,
flows...) and their bytes for every link type and pair of resources, at the
level --level: process (threads count for their process), container, or a
container type's name.`,
	run: runCommMatrix,
}

var popCommand = command{
	name:     "pop",
	summary:  "POP efficiencies of a run or a scaling series of runs: table and figure",
	synopsis: "[flags] trace [trace...]",
	about: `
Computes the POP metrics (load balance, communication, serialisation and
transfer efficiencies, parallel and global efficiency, computation, IPC,
instruction and frequency scalability) of one run, or of several runs of a
scaling study side by side (the reference is the run with the fewest
processes), while reading each. The ideal-network runtime is a replay of the
trace's own MPI calls and messages (Dimemas' ideal configuration).`,
	run: runPOP,
}

var critPathCommand = command{
	name:     "critpath",
	summary:  "critical path of a message-passing run (Scalasca's) or a GPU or task trace (HTA's): table and figure",
	synopsis: "[flags] trace",
	about: `
Finds the critical path of the run. With MPI calls, Scalasca's semantics:
the wait states (late sender, late receiver, waiting in collectives), then
a walk back from the last resource to enter MPI_Finalize, along it until a
call that waited, on at the resource that caused the wait, down to
MPI_Init's end. Without, on a trace whose calls launch GPU operations
(Kineto's flows or correlation ids, those of Nsight Systems and rocprof),
Holistic Trace Analysis' semantics: the longest path through the CPU call
stacks, the launches, the streams' order and their synchronisations; on a
trace of states joined by flows, the longest path through them. The first
line says which was used. Reads the trace into memory (the path's time is
attributed to the states of the resources it crosses).`,
	run: runCritPath,
}

var stragglersCommand = command{
	name:     "stragglers",
	summary:  "resources arriving last at collectives or iterations, computed while reading: table and figure",
	synopsis: "[flags] trace",
	about: `
Finds, while reading the trace, who arrives last at every collective
operation (or, with --iteration, at the k-th state of that name on every
resource, by when it ends), how much later than the next, and how much
waiting that caused; then, per resource, how often and by how much. A
trace without collectives takes the GPUs' NCCL kernels (nccl*Kernel*),
or else ProfilerStep*, when two resources have them.`,
	run: runStragglers,
}

// stream reads the trace at path into sink, an analysis computed while
// reading, and reports the read.
func (c *cli) stream(path string, sink trace.Sink) error {
	src, err := c.open(path)
	if err != nil {
		return err
	}
	ro, done := c.readOptions(path)
	err = guarded(path, func() error { return src.Read(sink, ro) })
	if berr := done(err); berr != nil && c.ctx.Err() == nil {
		return berr
	}
	if err != nil {
		return err
	}
	c.say("trace", "%s (%s), read", path, c.formatName)
	c.sayNotes(ro.Notes)
	return nil
}

// resultError attributes an analysis' error: bad options are the command
// line's, anything else is the trace's (the reader delivered an
// inconsistent stream, or calls that do not pair up).
func resultError(path string, err error) error {
	var ae *errs.ArgumentError
	var fe *errs.FormatError
	var ee *errs.EmptyError
	if err == nil || errors.As(err, &ae) || errors.Is(err, trace.ErrComputationCanceled) {
		return err // the user's interrupt is not the file's fault
	}
	if errors.As(err, &ee) || errors.As(err, &fe) {
		// Data that hold nothing for the analysis (outside its scope)
		// are not malformed, and data the analysis found at fault (a
		// critical path's cycle) already say so: named once, by the file.
		return errs.NameFile(err, path)
	}
	return &errs.FormatError{File: path, Err: err}
}

// noStates is the failure of an analysis of states on a trace that has
// none (of the state types asked for): a trace of events or counters only
// (Paraver traces of sampled metrics) is the data's failure, named by its
// file, where the empty figure was blamed on the command line ("invalid
// rows: nothing to draw", status 2).
func noStates(what string, types []string) error {
	if len(types) > 0 {
		return errs.Empty("", "the trace has no states of the types %s to %s", strings.Join(types, ", "), what)
	}
	return errs.Empty("", "the trace has no states to %s", what)
}

// figureTitle titles a figure after the trace and the analysis.
func figureTitle(path, what string) string { return filepath.Base(path) + ": " + what }

func (c *cli) topFlag(def int, what string) *int {
	return c.fs.Int("top", def, "rows printed and drawn: the "+what)
}

func checkTop(top int) error {
	if top < 1 {
		return errs.Argument("top", "must be at least 1, got %d", top)
	}
	return nil
}

func runProfile(c *cli) error {
	var stateTypes nameList
	c.fs.Var(&stateTypes, "state-types", "comma-separated state types to profile (default: all)")
	by := c.fs.String("by", "process", "sum by process (threads add up) or by container")
	top := c.topFlag(20, "names with the most exclusive time")
	quiet := c.fs.Bool("quiet", false, "do not print the table")
	c.alias("quiet", "q")
	c.traceFlags()
	c.figureFlags("profile.png", 960, 0)
	table := c.tableFlag("table", "profile.parquet", "table of the flat profile")
	perProcess := c.tableFlag("per-process", "", "table of every name's sums by process")
	c.paramFlags["state_types"] = "--state-types"
	if err := c.parse(1, 1); err != nil {
		return err
	}
	kind, err := profile.ParseBy(*by)
	if err != nil {
		return err
	}
	if err := checkTop(*top); err != nil {
		return err
	}
	path := c.arg(0)
	acc := profile.New(profile.Options{StateTypes: stateTypes.names, By: kind, Cancel: c.ctx.Done()})
	if err := c.stream(path, acc); err != nil {
		return err
	}
	r, err := acc.Result()
	if err != nil {
		return resultError(path, err)
	}
	flat := r.Flat()
	if len(flat) == 0 {
		return noStates("profile", stateTypes.names)
	}
	c.say("profile", "%d state names over %d %ses", len(flat), len(r.Processes), kind)
	if !*quiet {
		tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "name\tcount\t%ses\texclusive mean (s)\tinclusive mean (s)\tshare\t\n", kind)
		for _, f := range flat[:min(*top, len(flat))] {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%.9g\t%.9g\t%.4f\t\n", f.Name.Name, f.Count, f.Processes, f.ExclusiveMean, f.InclusiveMean, f.Share)
		}
		tw.Flush()
	}
	meta := map[string]string{"macroscope.analysis": "flat profile", "macroscope.source": path}
	if *table != "" {
		if err := c.writeTable(*table, arrowio.FlatProfileTable(flat, meta, memory.DefaultAllocator), ""); err != nil {
			return err
		}
	}
	if *perProcess != "" {
		if err := c.writeTable(*perProcess, arrowio.ProfileByProcessTable(r.PerProcess(), meta, memory.DefaultAllocator), ""); err != nil {
			return err
		}
	}
	return c.figureOf(func(opt plots.FigureOptions) ([]byte, error) {
		opt.Title = figureTitle(path, "flat profile")
		return plots.FlatProfileFigure(flat, *top, kind, opt)
	})
}

// figureOf draws the figure of --figure, if any, and writes it.
func (c *cli) figureOf(draw func(opt plots.FigureOptions) ([]byte, error)) error {
	if *c.figure == "" {
		return nil
	}
	w, h := c.figureSize()
	img, err := draw(plots.FigureOptions{Width: w, Height: h, Format: c.imgFormat, Cancel: c.ctx.Done()})
	if err != nil {
		return err
	}
	return c.writeFigure(img)
}

func runImbalance(c *cli) error {
	var stateTypes nameList
	c.fs.Var(&stateTypes, "state-types", "comma-separated state types to look at (default: all)")
	by := c.fs.String("by", "process", "over processes (threads add up) or containers")
	metric := c.fs.String("metric", "exclusive", "the time compared: exclusive or inclusive")
	top := c.topFlag(20, "names with the largest mean")
	processes := c.fs.Int("processes", 3, "processes of the largest times listed for each name")
	quiet := c.fs.Bool("quiet", false, "do not print the table")
	c.alias("quiet", "q")
	c.traceFlags()
	c.figureFlags("imbalance.png", 960, 0)
	table := c.tableFlag("table", "imbalance.parquet", "table of the load imbalance")
	c.paramFlags["state_types"] = "--state-types"
	if err := c.parse(1, 1); err != nil {
		return err
	}
	kind, err := profile.ParseBy(*by)
	if err != nil {
		return err
	}
	m, err := profile.ParseMetric(*metric)
	if err != nil {
		return err
	}
	if err := checkTop(*top); err != nil {
		return err
	}
	if *processes < 0 {
		return errs.Argument("processes", "must be a number of processes, got %d", *processes)
	}
	path := c.arg(0)
	acc := profile.New(profile.Options{StateTypes: stateTypes.names, By: kind, Cancel: c.ctx.Done()})
	if err := c.stream(path, acc); err != nil {
		return err
	}
	r, err := acc.Result()
	if err != nil {
		return resultError(path, err)
	}
	rows := r.Imbalance(m, *processes)
	if len(rows) == 0 {
		return noStates("compare over processes", stateTypes.names)
	}
	c.say("imbalance", "%d state names over %d %ses, %s time", len(rows), len(r.Processes), kind, m)
	if !*quiet {
		tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "name\tmean (s)\tmax (s)\timbalance\tsaving (s)\ttop\t\n")
		for _, row := range rows[:min(*top, len(rows))] {
			fmt.Fprintf(tw, "%s\t%.9g\t%.9g\t%.4g\t%.9g\t%s\t\n", row.Name.Name, row.Mean, row.Max, row.Imbalance, row.Saving,
				strings.Join(row.Top, ", "))
		}
		tw.Flush()
	}
	if *table != "" {
		meta := map[string]string{"macroscope.analysis": "load imbalance", "macroscope.source": path}
		if err := c.writeTable(*table, arrowio.ImbalanceTable(rows, meta, memory.DefaultAllocator), ""); err != nil {
			return err
		}
	}
	return c.figureOf(func(opt plots.FigureOptions) ([]byte, error) {
		opt.Title = figureTitle(path, "load imbalance")
		return plots.ImbalanceFigure(rows, *top, m, kind, opt)
	})
}

func runCommMatrix(c *cli) error {
	var linkTypes nameList
	c.fs.Var(&linkTypes, "link-types", "comma-separated link types to count (default: all)")
	level := c.fs.String("level", "process", "pairs of processes (threads count for their process), of containers, or of the containers of a type")
	value := c.fs.String("value", "", "what the figure shows: bytes or count (default: bytes when every pair has sizes)")
	linkType := c.fs.String("link-type", "", "the link type the figure shows (default: the first)")
	linear := c.fs.Bool("linear", false, "a linear colour scale in the figure (default: logarithmic)")
	c.traceFlags()
	c.figureFlags("commmatrix.png", 900, 800)
	table := c.tableFlag("table", "commmatrix.parquet", "table of the communication matrix (long form)")
	c.paramFlags["link_types"] = "--link-types"
	c.paramFlags["type"] = "--link-type"
	if err := c.parse(1, 1); err != nil {
		return err
	}
	if *value != "" && *value != "bytes" && *value != "count" {
		return errs.Argument("value", "%q is not bytes or count", *value)
	}
	path := c.arg(0)
	acc, err := commmatrix.New(commmatrix.Options{Level: *level, LinkTypes: linkTypes.names, Cancel: c.ctx.Done()})
	if err != nil {
		return err
	}
	if err := c.stream(path, acc); err != nil {
		return err
	}
	r, err := acc.Result()
	if err != nil {
		return resultError(path, err)
	}
	var links int64
	var bytes float64
	types := map[string]bool{}
	for _, row := range r.Rows {
		links, bytes, types[row.Type] = links+row.Count, bytes+row.Bytes, true
	}
	c.say("matrix", "%d links, %.0f bytes, of %d link types between %d %s pairs", links, bytes, len(types), len(r.Rows), r.Level)
	if *table != "" {
		meta := map[string]string{"macroscope.analysis": "communication matrix", "macroscope.source": path}
		if err := c.writeTable(*table, arrowio.CommMatrixTable(r.Rows, r.Groups, meta, memory.DefaultAllocator), ""); err != nil {
			return err
		}
	}
	if len(r.Rows) == 0 {
		c.say("figure", "none: the trace has no links")
		return nil
	}
	return c.figureOf(func(opt plots.FigureOptions) ([]byte, error) {
		opt.Title = figureTitle(path, "communication matrix")
		return plots.CommMatrixFigure(r, *linkType, *value, !*linear, opt)
	})
}

func runPOP(c *cli) error {
	scaling := c.fs.String("scaling", "auto", "scaling of the series: auto (weak when the useful instructions grow with the processes), strong or weak")
	eager := c.fs.Float64("eager-limit", pop.DefaultEagerLimit, "bytes above which a blocking send waits for its receiver in the ideal replay (0: all; inf: none)")
	noIdeal := c.fs.Bool("no-ideal", false, "skip the ideal-network replay (no serialisation or transfer efficiency)")
	form := c.fs.String("form", "multiplicative", "the form printed and drawn: multiplicative (BSC's) or additive (pypop's)")
	var labels nameList
	c.fs.Var(&labels, "labels", "comma-separated names of the runs, in the order of the traces (default: their processes)")
	quiet := c.fs.Bool("quiet", false, "do not print the table")
	c.alias("quiet", "q")
	c.traceFlags()
	c.figureFlags("pop.png", 800, 0)
	table := c.tableFlag("table", "pop.csv", "table of the efficiencies (a column per run)")
	raw := c.tableFlag("raw", "", "table of the raw data of each run")
	c.paramFlags["eager_limit"] = "--eager-limit"
	if err := c.parse(1, math.MaxInt); err != nil {
		return err
	}
	sc, err := pop.ParseScaling(*scaling)
	if err != nil {
		return err
	}
	f := pop.Multiplicative
	switch *form {
	case "multiplicative":
	case "additive":
		f = pop.Additive
	default:
		return errs.Argument("form", "%q is not multiplicative or additive", *form)
	}
	if math.IsNaN(*eager) || *eager < 0 {
		return errs.Argument("eager_limit", "must be a number of bytes, got %v", *eager)
	}
	if labels.set && len(labels.names) != len(c.positional) {
		return errs.Argument("labels", "%d labels for %d traces", len(labels.names), len(c.positional))
	}
	opt := pop.Options{EagerLimit: *eager, NoIdeal: *noIdeal}
	if *eager == 0 {
		opt.EagerLimit = -1
	}
	var runs []pop.Run
	names := map[string]string{}
	for i, path := range c.positional {
		run, err := c.popRun(path, opt)
		if err != nil {
			return err
		}
		if labels.set {
			names[path] = labels.names[i]
		}
		if run.NoIdealReason != "" {
			c.say("note", "%s: %s", path, run.NoIdealReason)
		}
		runs = append(runs, *run)
	}
	factors, err := pop.ComputeFactors(runs, sc)
	if err != nil {
		return err
	}
	cols := factors.Labels()
	for i, r := range factors.Runs {
		if l, ok := names[r.Source]; ok {
			cols[i] = l
		}
	}
	c.say("pop", "%d runs (%s), %s scaling", len(runs), strings.Join(cols, ", "), factors.Scaling)
	if factors.Hybrid() || factors.WithoutMPI() {
		c.say("pop", "%s", hybridLine(factors.Runs))
	} else if factors.Serial() {
		c.say("pop", "serial runs (one thread, no MPI calls or OpenMP constructs): global and parallel efficiency, "+
			"computation scalability and its factors; no load balance, communication or MPI factors")
	}
	if !*quiet {
		printFactors(c.stdout, factors.Form(f), cols)
	}
	meta := map[string]string{"macroscope.analysis": "POP efficiencies", "macroscope.scaling": factors.Scaling.String()}
	if *table != "" {
		if err := c.writeTable(*table, arrowio.POPFactorsTable(factors, cols, meta, memory.DefaultAllocator), ""); err != nil {
			return err
		}
	}
	if *raw != "" {
		if err := c.writeTable(*raw, arrowio.POPRawTable(factors.Runs, cols, meta, memory.DefaultAllocator), ""); err != nil {
			return err
		}
	}
	return c.figureOf(func(opt plots.FigureOptions) ([]byte, error) {
		opt.Title = "POP efficiencies"
		if len(c.positional) == 1 {
			opt.Title = figureTitle(c.positional[0], opt.Title)
		}
		return plots.POPFigure(factors, cols, f, opt)
	})
}

// hybridLine says what the runs of a series with several threads per
// process use and which models' factors apply, in pypop's words: its
// MPI_OpenMP_Metrics (process and thread levels) for runs with MPI calls,
// its OpenMP_Metrics (OpenMP and serial region efficiencies) for runs
// without (pop.Factors.WithoutMPI: one thread of OpenMP too), whose table
// has no MPI rows.
func hybridLine(runs []pop.Run) string {
	var models []string
	mpi := false
	for _, r := range runs {
		threads := "threads"
		if r.ThreadsPerProcess == 1 {
			threads = "thread"
		}
		models = append(models, fmt.Sprintf("%s, %d %s per process", r.Model, r.ThreadsPerProcess, threads))
		mpi = mpi || r.Calls > 0
	}
	if mpi {
		return fmt.Sprintf("hybrid runs (%s): BSC's MPI and OpenMP factors, pypop's MPI_OpenMP_Metrics (process and thread levels)",
			strings.Join(slices.Compact(models), "; "))
	}
	return fmt.Sprintf("runs without MPI calls (%s): pypop's OpenMP_Metrics (OpenMP and serial region efficiencies), "+
		"BSC's load balance and communication efficiency; no MPI factors",
		strings.Join(slices.Compact(models), "; "))
}

// popRun reads the trace at path for its POP data (pop.Run), its source
// set to path.
func (c *cli) popRun(path string, opt pop.Options) (*pop.Run, error) {
	opt.Cancel = c.ctx.Done()
	acc := pop.New(opt)
	defer acc.Close()
	if err := c.stream(path, acc); err != nil {
		return nil, err
	}
	run, err := acc.Result()
	if err != nil {
		return nil, resultError(path, err)
	}
	run.Source = path
	return run, nil
}

// printFactors prints the efficiencies in % (plain numbers as they are),
// indented by depth, a column per run.
func printFactors(w io.Writer, rows []pop.Factor, cols []string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "metric\t")
	for _, l := range cols {
		fmt.Fprintf(tw, "%s\t", l)
	}
	fmt.Fprintln(tw)
	for _, r := range rows {
		fmt.Fprintf(tw, "%s%s\t", strings.Repeat("  ", r.Depth), r.Label)
		for _, v := range r.Values {
			switch {
			case math.IsNaN(v):
				fmt.Fprint(tw, "n/a\t")
			case r.Fraction:
				fmt.Fprintf(tw, "%.2f\t", 100*v)
			default:
				fmt.Fprintf(tw, "%.3g\t", v)
			}
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

// semanticsNames say how a critical path was found.
var semanticsNames = map[string]string{
	critpath.Scalasca:     "Scalasca's (MPI wait states, backward replay)",
	critpath.HTA:          "Holistic Trace Analysis' (CPU calls, launches, streams, synchronisations)",
	critpath.Dependencies: "longest path through the flows between states",
}

func runCritPath(c *cli) error {
	wholeRun := c.fs.Bool("whole-run", false, "keep MPI_Init and MPI_Finalize on the path: from the trace's start to its end")
	kind := c.fs.String("type", "path", "the figure: path (over the resources), states (its time by state) or delays (the delay costs)")
	top := c.topFlag(20, "segments printed, states drawn")
	quiet := c.fs.Bool("quiet", false, "do not print the segments")
	c.alias("quiet", "q")
	c.traceFlags()
	c.figureFlags("critpath.png", 960, 0)
	table := c.tableFlag("table", "critpath.parquet", "table of the path's segments")
	states := c.tableFlag("states", "", "table of the path's time by state")
	waits := c.tableFlag("waits", "", "table of the wait states")
	delays := c.tableFlag("delays", "", "table of the delay costs of the wait states (their root causes)")
	if err := c.parse(1, 1); err != nil {
		return err
	}
	if *kind != "path" && *kind != "states" && *kind != "delays" {
		return errs.Argument("type", "%q is not path, states or delays", *kind)
	}
	if err := checkTop(*top); err != nil {
		return err
	}
	path := c.arg(0)
	acc := critpath.New(critpath.Options{WholeRun: *wholeRun, Cancel: c.ctx.Done()})
	defer acc.Close()
	if err := c.stream(path, acc); err != nil {
		return err
	}
	r, err := acc.Result()
	if err != nil {
		return resultError(path, err)
	}
	if *delays != "" || *kind == "delays" {
		// Computed here, where Ctrl-C stops them; the table, the lines
		// and the figure below take them as they are.
		if _, err := r.DelayCostsCancel(c.ctx.Done()); err != nil {
			return err
		}
	}
	at := r.Attribution
	// Times from the trace's start (one clock), said once (sayCounts).
	origin := r.TraceStart()
	c.say("semantics", "%s", semanticsNames[r.Semantics])
	c.say("path", "%d segments over %d resources, %.9g s (%.9g-%.9g s), %d wait states",
		len(r.Segments), len(at.ByResource), r.Length().Seconds(), (r.Start - origin).Seconds(), (r.End - origin).Seconds(), len(r.Waits))
	if !*quiet {
		tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
		if r.Semantics == critpath.Scalasca {
			fmt.Fprintf(tw, "resource\tstart (s)\tend (s)\tvia\t\n")
		} else {
			fmt.Fprintf(tw, "resource\tstart (s)\tend (s)\tkind\tname\t\n")
		}
		for _, s := range r.Segments[:min(*top, len(r.Segments))] {
			fmt.Fprintf(tw, "%s\t%.9f\t%.9f\t%s\t", r.Resources[s.Resource], (s.Start - origin).Seconds(), (s.End - origin).Seconds(), s.Via)
			if r.Semantics != critpath.Scalasca {
				fmt.Fprintf(tw, "%s\t", s.Name)
			}
			fmt.Fprintln(tw)
		}
		tw.Flush()
		if n := len(r.Segments) - *top; n > 0 {
			c.say("", "... %d more segments", n)
		}
		for _, s := range at.ByState[:min(5, len(at.ByState))] {
			c.say("state", "%s: %.9g s on the path (%.1f %%)", s.State, s.OnPath.Seconds(), 100*s.Share)
		}
	}
	if *delays != "" && r.DelayCosts() != nil {
		d := r.DelayCosts()
		for _, x := range d.Costs[:min(5, len(d.Costs))] {
			c.say("delay", "%s %s: %.9g s short-term, %.9g s long-term of %s waiting", r.Resources[x.Resource], x.State,
				x.ShortTerm/1e9, x.LongTerm/1e9, x.Kind)
		}
	}
	meta := map[string]string{"macroscope.analysis": "critical path", "macroscope.source": path}
	for _, t := range []struct {
		name  *string
		build func() error
	}{
		{table, func() error {
			return c.writeTable(*table, arrowio.CritPathSegmentsTable(r, meta, memory.DefaultAllocator), "")
		}},
		{states, func() error {
			return c.writeTable(*states, arrowio.CritPathByStateTable(at, meta, memory.DefaultAllocator), "")
		}},
		{waits, func() error {
			return c.writeTable(*waits, arrowio.WaitStatesTable(r, meta, memory.DefaultAllocator), "")
		}},
		{delays, func() error {
			return c.writeTable(*delays, arrowio.DelayCostsTable(r, r.DelayCosts(), meta, memory.DefaultAllocator), "")
		}},
	} {
		if *t.name != "" {
			if err := t.build(); err != nil {
				return err
			}
		}
	}
	return c.figureOf(func(opt plots.FigureOptions) ([]byte, error) {
		opt.Title = figureTitle(path, "critical path")
		return plots.CriticalPathFigure(r, at, *kind, *top, opt)
	})
}

func runStragglers(c *cli) error {
	iteration := c.fs.String("iteration", "", "a pattern of state names (ProfilerStep*, ncclKernel*): instance k is the k-th such state of every resource (default: the collective operations, else nccl*Kernel*, else ProfilerStep*)")
	kind := c.fs.String("type", "bars", "the figure: bars (waiting caused per resource) or heatmap (delays per instance)")
	top := c.topFlag(20, "resources most often last")
	quiet := c.fs.Bool("quiet", false, "do not print the table")
	c.alias("quiet", "q")
	c.traceFlags()
	c.figureFlags("stragglers.png", 960, 0)
	table := c.tableFlag("table", "stragglers.parquet", "table of the resources")
	instances := c.tableFlag("instances", "", "table of every instance's last arrival")
	if err := c.parse(1, 1); err != nil {
		return err
	}
	if *kind != "bars" && *kind != "heatmap" {
		return errs.Argument("type", "%q is not bars or heatmap", *kind)
	}
	if err := checkTop(*top); err != nil {
		return err
	}
	path := c.arg(0)
	acc, err := stragglers.New(stragglers.Options{Iteration: *iteration, Cancel: c.ctx.Done()})
	if err != nil {
		return err
	}
	if err := c.stream(path, acc); err != nil {
		return err
	}
	r, err := acc.Result()
	if err != nil {
		return resultError(path, err)
	}
	by := r.ByResource()
	mode := r.Mode
	if r.Iteration != "" {
		mode += " (" + r.Iteration + ")"
	}
	c.say("stragglers", "%d %s over %d resources", len(r.Instances), mode, len(r.Resources))
	if !*quiet {
		tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "resource\ttimes last\tlateness (s)\twait caused (s)\t\n")
		for _, b := range by[:min(*top, len(by))] {
			fmt.Fprintf(tw, "%s\t%d\t%.9g\t%.9g\t\n", b.Resource, b.TimesLast, b.Lateness.Seconds(), b.WaitCaused.Seconds())
		}
		tw.Flush()
	}
	meta := map[string]string{"macroscope.analysis": "stragglers", "macroscope.source": path}
	if *table != "" {
		if err := c.writeTable(*table, arrowio.StragglersTable(by, meta, memory.DefaultAllocator), ""); err != nil {
			return err
		}
	}
	if *instances != "" {
		if err := c.writeTable(*instances, arrowio.StragglerInstancesTable(r, meta, memory.DefaultAllocator), ""); err != nil {
			return err
		}
	}
	return c.figureOf(func(opt plots.FigureOptions) ([]byte, error) {
		opt.Title = figureTitle(path, "stragglers")
		return plots.StragglersFigure(r, *kind, *top, false, opt)
	})
}
