// Package cli is Macroscope's command line, macroscope <command> [flags]
// [arguments]. It is one implementation run by two front doors: the Go
// program cmd/macroscope and the Python package's entry point (the
// console script pip installs, and python -m macroscope), which hands its
// arguments to Run through the facade (pybind). Both are the same program:
// the same commands, flags, output and exit statuses.
//
//	macroscope overview [flags] trace     optimal aggregation (spatiotemporal, spatial or temporal): figure, tables
//	macroscope moments [flags] trace      moments of utilization: table, figure
//	macroscope treemap [flags] trace      treemap of the optimal aggregation: figure, table
//	macroscope gantt [flags] trace        Gantt chart of the raw states over a window: figure
//	macroscope topology [flags] trace     topology-based view, a graph of resources: figure, tables
//	macroscope kaleido [flags] trace      kaleidoscope of the call tree: figure, table
//	macroscope profile [flags] trace      flat profile of the states: table, figure
//	macroscope imbalance [flags] trace    load imbalance of the states: table, figure
//	macroscope commmatrix [flags] trace   communication matrix: table, figure
//	macroscope pop [flags] trace...       POP efficiencies of a run or a scaling series: table, figure
//	macroscope critpath [flags] trace     critical path (Scalasca's): tables, figure
//	macroscope stragglers [flags] trace   last arrivals at collectives or iterations: tables, figure
//	macroscope compare [flags] traces     what changed between runs: differences table, figure
//	macroscope convert [flags] trace      the trace as a hive-partitioned Parquet dataset
//	macroscope synth [flags] out          synthetic trace (Pajé or Parquet)
//	macroscope dump [flags] [trace]       pj_dump's CSV of a trace
//	macroscope help [command]             the commands, or a command's flags
//	macroscope --version                  the version
//
// Flags are GNU style, --name value (or --name=value), anywhere among the
// arguments; "--" ends them. Figures are PNG or SVG, tables Parquet,
// Feather or CSV, by their extension; --out DIR puts them in DIR. Exit
// status: 0 done, 1 a failure (the trace could not be read, a result not
// computed or written: the message names the file and line), 2 bad usage
// (an unknown flag, a missing argument, a bad value: the message names
// the flag), 130 interrupted.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
	"github.com/macroscope-hpc/macroscope/core/views/forcelayout"
)

// Version is Macroscope's version, the Python distribution's
// (pyproject.toml: a test checks that they agree).
const Version = "0.1.0"

// Exit statuses.
const (
	StatusDone        = 0
	StatusFailure     = 1   // reading, computing or writing failed
	StatusUsage       = 2   // bad usage: the command line is at fault
	StatusInterrupted = 130 // stopped by Ctrl-C (128 + SIGINT), as shells report it
)

// command is a command of the command line. Most run with a cli made
// from their synopsis and description (see newCLI); dump, which reads its
// arguments as pj_dump does, runs on the raw arguments.
type command struct {
	name     string
	summary  string // a line of the list of commands
	synopsis string // what follows "macroscope name" on the usage line
	about    string // the description under the usage line
	run      func(c *cli) error
	raw      func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// commands is the one place a command is registered: its name, its line
// in the help and the function that runs it. A new analysis adds its
// command here (see overview.go for one built on the shared flags).
var commands = []command{
	overviewCommand,
	momentsCommand,
	treemapCommand,
	ganttCommand,
	topologyCommand,
	kaleidoCommand,
	profileCommand,
	imbalanceCommand,
	commMatrixCommand,
	popCommand,
	critPathCommand,
	stragglersCommand,
	compareCommand,
	convertCommand,
	synthCommand,
	dumpCommand,
}

// Run runs the command line args (without the program's name), writing
// its report to stdout and its errors to stderr, and returns the exit
// status. Canceling ctx (Ctrl-C) stops the command at its next check: the
// read, the search for the significant levels, the layout; Run then says
// so and returns StatusInterrupted. Run never exits the process and never
// panics: a panic is reported as an internal error.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) (status int) {
	if len(args) == 0 {
		usage(stderr)
		return StatusUsage
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 && args[0] == "help" {
			return Run(ctx, []string{args[1], "--help"}, stdout, stderr)
		}
		usage(stdout)
		return StatusDone
	case "version", "-version", "--version":
		fmt.Fprintf(stdout, "macroscope %s\n", Version)
		return StatusDone
	}
	c, ok := lookup(args[0])
	if !ok {
		fmt.Fprintf(stderr, "macroscope: unknown command %q\n\n", args[0])
		usage(stderr)
		return StatusUsage
	}
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(stderr, "macroscope %s: internal error: %v; please report it, with the command line and this trace:\n%s",
				c.name, p, debug.Stack())
			status = StatusFailure
		}
	}()
	var err error
	var flags *cli
	if c.raw != nil {
		err = c.raw(ctx, args[1:], stdout, stderr)
	} else {
		flags = newCLI(ctx, c, args[1:], stdout, stderr)
		err = c.run(flags)
	}
	return report(ctx, c.name, flags, err, stderr)
}

// traceNamed is "path: " when the command was given one trace, else "".
func (c *cli) traceNamed() string {
	if c == nil || len(c.positional) != 1 {
		return ""
	}
	return c.positional[0] + ": "
}

// lookup finds a command by its name.
func lookup(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// report prints what ended the command, if anything, and returns its exit
// status.
func report(ctx context.Context, name string, c *cli, err error, stderr io.Writer) int {
	var st exitStatus
	var ae *errs.ArgumentError
	var ee *errs.EmptyError
	switch {
	case err == nil || errors.Is(err, errHelp):
		return StatusDone
	case ctx.Err() != nil || isCanceled(err):
		fmt.Fprintf(stderr, "macroscope %s: interrupted\n", name)
		return StatusInterrupted
	case errors.Is(err, errUsage):
		return StatusUsage
	case errors.As(err, &st):
		return int(st)
	case errors.As(err, &ae) && ae.Name == "window" && !c.typed("start", "end"):
		// A trace whose events all sit at one instant has no window to
		// model; no --start or --end was typed to blame for it.
		fmt.Fprintf(stderr, "macroscope %s: %s%s\n", name, wrapping(err, ae), c.inCLIWords(ae.Reason))
		return StatusFailure
	case errors.As(err, &ee):
		// The data hold nothing to compute on (a trace without states):
		// a failure of the data, named by its file; no flag is at fault.
		fmt.Fprintf(stderr, "macroscope %s: %s%s\n", name, wrapping(err, ee),
			c.inCLIWords(errs.NameFile(ee, strings.TrimSuffix(c.traceNamed(), ": ")).Error()))
		return StatusFailure
	case errors.As(err, &ae) && ae.Name == "state_types" && !c.typed("state-types"):
		// A trace without states (none written, or every record
		// skipped, as the warnings say) has nothing to model; no
		// --state-types was typed to blame for it.
		fmt.Fprintf(stderr, "macroscope %s: %s%s\n", name, c.traceNamed(), c.inCLIWords(ae.Reason))
		return StatusFailure
	case errors.As(err, &ae):
		// The command line is at fault, not the data: the message names
		// the flag as it is typed.
		fmt.Fprintf(stderr, "macroscope %s: invalid %s\n", name, &errs.ArgumentError{Name: c.flagOf(ae.Name), Reason: c.inCLIWords(ae.Reason)})
		return StatusUsage
	}
	fmt.Fprintf(stderr, "macroscope %s: %s\n", name, c.inCLIWords(err.Error()))
	return StatusFailure
}

// wrapping returns what wraps inner in err ("run \"b\": ", of a run of
// compare), which the messages above, made of inner alone, would lose:
// which of the traces read it is about.
func wrapping(err, inner error) string {
	full, own := err.Error(), inner.Error()
	if len(full) > len(own) && strings.HasSuffix(full, own) {
		return full[:len(full)-len(own)]
	}
	return ""
}

// isCanceled tells an error of a computation stopped by its cancel
// channel.
func isCanceled(err error) bool {
	return errors.Is(err, trace.ErrCanceled) || errors.Is(err, aggregate.ErrCanceled) || errors.Is(err, forcelayout.ErrCanceled) ||
		errors.Is(err, context.Canceled)
}

// errUsage reports bad command-line usage already printed.
var errUsage = errors.New("usage")

// errHelp ends a command whose help was asked for and printed.
var errHelp = errors.New("help")

// exitStatus ends a command that has already said what went wrong (as
// dump does, in pj_dump's words) with that exit status.
type exitStatus int

func (s exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(s)) }

func usage(w io.Writer) {
	fmt.Fprintf(w, "usage: macroscope <command> [flags] [arguments]\n\nMacroscope %s: macroscopic views of execution traces.\n\ncommands:\n", Version)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `  help       this list, or "help <command>": a command's flags

Flags are written --name value (or --name=value), before or after the
arguments. "macroscope <command> --help" lists a command's flags;
"macroscope --version" prints the version. Figures are PNG or SVG, tables
Parquet, Feather or CSV, by their extension; --out DIR puts them in DIR.

Exit status: 0 done, 1 a failure (reading, computing or writing), 2 bad
usage, 130 interrupted.
`)
}

// say writes a line of a command's report: a label in a column of its
// own, then what it says.
func say(w io.Writer, label, format string, args ...any) {
	fmt.Fprintf(w, "%-10s %s\n", label, strings.TrimRight(fmt.Sprintf(format, args...), "\n"))
}
