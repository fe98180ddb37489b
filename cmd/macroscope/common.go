package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"gonum.org/v1/plot/vg"

	"github.com/macroscope-hpc/macroscope/arrowio/files"
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
// then calls parse, which checks every declared flag before any work is
// done, so that a bad value is reported at once with exit status 2.
type cli struct {
	name   string
	fs     *flag.FlagSet
	args   []string // the command line after the command's name
	stdout io.Writer
	stderr io.Writer
	usage  string // synopsis and description

	format        *string  // -format: the trace's format
	readerFlags   nameList // -read name=value: options of the format's reader
	readerOptions ingest.Values
	strict        *bool   // -strict: an incomplete trace is an error
	startS, endS  *string // -start, -end
	slices        *int    // -slices
	key           *string // -key: name, category or type
	out           *string // -out: directory of relative output files
	figure        *string // -o: the figure
	width, height *int
	autoHeight    bool // -height 0 means "from the content"
	tables        []tableFlag
	kindS, pS     *string // -kind, -p
	threshold     *float64

	// Set by parse.
	start, end *trace.Time
	imgFormat  plots.Format
	kind       aggregate.Kind
	p          float64 // NaN for "auto"
}

// newCLI starts the flags of the command cmd, to be read from args.
func newCLI(cmd command, args []string, stdout, stderr io.Writer) *cli {
	fs := flag.NewFlagSet(cmd.name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {} // parse prints the usage, on stdout when asked for
	forms := strings.Split(cmd.synopsis, "\n")
	for i, f := range forms {
		forms[i] = "macroscope " + cmd.name + " " + f
	}
	return &cli{name: cmd.name, fs: fs, args: args, stdout: stdout, stderr: stderr,
		usage: "usage: " + strings.Join(forms, "\n       ") + "\n\n" + strings.TrimSpace(cmd.about) + "\n\nflags:"}
}

func (c *cli) printUsage(w io.Writer) {
	fmt.Fprintln(w, c.usage)
	c.fs.SetOutput(w)
	c.fs.PrintDefaults()
	c.fs.SetOutput(c.stderr)
	fmt.Fprintln(w, "\nExit status: 0 done, 1 the trace could not be read or a result not computed or written, 2 bad usage.")
}

// usageError prints the usage on standard error and returns errUsage.
func (c *cli) usageError() error {
	c.printUsage(c.stderr)
	return errUsage
}

// traceFlags declares -format.
func (c *cli) traceFlags() {
	c.format = c.fs.String("format", "", "trace format ("+formatNames()+"); default: by extension or content")
	c.fs.Var(&c.readerFlags, "read", "options of the format's reader, as name=value,... (e.g. strict=true, view=cpu, sort=true)")
	c.strict = c.fs.Bool("strict", false, "fail when the trace is incomplete (a cut last record, a missing part) instead of reading what is there with a warning (-read strict=true)")
}

// windowFlags declares -start and -end.
func (c *cli) windowFlags() {
	c.startS = c.fs.String("start", "", "window start in seconds (default: trace start)")
	c.endS = c.fs.String("end", "", "window end in seconds (default: trace end)")
}

// modelFlags declares what the microscopic model needs: the trace's
// format, the window and -slices.
func (c *cli) modelFlags() {
	c.traceFlags()
	c.windowFlags()
	c.slices = c.fs.Int("slices", 100, "number of time slices")
	c.key = c.fs.String("key", "name", "what the model's states are: the states' names, their categories (category) or their types (type: kernels, NCCL, memcpy... of GPU profilers)")
}

// figureFlags declares -out, -o (the figure, def by default: "" for no
// figure), -width and -height in pixels; height 0 means the figure
// chooses its height, and a negative height declares no -height (the
// figure's size follows from its width).
func (c *cli) figureFlags(def string, width, height int) {
	c.out = c.fs.String("out", "", "directory of the files written, created if needed (default: the current directory)")
	what := "figure file (.png or .svg)"
	if def == "" {
		what = "draw the figure (.png or .svg)"
	}
	c.figure = c.fs.String("o", def, what)
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
		what = "write the " + what + " (.parquet, .feather or .csv)"
	} else {
		what += " (.parquet, .feather or .csv); empty for none"
	}
	t := c.fs.String(name, def, what)
	c.tables = append(c.tables, tableFlag{name, t})
	return t
}

type tableFlag struct {
	name string
	path *string
}

// aggregationFlags declares the model's flags (modelFlags) and those of
// its aggregation: -kind (def by default), -p and -threshold.
func (c *cli) aggregationFlags(def aggregate.Kind, kinds string) {
	c.modelFlags()
	c.kindS = c.fs.String("kind", string(def), "kind of aggregation: "+kinds)
	c.pS = c.fs.String("p", "auto", `trade-off p in [0,1], or "auto" for the recommended level`)
	c.threshold = c.fs.Float64("threshold", 1e-3, "resolution in p of the search for significant levels (0: all)")
}

// parse reads the command line, which must hold between min and max
// arguments after the flags, and checks every declared flag.
func (c *cli) parse(min, max int) error {
	if err := c.fs.Parse(c.args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			c.printUsage(c.stdout)
			return errHelp
		}
		c.printUsage(c.stderr) // after the flag package's message
		return errUsage
	}
	if n := c.fs.NArg(); n < min || n > max {
		return c.usageError()
	}
	var err error
	if c.startS != nil {
		if c.start, err = parseSeconds("start", *c.startS); err != nil {
			return err
		}
		if c.end, err = parseSeconds("end", *c.endS); err != nil {
			return err
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
			if !ok {
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
			return errs.Argument("o", "%q: a figure is written as .png or .svg", *c.figure)
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
	return nil
}

// say prints one line of the report: a label in a column of its own, then
// what it says.
func (c *cli) say(label, format string, args ...any) {
	fmt.Fprintf(c.stdout, "%-10s %s\n", label, fmt.Sprintf(format, args...))
}

// sayTrace reports what was read.
func (c *cli) sayTrace(path string, containers, states int, start, end trace.Time) {
	c.say("trace", "%s: %d containers, %d states, %.6g-%.6g s", path, containers, states, start.Seconds(), end.Seconds())
}

// open opens the trace through the registry's door, with the reader
// options given on the command line.
func (c *cli) open(path string) (*ingest.Source, error) {
	src, _, err := formats.Open(path, *c.format, c.readerOptions)
	return src, err
}

// sayNotes reports what the reader skipped, tolerated or found missing.
func (c *cli) sayNotes(notes *trace.Notes) {
	for _, m := range notes.Messages() {
		c.say("warning", "%s", m)
	}
}

// readTrace reads the whole trace into memory.
func (c *cli) readTrace(path string) (*trace.Trace, error) {
	src, err := c.open(path)
	if err != nil {
		return nil, err
	}
	t := trace.New(src.Files...)
	notes := &trace.Notes{}
	if err := src.Read(t, trace.ReadOptions{Notes: notes}); err != nil {
		return nil, err
	}
	c.sayTrace(path, len(t.Containers)-1, t.States.Len(), t.Start, t.End)
	c.sayNotes(notes)
	return t, nil
}

// readModel builds the microscopic model while reading the trace: its
// events are not kept. A trace whose parts add up to it (an OTF2
// archive's location groups) is read by parts on all cores, as the
// Python package reads it (partition.LocalPlan).
func (c *cli) readModel(path string) (*micro.Model, error) {
	opt := micro.Options{Slices: *c.slices, Depth: micro.Innermost, Start: c.start, End: c.end, Key: micro.Key(*c.key)}
	src, err := c.open(path)
	if err != nil {
		return nil, err
	}
	notes := &trace.Notes{}
	plan := partition.LocalPlan(path, *c.format, c.readerOptions, nil)
	m, sum, err := partition.FromSource(src, plan, opt, trace.ReadOptions{Notes: notes})
	if sum != nil {
		c.sayTrace(path, int(sum.Containers), int(sum.States), sum.Start, sum.End)
		c.sayNotes(notes)
	}
	if err != nil {
		return nil, err
	}
	c.say("model", "%d resources x %d slices x %d states", m.NumLeaves(), m.Slices, len(m.States))
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

// aggregate finds the optimal partition of the kind -kind at -p: with "auto",
// the middle of the recommended level of the significant-p sweep, which
// also runs when sweep is true.
func (c *cli) aggregate(m *micro.Model, sweep bool) (*aggregation, error) {
	a := &aggregation{in: aggregate.Input{Tree: m.Tree, Slices: m.Slices, States: len(m.States), Values: m.Values, Cells: m.Cells}, p: c.p}
	engine, err := aggregate.New(c.kind, a.in, aggregate.Options{Normalize: true})
	if err != nil {
		return nil, err
	}
	if math.IsNaN(c.p) && !sweep {
		// The recommended level alone: a handful of solves where the
		// sweep of a large model needs one per level (thousands).
		knee, err := aggregate.Knee(engine, *c.threshold, 1, 1, nil)
		if err != nil {
			return nil, err
		}
		a.p = (knee.PLow + knee.PHigh) / 2
		c.say("levels", "recommended p = %.4g (%d aggregates), the knee of the %s levels, optimal for p in [%.4g, %.4g]",
			a.p, knee.Partition.NumParts, c.kind, knee.PLow, knee.PHigh)
	} else if math.IsNaN(c.p) || sweep {
		if a.levels, err = aggregate.SignificantCompact(engine, *c.threshold); err != nil {
			return nil, err
		}
		rec, p, err := aggregate.Recommend(a.levels, aggregate.RuleKnee, 1, 1)
		if err != nil {
			return nil, err
		}
		a.rec = rec
		if math.IsNaN(a.p) {
			a.p = p
		}
		c.say("levels", "%d distinct optimal %s partitions; recommended p = %.4g (%d aggregates)",
			len(a.levels), c.kind, p, a.levels[rec].Partition.NumParts)
	}
	if a.part, err = engine.Solve(a.p); err != nil {
		return nil, err
	}
	c.say("aggregated", "p = %.4g: %d aggregates, gain %.4g, loss %.4g (normalised)",
		a.p, len(a.part.Parts), a.part.Gain, a.part.Loss)
	return a, nil
}

// figureSize is the size of the figure in points.
func (c *cli) figureSize() (w, h vg.Length) {
	return vg.Length(*c.width) * 0.75, vg.Length(*c.height) * 0.75
}

// path places a relative output file in -out.
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

// writeFigure writes the figure to -o and says so.
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
	defer rec.Release()
	path := c.path(name)
	if err := create(path); err != nil {
		return err
	}
	if err := files.Write(rec, path); err != nil {
		return err
	}
	if note != "" {
		path += " (" + note + ")"
	}
	c.say("wrote", "%s", path)
	return nil
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
// given, so that "-busy=" (no state is busy) differs from no flag.
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
