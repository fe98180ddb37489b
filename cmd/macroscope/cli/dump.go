package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/budget"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

var dumpCommand = command{
	name:    "dump",
	summary: "the trace as pj_dump's CSV, byte for byte (Pajé), with pj_dump's flags",
	raw:     runDump,
}

// dumpFlags are the options of macroscope dump: pj_dump's, spelled as
// pj_dump spells them, and ours.
type dumpFlags struct {
	noStrict, noImbrication, ignoreIncomplete bool
	quiet, header                             bool
	precision                                 int // 0: the default (6 decimals), -1: none
	entityHierarchy, typeHierarchy            string
	format                                    string
	upstream, help                            bool
	file                                      string // "" for standard input
	budget                                    string // --memory-budget, as typed
}

// dumpOption describes one option: its letter (0 if none), its long name,
// whether it takes a value, and what it sets.
type dumpOption struct {
	short byte
	long  string
	value string // the value's name in the help, "" for a switch
	help  string
	set   func(f *dumpFlags, v string)
}

var dumpOptions = []dumpOption{
	{'n', "no-strict", "", "support old field names in event definitions", func(f *dumpFlags, _ string) { f.noStrict = true }},
	{'i', "no-imbrication", "", "no imbrication levels (push and pop become sets)", func(f *dumpFlags, _ string) { f.noImbrication = true }},
	{'z', "ignore-incomplete-links", "", "ignore incomplete links (not recommended)", func(f *dumpFlags, _ string) { f.ignoreIncomplete = true }},
	{'q', "quiet", "", "do not dump, only simulate", func(f *dumpFlags, _ string) { f.quiet = true }},
	{'h', "header", "", "print CSV header with column names", func(f *dumpFlags, _ string) { f.header = true }},
	{'l', "float-precision", "PRECISION", "precision of floating point numbers", func(f *dumpFlags, v string) { f.precision = precision(v) }},
	{0, "entity-hierarchy", "FILE", "output the entity hierarchy to FILE (CSV)", func(f *dumpFlags, v string) { f.entityHierarchy = v }},
	{0, "type-hierarchy", "FILE", "output the type hierarchy to FILE (CSV)", func(f *dumpFlags, v string) { f.typeHierarchy = v }},
	{0, "format", "NAME", "read a trace of another format (" + formatNames() + ") instead of Pajé", func(f *dumpFlags, v string) { f.format = v }},
	{0, "memory-budget", "SIZE", "the most memory the trace read may take: bytes, or with a unit (512MiB, 4GiB); 0 for no limit (default: half of the memory available)", func(f *dumpFlags, v string) { f.budget = v }},
	{0, "upstream", "", "print as PajeNG's development version (names keep their quotes, no entity is left out)", func(f *dumpFlags, _ string) { f.upstream = true }},
	{'?', "help", "", "give this help list", func(f *dumpFlags, _ string) { f.help = true }},
}

// unsupportedOptions are pj_dump's options that dump does not reproduce.
var unsupportedOptions = map[string]string{
	"a": "stop-at", "c": "container", "d": "dot", "e": "end", "f": "flex",
	"o": "out-of-core", "p": "probabilistic", "s": "start", "t": "time", "u": "user-defined", "v": "version",
}

// precision reads -l's value as pj_dump does (C's atoi: leading digits,
// 0 if none; a negative value leaves printf's default of 6 decimals): 0
// for the default, -1 for no decimals (see decimals).
func precision(v string) int {
	v = strings.TrimLeft(v, " \t\n\v\f\r")
	neg := strings.HasPrefix(v, "-")
	v = strings.TrimLeft(v, "+-")
	n := 0
	for _, c := range v {
		if c < '0' || c > '9' || n > 1<<20 {
			break
		}
		n = n*10 + int(c-'0')
	}
	switch {
	case neg && n > 0:
		return 0 // printf's default, 6
	case n == 0:
		return -1 // no decimals
	}
	return n
}

// decimals is the pjdump writer's option precision for -l's value as
// precision reads it.
func decimals(precision int) int {
	switch {
	case precision == 0:
		return 6 // pj_dump's default
	case precision < 0:
		return 0
	}
	return precision
}

// parseDumpArgs reads the command line as pj_dump's argp does: options
// before or after the file, letters grouped (-nq), values after "=" or as
// the next argument, long names abbreviated to any unambiguous prefix, and
// "--" ending the options.
func parseDumpArgs(args []string) (dumpFlags, error) {
	var f dumpFlags
	var files []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func(name string) (string, error) {
			if i+1 >= len(args) {
				return "", fmt.Errorf("option %s requires an argument", name)
			}
			i++
			return args[i], nil
		}
		switch {
		case a == "--":
			files = append(files, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "--"):
			name, value, hasValue := strings.Cut(a[2:], "=")
			o, err := longOption(name)
			if err != nil {
				return f, err
			}
			if o.value == "" && hasValue {
				return f, fmt.Errorf("option --%s does not take an argument", o.long)
			}
			if o.value != "" && !hasValue {
				if value, err = next("--" + o.long); err != nil {
					return f, err
				}
			}
			o.set(&f, value)
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				o, err := shortOption(a[j])
				if err != nil {
					return f, err
				}
				if o.value == "" {
					o.set(&f, "")
					continue
				}
				value := a[j+1:]
				if value == "" {
					if value, err = next("-" + string(a[j])); err != nil {
						return f, err
					}
				}
				o.set(&f, value)
				break
			}
		default:
			files = append(files, a)
		}
	}
	if len(files) > 1 {
		return f, fmt.Errorf("one trace at a time (got %d: %s)", len(files), strings.Join(files, " "))
	}
	if len(files) == 1 {
		f.file = files[0]
	}
	return f, nil
}

func longOption(name string) (dumpOption, error) {
	var matches []string
	for _, o := range dumpOptions {
		if o.long == name {
			return o, nil
		}
		if name != "" && strings.HasPrefix(o.long, name) {
			matches = append(matches, o.long)
		}
	}
	for _, long := range unsupportedOptions {
		if long == name {
			return dumpOption{}, fmt.Errorf("pj_dump's option --%s is not supported", long)
		}
		if name != "" && strings.HasPrefix(long, name) {
			matches = append(matches, long)
		}
	}
	switch len(matches) {
	case 0:
		return dumpOption{}, fmt.Errorf("unrecognized option --%s", name)
	case 1:
		return longOption(matches[0])
	}
	sort.Strings(matches)
	return dumpOption{}, fmt.Errorf("option --%s is ambiguous (%s)", name, strings.Join(matches, ", "))
}

func shortOption(c byte) (dumpOption, error) {
	for _, o := range dumpOptions {
		if o.short == c {
			return o, nil
		}
	}
	if long, ok := unsupportedOptions[string(c)]; ok {
		return dumpOption{}, fmt.Errorf("pj_dump's option -%c (--%s) is not supported", c, long)
	}
	return dumpOption{}, fmt.Errorf("invalid option -- '%c'", c)
}

func dumpUsage(w io.Writer) {
	fmt.Fprint(w, `usage: macroscope dump [OPTION...] [FILE]

Dumps the trace in FILE, or standard input, as pj_dump (PajeNG 1.3.6)
does, byte for byte: the same CSV-like text, the same error messages and
exit status on invalid Pajé traces.

options:
`)
	for _, o := range dumpOptions {
		name := "    "
		if o.short != 0 {
			name = "-" + string(o.short) + ", "
		}
		name += "--" + o.long
		if o.value != "" {
			name += "=" + o.value
		}
		fmt.Fprintf(w, "  %-32s %s\n", name, o.help)
	}
}

func runDump(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseDumpArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "macroscope dump: %v\n\n", err)
		dumpUsage(stderr)
		return errUsage
	}
	if f.help {
		dumpUsage(stdout)
		return nil
	}
	setting, err := parseBudget(f.budget)
	if err != nil {
		return dumpBudgetWords(err)
	}
	t, err := readForDump(ctx, f, setting, stdout, stderr)
	if err != nil {
		if out, errOut, ok := formats.PajeNGOutput(err); ok {
			// pj_dump's own words, on its streams, with its status.
			io.WriteString(stdout, out)
			io.WriteString(stderr, errOut)
			return exitStatus(1)
		}
		return err
	}
	// The pjdump format's writer writes what pj_dump prints.
	style := "pajeng"
	if f.upstream {
		style = "upstream"
	}
	opt := func(output string) ingest.Values {
		return ingest.Values{"output": output, "style": style, "precision": decimals(f.precision), "header": f.header}
	}
	for _, h := range []struct{ path, output string }{
		{f.entityHierarchy, "entity_hierarchy"}, {f.typeHierarchy, "type_hierarchy"},
	} {
		if h.path == "" {
			continue
		}
		if err := writeWith(h.path, func(w io.Writer) error { return formats.Write(w, t, "pjdump", opt(h.output)) }); err != nil {
			return err
		}
	}
	if f.quiet {
		return nil
	}
	bw := bufio.NewWriterSize(canceledWriter{ctx, stdout}, 1<<16)
	if err := formats.Write(bw, t, "pjdump", opt("dump")); err != nil {
		return err
	}
	return bw.Flush()
}

// dumpBudgetWords words an error of the memory budget for dump's command
// line: the flag, not Python's keyword.
func dumpBudgetWords(err error) error {
	var ae *errs.ArgumentError
	if !errors.As(err, &ae) || ae.Name != "memory_budget" {
		return err
	}
	return &errs.ArgumentError{Name: "--memory-budget", Reason: strings.ReplaceAll(ae.Reason, "memory_budget=", "--memory-budget")}
}

// readForDump reads the trace under the memory budget: Pajé with
// pj_dump's semantics unless another format is named or recognised.
func readForDump(ctx context.Context, f dumpFlags, setting int64, stdout, stderr io.Writer) (*trace.Trace, error) {
	// The whole trace is held until it is written, as in the commands
	// that read a trace into memory (readTrace): past the budget the read
	// stops, with the budget's error, and what the reader holds before it
	// delivers it (a long line) weighs with the trace.
	stop, over := context.WithCancel(ctx)
	defer over()
	var g *budget.Guard
	ro := func(t *trace.Trace) (trace.Sink, trace.ReadOptions) {
		g = budget.NewGuard(t, setting, over)
		return g, trace.ReadOptions{Cancel: stop.Done(), Hold: g.Hold}
	}
	t, err := readDumped(ctx, f, ro, stdout, stderr)
	if g != nil && g.Err() != nil && ctx.Err() == nil {
		name := f.file
		if name == "" {
			name = "standard input"
		}
		return nil, dumpBudgetWords(budget.Named(g.Err(), err, name))
	}
	return t, err
}

// readDumped reads the trace for readForDump, into the guard ro makes.
func readDumped(ctx context.Context, f dumpFlags, ro func(*trace.Trace) (trace.Sink, trace.ReadOptions), stdout, stderr io.Writer) (*trace.Trace, error) {
	format := f.format
	if format != "" {
		if _, err := formats.ByName(format); err != nil {
			return nil, err
		}
	} else if f.file != "" {
		// Recognised by name or content; pj_dump reads anything else as
		// Pajé, and so do we.
		found, err := formats.Detect(f.file)
		if err == nil {
			format = found.Name
		} else if st, serr := os.Stat(f.file); serr == nil && st.IsDir() {
			// No Pajé trace is a directory (pj_dump crashes on one):
			// Detect's words say what it is (hpcrun's measurements,
			// Extrae's intermediate files) or that it holds no trace.
			return nil, err
		}
	}
	if format != "" && format != "paje" {
		for _, used := range []struct {
			set  bool
			name string
		}{{f.noStrict, "--no-strict"}, {f.noImbrication, "--no-imbrication"}, {f.ignoreIncomplete, "--ignore-incomplete-links"}} {
			if used.set {
				return nil, errs.Argument(used.name, "applies to Pajé traces only, not to %s", format)
			}
		}
		if f.file == "" {
			return nil, errs.Argument("format", "a %s trace is read from a file, not from standard input", format)
		}
		t := trace.New(f.file)
		sink, opt := ro(t)
		return t, formats.Read(f.file, format, sink, opt)
	}
	flags := formats.PajeNGFlags{NoStrict: f.noStrict, NoImbrication: f.noImbrication, IgnoreIncompleteLinks: f.ignoreIncomplete}
	if f.file == "" {
		t := trace.New("(standard input)")
		sink, opt := ro(t)
		flags.Read = opt
		return t, formats.DecodePajeNG(canceledReader{ctx, os.Stdin}, "(standard input)", 0, sink, flags)
	}
	in, err := os.Open(f.file)
	if err != nil {
		// pj_dump's messages, on its streams.
		fmt.Fprintf(stdout, "PK21PajeFileReadException: Could not open '%s' for reading.\n", f.file)
		fmt.Fprint(stderr, "Error during the parsing of the input file\n")
		return nil, exitStatus(1)
	}
	defer in.Close()
	var size int64
	if st, err := in.Stat(); err == nil {
		size = st.Size()
	}
	t := trace.New(f.file)
	sink, opt := ro(t)
	flags.Read = opt
	return t, formats.DecodePajeNG(canceledReader{ctx, in}, f.file, size, sink, flags)
}

// canceledReader reads from r until ctx is canceled (Ctrl-C), then fails
// with the cancellation: pj_dump's decoder has no cancel channel of its
// own.
type canceledReader struct {
	ctx context.Context
	r   io.Reader
}

func (c canceledReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// canceledWriter writes to w until ctx is canceled, then fails with the
// cancellation.
type canceledWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c canceledWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

// writeWith creates the file at path and fills it with write.
func writeWith(path string, write func(io.Writer) error) error {
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(out); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
