package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"gonum.org/v1/plot/vg"

	"github.com/macroscope-hpc/macroscope/arrowio/files"
	"github.com/macroscope-hpc/macroscope/core/budget"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/partition"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
	"github.com/macroscope-hpc/macroscope/plots"
)

// cli is what the commands that read a trace and write views share: one
// way to declare the common flags, to check them, to read the trace or
// build its model while reading, and to write figures and tables.
//
// A command declares the groups of flags it needs (traceFlags,
// windowFlags, modelFlags, figureFlags, tableFlag, aggregationFlags),
// then calls parse, which checks every declared flag, and that the
// files can be written, before any work is done, so that a bad value is
// reported at once.
type cli struct {
	ctx    context.Context // canceled by Ctrl-C
	name   string
	fs     *flag.FlagSet
	args   []string // the command line after the command's name
	stdout io.Writer
	stderr io.Writer
	usage  string // the usage line(s)
	about  string // the description under them
	// aliases maps a flag's other names to its name; paramFlags the
	// parameters of the core's argument errors that are flags of another
	// name (the moments' "values" are --busy or --idle).
	aliases    map[string]string
	paramFlags map[string]string

	format        *string  // --format: the trace's format
	readerFlags   nameList // --read name=value: options of the format's reader
	readerOptions ingest.Values
	strict        *bool   // --strict: an incomplete trace is an error
	budgetS       *string // --memory-budget
	budget        int64   // its setting for the core (budget.Resolve): 0 the default, -1 none
	startS, endS  *string // --start, --end
	slices        *int    // --slices
	key           *string // --key: group, name, domain, category or type
	profilerSpans *bool   // --profiler-spans: keep the profiler's spans in the model
	out           *string // --out: directory of relative output files
	figure        *string // --figure: the figure
	width, height *int
	autoHeight    bool // --height 0 means "from the content"
	tables        []tableFlag
	outputs       []outputFlag // further files or directories written
	kindS, pS     *string      // --kind, --p
	threshold     *float64

	// Set by parse, and by open: the format of the trace.
	formatName string
	positional []string
	start, end *trace.Time
	imgFormat  plots.Format
	kind       aggregate.Kind
	p          float64 // NaN for "auto"
}

// newCLI starts the flags of the command cmd, to be read from args.
func newCLI(ctx context.Context, cmd command, args []string, stdout, stderr io.Writer) *cli {
	fs := flag.NewFlagSet(cmd.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // parse says what went wrong, in the command line's spelling
	fs.Usage = func() {}
	forms := strings.Split(cmd.synopsis, "\n")
	for i, f := range forms {
		forms[i] = "macroscope " + cmd.name + " " + f
	}
	return &cli{ctx: ctx, name: cmd.name, fs: fs, args: args, stdout: stdout, stderr: stderr,
		usage:   "usage: " + strings.Join(forms, "\n       "),
		aliases: map[string]string{}, paramFlags: map[string]string{},
		about: strings.TrimSpace(cmd.about)}
}

func (c *cli) printUsage(w io.Writer) {
	fmt.Fprintf(w, "%s\n\n%s\n\nflags:\n", c.usage, c.about)
	c.printFlags(w)
	fmt.Fprint(w, "\n"+wrap("Exit status: 0 done, 1 the trace could not be read or a result not computed or written, 2 bad usage, 130 interrupted.", "", 80))
}

// usageError says what is wrong with the command line, with the usage
// line, on standard error, and returns errUsage.
func (c *cli) usageError(format string, args ...any) error {
	if format != "" {
		fmt.Fprintf(c.stderr, "macroscope %s: %s\n", c.name, fmt.Sprintf(format, args...))
	}
	fmt.Fprintf(c.stderr, "%s\nRun 'macroscope %s --help' for its flags.\n", c.usage, c.name)
	return errUsage
}

// traceFlags declares --format, --read and --strict.
func (c *cli) traceFlags() {
	c.format = c.fs.String("format", "", "trace format ("+formatNames()+"); default: by extension or content")
	c.fs.Var(&c.readerFlags, "read", "options of the format's reader, as name=value,... (e.g. sort=true, strict=true, view=cpu, args=true)")
	c.strict = c.fs.Bool("strict", false, "fail when the trace is incomplete (a cut last record, a missing part) instead of reading what is there with a warning (--read strict=true)")
	c.budgetS = c.fs.String("memory-budget", "", "the most memory the trace or model held may take: bytes, or with a unit (512MiB, 4GiB, 8GB); 0 for no limit (default: half of the memory available)")
}

// windowFlags declares --start and --end.
func (c *cli) windowFlags() {
	c.startS = c.fs.String("start", "", "window start in seconds from the trace's start (default: the trace's start)")
	c.endS = c.fs.String("end", "", "window end in seconds from the trace's start (default: the trace's end)")
	c.paramFlags["window"] = "--start/--end"
}

// modelFlags declares what the microscopic model needs: the trace's
// format, the window, --slices, --key and --profiler-spans.
func (c *cli) modelFlags() {
	c.traceFlags()
	c.windowFlags()
	c.slices = c.fs.Int("slices", 100, "number of time slices")
	c.key = c.fs.String("key", "group", "what the model's states are: the states' names grouped as a person would (group: \"aten::copy_, op_id = 998952\" is aten::copy_), as the file writes them (name), their library or namespace (domain: aten, NCCL, MPI...), their categories (category) or their types (type: kernels, NCCL, memcpy... of GPU profilers)")
	c.profilerSpans = c.fs.Bool("profiler-spans", false, "keep in the model the spans a profiler draws around the program's work: its own recording (\"PyTorch Profiler (0)\"), the steps (ProfilerStep#N) and Kineto's copies of the host's annotations on the GPU streams; left out by default, their time reported")
}

// modelOptions are the options of the model the flags ask for, without
// its window.
func (c *cli) modelOptions() micro.Options {
	return micro.Options{Slices: *c.slices, Depth: micro.Innermost, Key: micro.Key(*c.key), ProfilerSpans: *c.profilerSpans,
		MemoryBudget: c.budget}
}

// outFlag declares --out, the directory of the files written.
func (c *cli) outFlag() {
	c.out = c.fs.String("out", "", "directory of the files written, created if needed (default: the current directory)")
	c.paramFlags["directory"] = "--out"
}

// figureFlags declares --out, --figure (alias -o; def by default, "" for
// no figure), --width and --height in pixels; height 0 means the figure
// chooses its height, and a negative height declares no --height (the
// figure's size follows from its width).
func (c *cli) figureFlags(def string, width, height int) {
	c.outFlag()
	what := "figure file (.png or .svg; relative to --out); empty for none"
	if def == "" {
		what = "draw the figure (.png or .svg; relative to --out)"
	}
	c.figure = c.fs.String("figure", def, what)
	c.alias("figure", "o")
	c.width = c.fs.Int("width", width, "figure width in pixels")
	c.autoHeight = height == 0
	switch {
	case height < 0:
		c.height = new(int)
		*c.height = 1
	case c.autoHeight:
		c.height = c.fs.Int("height", height, "figure height in pixels (default: from the content)")
	default:
		c.height = c.fs.Int("height", height, "figure height in pixels")
	}
}

// tableFlag declares a flag naming a table file (def by default, "" for
// none) and returns it.
func (c *cli) tableFlag(name, def, what string) *string {
	if def == "" {
		what = "write the " + what + " (.parquet, .feather or .csv; relative to --out)"
	} else {
		what += " (.parquet, .feather or .csv; relative to --out); empty for none"
	}
	t := c.fs.String(name, def, what)
	c.tables = append(c.tables, tableFlag{name, t})
	return t
}

type tableFlag struct {
	name string
	path *string
}

// outputFlag is a flag naming a file or directory the command writes,
// relative to --out: parse checks that it can be written.
type outputFlag struct {
	name string
	path *string
}

// aggregationFlags declares the model's flags (modelFlags) and those of
// its aggregation: --kind (def by default), --p and --threshold.
func (c *cli) aggregationFlags(def aggregate.Kind, kinds string) {
	c.modelFlags()
	c.kindS = c.fs.String("kind", string(def), "kind of aggregation: "+kinds)
	c.pS = c.fs.String("p", "auto", `trade-off p in [0, 1], or "auto" for the middle of the recommended level`)
	c.threshold = c.fs.Float64("threshold", 1e-3, "resolution in p of the search for significant levels (0: all)")
}

// set tells whether the flag name was given on the command line.
func (c *cli) set(name string) bool {
	found := false
	c.fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

// arg returns the i-th argument after the flags.
func (c *cli) arg(i int) string { return c.positional[i] }

// parse reads the command line, which must hold between min and max
// arguments besides the flags, checks every declared flag, then that the
// files can be written.
func (c *cli) parse(min, max int) error {
	pos, err := c.parseFlags()
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			c.printUsage(c.stdout)
			return errHelp
		}
		return c.usageError("%s", flagError(err))
	}
	c.positional = pos
	switch n := len(pos); {
	case n < min && n == 0:
		return c.usageError("")
	case n < min:
		return c.usageError("missing argument: %d given, at least %d needed", n, min)
	case n > max:
		return c.usageError("too many arguments: %s", strings.Join(pos[min:], " "))
	}
	if c.budgetS != nil {
		if c.budget, err = parseBudget(*c.budgetS); err != nil {
			return err
		}
	}
	if c.startS != nil {
		if c.start, err = parseSeconds("start", *c.startS); err != nil {
			return err
		}
		if c.end, err = parseSeconds("end", *c.endS); err != nil {
			return err
		}
		if c.start != nil && c.end != nil && *c.end <= *c.start {
			return errs.Argument("window", "--end (%s s) must come after --start (%s s)", *c.endS, *c.startS)
		}
	}
	if c.key != nil {
		if _, err := micro.ParseKey(*c.key); err != nil {
			return err
		}
	}
	if c.slices != nil && (*c.slices < 1 || *c.slices > micro.MaxSlices) {
		return errs.Argument("slices", "must be between 1 and %d, got %d", micro.MaxSlices, *c.slices)
	}
	if c.format != nil && *c.format != "" {
		if _, err := formats.ByName(*c.format); err != nil {
			return err
		}
	}
	if c.readerFlags.set {
		c.readerOptions = ingest.Values{}
		for _, nv := range c.readerFlags.names {
			name, value, ok := strings.Cut(nv, "=")
			if !ok || strings.TrimSpace(name) == "" {
				return errs.Argument("read", "%q is not name=value", nv)
			}
			c.readerOptions[strings.TrimSpace(name)] = ingest.Text(strings.TrimSpace(value))
		}
	}
	if c.strict != nil && *c.strict {
		if c.readerOptions == nil {
			c.readerOptions = ingest.Values{}
		}
		c.readerOptions[ingest.StrictOption.Name] = true
	}
	if c.figure != nil && *c.figure != "" {
		if c.imgFormat, err = plots.ParseFormat(*c.figure); err != nil {
			return errs.Argument("figure", "%q: a figure is written as .png or .svg", *c.figure)
		}
		if *c.width <= 0 || *c.height < 0 || (*c.height == 0 && !c.autoHeight) {
			return errs.Argument("width", "the figure must be at least a pixel wide and high, got %d x %d", *c.width, *c.height)
		}
	}
	for _, t := range c.tables {
		switch strings.ToLower(filepath.Ext(*t.path)) {
		case ".parquet", ".feather", ".arrow", ".csv":
		default:
			if *t.path != "" {
				return errs.Argument(t.name, "%q: a table is written as .parquet, .feather, .arrow or .csv", *t.path)
			}
		}
	}
	if c.kindS != nil {
		if c.kind, err = aggregate.ParseKind(*c.kindS); err != nil {
			return err
		}
		c.p = math.NaN()
		if *c.pS != "auto" {
			if c.p, err = strconv.ParseFloat(*c.pS, 64); err != nil || !(c.p >= 0 && c.p <= 1) {
				return errs.Argument("p", `%q is not "auto" or a number in [0, 1]`, *c.pS)
			}
		}
		if !(*c.threshold >= 0 && *c.threshold < 1) {
			return errs.Argument("threshold", "must be in [0, 1), got %g", *c.threshold)
		}
	}
	return c.checkOutputs()
}

// checkOutputs checks, before any long work, that every file the command
// is to write can be created: its directory is a directory we may write
// in, or can be made in the nearest one that exists.
func (c *cli) checkOutputs() error {
	var outputs []outputFlag
	if c.figure != nil {
		outputs = append(outputs, outputFlag{"figure", c.figure})
	}
	outputs = append(outputs, c.outputs...)
	for _, t := range c.tables {
		outputs = append(outputs, outputFlag(t))
	}
	if c.out != nil && *c.out != "" {
		if err := writableDir(*c.out); err != nil {
			return fmt.Errorf("cannot write in --out %s: %w", *c.out, err)
		}
	}
	for _, o := range outputs {
		if *o.path == "" {
			continue
		}
		if err := writableDir(filepath.Dir(c.path(*o.path))); err != nil {
			return fmt.Errorf("cannot write --%s %s: %w", o.name, c.path(*o.path), err)
		}
	}
	return nil
}

// writableDir checks that files can be created in dir or, when it does
// not exist yet, in the nearest directory above it that does (where dir
// will be made), by creating and removing a file there.
func writableDir(dir string) error {
	for d := dir; ; {
		st, err := os.Stat(d)
		switch {
		case err == nil && !st.IsDir():
			return fmt.Errorf("%s is not a directory", d)
		case err == nil:
			probe, err := os.CreateTemp(d, ".macroscope-probe-*")
			if err != nil {
				return fmt.Errorf("%s is not writable: %w", d, errors.Unwrap(err))
			}
			probe.Close()
			return os.Remove(probe.Name())
		case !errors.Is(err, os.ErrNotExist):
			return err
		}
		parent := filepath.Dir(d)
		if parent == d {
			return err
		}
		d = parent
	}
}

// say prints one line of the report: a label in a column of its own, then
// what it says.
//
// A warning, note or choice names its way out as the command line takes
// it (inCLIWords): the core words it in Python's keywords (rank="present"
// is --rank present here).
func (c *cli) say(label, format string, args ...any) {
	switch label {
	case "warning", "note", "align", "test":
		say(c.stdout, label, "%s", c.inCLIWords(fmt.Sprintf(format, args...)))
	default:
		say(c.stdout, label, format, args...)
	}
}

// sayCounts reports what was read, and the trace's span: the times
// printed after it count from its start, which it says once when the
// trace's clock does not start at zero.
func (c *cli) sayCounts(path string, n micro.Counts, start, end trace.Time) {
	c.say("trace", "%s: %d containers, %d states, %d variables, %d links, %d events, %s",
		path, n.Containers, n.States, n.Variables, n.Links, n.Events, span(start, end, start))
}

// span writes the window [start, end] in seconds from origin, the trace's
// first instant, saying the origin when it is not the clock's zero:
// "0-8.5038 s", "0-0.3 s (from 60.111362 s on the trace's clock)".
func span(start, end, origin trace.Time) string {
	s := fmt.Sprintf("%.6g-%.6g s", (start - origin).Seconds(), (end - origin).Seconds())
	if origin != 0 {
		s += fmt.Sprintf(" (from %s s on the trace's clock)", trace.FormatSeconds(origin))
	}
	return s
}

// since writes an instant in seconds from origin, the trace's first
// instant.
func since(t, origin trace.Time) string {
	return fmt.Sprintf("%.4g", (t - origin).Seconds())
}

// open opens the trace through the registry's door, with the reader
// options given on the command line.
func (c *cli) open(path string) (*ingest.Source, error) {
	// A file, a directory a format reads, or one of traces of one
	// format (the ranks of a job) read as one.
	src, name, err := partition.Open(path, *c.format, c.readerOptions)
	if err == nil {
		c.formatName = name
	}
	var ae *errs.ArgumentError
	if errors.As(err, &ae) {
		if _, given := c.readerOptions[ae.Name]; given {
			// An option of --read the format's reader refuses.
			return nil, &errs.ArgumentError{Name: "--read " + ae.Name, Reason: ae.Reason}
		}
	}
	return src, err
}

// readOptions are the options of a read of path: its notes, stopped by
// Ctrl-C, its progress shown on a terminal, and what the reader holds
// before it delivers it (a long line, a document parsed whole, a
// database's records) weighed against the memory budget: a 2 GB line or
// value in a small compressed file ends the read with the budget's error,
// not with gigabytes taken. The returned func, given the read's error,
// ends the progress and returns that error, naming the file, if the read
// outgrew the budget: the reader may have seen only the cancel it caused
// (a read by parts).
func (c *cli) readOptions(path string) (trace.ReadOptions, func(read error) error) {
	ro, done := c.heldOptions(path)
	p := startProgress(c.stderr, filepath.Base(path), "bytes")
	ro.Progress = p.update
	return ro, func(read error) error {
		p.stop()
		return done(read)
	}
}

// heldOptions are readOptions without the progress, for a command that
// shows its own (compare counts runs): the notes, Ctrl-C, and what the
// reader holds weighed against the memory budget. The returned func ends
// the read and returns the budget's error, naming files (or the file and
// place the reader's error gives), if it outgrew the budget.
func (c *cli) heldOptions(files string) (trace.ReadOptions, func(read error) error) {
	ctx, over := context.WithCancel(c.ctx)
	meter := budget.NewMeter(c.budget, over)
	ro := trace.ReadOptions{Notes: &trace.Notes{}, Cancel: ctx.Done(), Hold: meter.Hold}
	return ro, func(read error) error {
		over()
		return budget.Named(meter.Err(), read, files)
	}
}

// overBudget returns the budget's error of a read that outgrew it (done
// of readOptions or heldOptions), else err: the reader may have seen only
// the cancel the budget caused, and Ctrl-C's error stays Ctrl-C's.
func (c *cli) overBudget(done func(error) error, err error) error {
	if berr := done(err); berr != nil && c.ctx.Err() == nil {
		return berr
	}
	return err
}

// sayNotes reports what the reader skipped, tolerated or found missing.
func (c *cli) sayNotes(notes *trace.Notes) {
	for _, m := range notes.Messages() {
		c.say("warning", "%s", m)
	}
}

// readTrace reads the whole trace into memory, under the memory budget.
func (c *cli) readTrace(path string) (*trace.Trace, error) {
	src, err := c.open(path)
	if err != nil {
		return nil, err
	}
	t := trace.New(src.Files...)
	// Past its budget the read stops (as Ctrl-C does) and the error says
	// why, instead of the kernel killing the process.
	stop, over := context.WithCancel(c.ctx)
	defer over()
	g := budget.NewGuard(t, c.budget, over)
	ro, done := c.readOptions(path)
	// What the reader holds weighs with the trace, under one budget.
	ro.Cancel, ro.Hold = stop.Done(), g.Hold
	err = guarded(path, func() error { return src.Read(g, ro) })
	done(err)
	if g.Err() != nil && c.ctx.Err() == nil {
		return nil, budget.Named(g.Err(), err, path)
	}
	if err != nil {
		return nil, err
	}
	c.sayCounts(path, micro.Counts{Containers: int64(len(t.Containers) - 1), States: int64(t.States.Len()),
		Variables: int64(t.Variables.Len()), Links: int64(t.Links.Len()), Events: int64(t.Events.Len())}, t.Start, t.End)
	c.sayNotes(ro.Notes)
	return t, nil
}

// guarded runs a read of file, turning a panic in the reader or a
// library it calls into a FormatError naming the file: the input made it
// fail, and the user must learn which file.
func guarded(file string, read func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &errs.FormatError{File: file, Err: fmt.Errorf("the reader failed on this input (%v); please report it with the file", p)}
		}
	}()
	return read()
}

// readModel builds the microscopic model while reading the trace: its
// events are not kept. A trace whose parts add up to it (an OTF2
// archive's location groups) is read by parts on all cores, as the
// Python package reads it (partition.LocalPlan).
func (c *cli) readModel(path string) (*micro.Model, error) {
	// --start and --end count from the trace's start (trace.Window).
	opt := c.modelOptions()
	opt.Start, opt.End, opt.Relative = c.start, c.end, true
	src, err := c.open(path)
	if err != nil {
		return nil, err
	}
	plan := partition.LocalPlan(path, *c.format, c.readerOptions, nil)
	ro, done := c.readOptions(path)
	var m *micro.Model
	var sum *micro.Summary
	err = guarded(path, func() (err error) {
		m, sum, err = partition.FromSource(src, plan, opt, ro)
		return err
	})
	if berr := done(err); berr != nil && c.ctx.Err() == nil {
		return nil, berr
	}
	if sum != nil {
		c.sayCounts(path, sum.Counts, sum.Start, sum.End)
		c.sayNotes(ro.Notes)
	}
	if err != nil {
		return nil, err
	}
	c.say("model", "%d resources x %d slices x %d states, %.6g-%.6g s", m.NumLeaves(), m.Slices, len(m.States),
		(m.Start - m.Origin).Seconds(), (m.End - m.Origin).Seconds())
	if n := m.LeftOutNote("--profiler-spans"); n != "" {
		c.say("left out", "%s", n)
	}
	for _, n := range m.Notes {
		c.say("warning", "%s", cliNote(n))
	}
	return m, nil
}

// aggregation is an optimal partition of a model and how it was chosen.
type aggregation struct {
	in     aggregate.Input
	part   *aggregate.Partition
	p      float64
	levels []aggregate.Level // nil when p was given and no levels asked for
	rec    int               // index of the recommended level
}

// controlledSolver is an engine whose single solve can be stopped (the
// spatiotemporal one: seconds on a million resources).
type controlledSolver interface {
	SolveControl(p float64, ctl *aggregate.Control) (*aggregate.Partition, error)
}

// aggregate finds the optimal partition of the kind --kind at --p: with
// "auto", the middle of the recommended level (the knee, found without
// the sweep unless sweep asks for the significant levels too).
func (c *cli) aggregate(m *micro.Model, sweep bool) (*aggregation, error) {
	a := &aggregation{in: aggregate.Input{Tree: m.Tree, Slices: m.Slices, States: len(m.States), Values: m.Values, Cells: m.Cells}, p: c.p}
	engine, err := aggregate.New(c.kind, a.in, aggregate.Options{Normalize: true})
	if err != nil {
		return nil, err
	}
	// The recommended level's number of parts, when its middle is the p
	// solved: the partition solved there may not be the level's.
	recommendedParts := -1
	if math.IsNaN(c.p) && !sweep {
		// The recommended level alone: a handful of solves where the
		// sweep of a large model needs one per level (thousands).
		knee, err := aggregate.Knee(engine, *c.threshold, 1, 1, &aggregate.Control{Cancel: c.ctx.Done()})
		if err != nil {
			return nil, err
		}
		a.p = (knee.PLow + knee.PHigh) / 2
		recommendedParts = knee.Partition.NumParts
		c.say("levels", "recommended p = %.4g (%d aggregates), the knee of the %s levels, optimal for p in [%.4g, %.4g]",
			a.p, knee.Partition.NumParts, c.kind, knee.PLow, knee.PHigh)
	} else if math.IsNaN(c.p) || sweep {
		p := startProgress(c.stderr, "significant levels", "")
		a.levels, err = aggregate.SignificantCompactControl(engine, *c.threshold, &aggregate.Control{
			Cancel:   c.ctx.Done(),
			Progress: func(_ int, covered float64) { p.update(int64(math.Round(covered*1000)), 1000) },
		})
		p.stop()
		if err != nil {
			return nil, err
		}
		rec, p0, err := aggregate.Recommend(a.levels, aggregate.RuleKnee, 1, 1)
		if err != nil {
			return nil, err
		}
		a.rec = rec
		if math.IsNaN(a.p) {
			a.p = p0
			recommendedParts = a.levels[rec].Partition.NumParts
		}
		kind := ""
		if c.kind != aggregate.KindSpatiotemporal {
			kind = string(c.kind) + " "
		}
		c.say("levels", "%d distinct optimal %spartitions as p goes from 0 to 1; recommended p = %.4g (%d aggregates)",
			len(a.levels), kind, p0, a.levels[rec].Partition.NumParts)
	}
	if s, ok := engine.(controlledSolver); ok {
		a.part, err = s.SolveControl(a.p, &aggregate.Control{Cancel: c.ctx.Done()})
	} else {
		a.part, err = engine.Solve(a.p)
	}
	if err != nil {
		return nil, err
	}
	var why string
	if recommendedParts >= 0 && len(a.part.Parts) != recommendedParts {
		// The middle of the knee's range fell in a bracket narrower than
		// the resolution, which the search (the knee's, or the sweep's)
		// leaves unsearched: a level it hid is optimal there (see
		// aggregate.TestKneeMiddleOfItsLevel).
		why = fmt.Sprintf("; not the knee's %d: a level narrower than --threshold %g lies inside its range", recommendedParts, *c.threshold)
	}
	c.say("aggregated", "p = %.4g: %d aggregates, gain %.4g, loss %.4g (normalised)%s",
		a.p, len(a.part.Parts), a.part.Gain, a.part.Loss, why)
	return a, nil
}

// figureSize is the size of the figure in points.
func (c *cli) figureSize() (w, h vg.Length) {
	return vg.Length(*c.width) * 0.75, vg.Length(*c.height) * 0.75
}

// path places a relative output file in --out.
func (c *cli) path(name string) string {
	if c.out == nil || *c.out == "" || filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(*c.out, name)
}

// create makes the directory of an output file.
func create(path string) error {
	if dir := filepath.Dir(path); dir != "." {
		return os.MkdirAll(dir, 0o755)
	}
	return nil
}

// writeFigure writes the figure to --figure and says so.
func (c *cli) writeFigure(img []byte) error {
	path := c.path(*c.figure)
	if err := create(path); err != nil {
		return err
	}
	if err := os.WriteFile(path, img, 0o644); err != nil {
		return err
	}
	c.say("wrote", "%s", path)
	return nil
}

// writeTable writes rec (and releases it) to the table file name and
// says so, with note if any.
func (c *cli) writeTable(name string, rec arrow.RecordBatch, note string) error {
	if err := c.saveTable(name, rec); err != nil {
		return err
	}
	path := c.path(name)
	if note != "" {
		path += " (" + note + ")"
	}
	c.say("wrote", "%s", path)
	return nil
}

// saveTable writes rec (and releases it) to the table file name, without
// a word: it may run beside another output's writing.
func (c *cli) saveTable(name string, rec arrow.RecordBatch) error {
	defer rec.Release()
	path := c.path(name)
	if err := create(path); err != nil {
		return err
	}
	return files.Write(rec, path)
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

func formatNames() string { return strings.Join(formats.Names(), ", ") }

// nameList is a comma-separated list flag that remembers whether it was
// given, so that "--busy=" (no state is busy) differs from no flag.
type nameList struct {
	names []string
	set   bool
}

func (l *nameList) String() string { return strings.Join(l.names, ",") }

func (l *nameList) Set(s string) error {
	l.set, l.names = true, nil
	for _, n := range strings.Split(s, ",") {
		if n = strings.TrimSpace(n); n != "" {
			l.names = append(l.names, n)
		}
	}
	return nil
}

// cliNote words a model's note for the command line: its keys as the
// --key flag takes them.
func cliNote(note string) string {
	return keyArg.ReplaceAllString(note, "--key $1")
}

// keyArg finds the key= of a note (key="type").
var keyArg = regexp.MustCompile(`key="([a-z]+)"`)

// resolveWindow resolves --start and --end, seconds from the start of
// trace t (trace.Window), into instants of its clock; nil bounds stay nil.
func resolveWindow(start, end *trace.Time, t *trace.Trace) (*trace.Time, *trace.Time, error) {
	if start == nil && end == nil {
		return nil, nil, nil
	}
	from, to, err := trace.Window(start, end, t.Start, t.End)
	if err != nil {
		return nil, nil, err
	}
	if start != nil {
		start = &from
	}
	if end != nil {
		end = &to
	}
	return start, end, nil
}

// parseBudget reads --memory-budget: a number of bytes, with an optional
// unit (B, kB, MB, GB, TB in powers of 1000; KiB, MiB, GiB, TiB in powers
// of 1024), as the core's setting: "" the default (0), "0" no limit (-1).
func parseBudget(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	units := []struct {
		suffix string
		scale  float64
	}{
		{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
		{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12}, {"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"b", 1},
	}
	num, scale := strings.ToLower(s), 1.0
	for _, u := range units {
		if rest, ok := strings.CutSuffix(num, u.suffix); ok {
			num, scale = strings.TrimSpace(rest), u.scale
			break
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) || v*scale > math.MaxInt64/2 {
		return 0, errs.Argument("memory_budget", "%q is not a size: bytes, or with a unit (512MiB, 4GiB, 8GB), 0 for no limit", s)
	}
	if v == 0 {
		return -1, nil
	}
	return max(1, int64(v*scale)), nil
}

// pythonArg is a keyword argument as the core's messages write the way
// out (Python's spelling, the package's users being the most): memory_budget=,
// key="type".
// A name=value pair (--read sort=true) is not one.
var pythonArg = regexp.MustCompile(`\b([a-z][a-z_]*)=("[^"]*"|[\s,;)]|$)`)

// inCLIWords writes the ways out an error names in the command line's
// syntax: a keyword argument that is a flag of the command as the flag
// (memory_budget= is --memory-budget, key="type" is --key type), and the
// Python calls that read while building as the commands that do.
func (c *cli) inCLIWords(msg string) string {
	msg = strings.ReplaceAll(msg, "(ms.read_micro(path, ...), ms.moments(path))",
		"(as macroscope overview, treemap and moments do)")
	if c == nil || c.fs == nil {
		return msg
	}
	return pythonArg.ReplaceAllStringFunc(msg, func(arg string) string {
		m := pythonArg.FindStringSubmatch(arg)
		flagName := strings.ReplaceAll(m[1], "_", "-")
		if c.fs.Lookup(flagName) == nil {
			return arg
		}
		if value, quoted := strings.CutPrefix(m[2], `"`); quoted {
			return "--" + flagName + " " + strings.TrimSuffix(value, `"`)
		}
		return "--" + flagName + m[2] // and what followed
	})
}
