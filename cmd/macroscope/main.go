// Command macroscope turns execution traces into macroscopic views.
//
//	macroscope overview [flags] trace     optimal aggregation (spatiotemporal, spatial or temporal): figure, tables
//	macroscope moments [flags] trace      moments of utilization: table, figure
//	macroscope treemap [flags] trace      treemap of the optimal aggregation: figure, table
//	macroscope gantt [flags] trace        Gantt chart of the raw states over a window: figure
//	macroscope topology [flags] trace     topology-based view, a graph of resources: figure, tables
//	macroscope kaleido [flags] trace      kaleidoscope of the call tree: figure, table
//	macroscope synth [flags] out          synthetic trace (Pajé or Parquet)
//	macroscope dump [flags] [trace]       pj_dump's CSV of a trace
//	macroscope help                       this text
//
// Run "macroscope <command> -h" for a command's flags. Figures are PNG or
// SVG, tables Parquet, Feather or CSV, by their extension; -out DIR puts
// them in DIR. Exit status: 0 done, 1 a failure (the trace could not be
// read, a result not computed or written: the message names the file and
// line), 2 bad usage (an unknown flag, a missing argument, a bad value).
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/macroscope-hpc/macroscope/core/errs"
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
	raw      func(args []string, stdout, stderr io.Writer) error
}

var commands = []command{
	overviewCommand, momentsCommand, treemapCommand, ganttCommand, topologyCommand, kaleidoCommand, synthCommand,
	{name: "dump", summary: "the trace as pj_dump's CSV, byte for byte (Pajé), with pj_dump's flags", raw: runDump},
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		return 0
	}
	for _, c := range commands {
		if c.name == args[0] {
			var err error
			if c.raw != nil {
				err = c.raw(args[1:], stdout, stderr)
			} else {
				err = c.run(newCLI(c, args[1:], stdout, stderr))
			}
			var st exitStatus
			var ae *errs.ArgumentError
			switch {
			case err == nil || errors.Is(err, errHelp):
				return 0
			case errors.Is(err, errUsage):
				return 2
			case errors.As(err, &st):
				return int(st)
			case errors.As(err, &ae):
				// The command line is at fault, not the data.
				fmt.Fprintf(stderr, "macroscope %s: invalid %v\n", c.name, ae)
				return 2
			}
			fmt.Fprintf(stderr, "macroscope %s: %v\n", c.name, err)
			return 1
		}
	}
	fmt.Fprintf(stderr, "macroscope: unknown command %q\n", args[0])
	usage(stderr)
	return 2
}

// errUsage reports bad command-line usage the flag package already printed.
var errUsage = errors.New("usage")

// errHelp ends a command whose help was asked for and printed.
var errHelp = errors.New("help")

// exitStatus ends a command that has already said what went wrong (as
// dump does, in pj_dump's words) with that exit status.
type exitStatus int

func (s exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(s)) }

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: macroscope <command> [flags] [arguments]\n\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'macroscope <command> -h' for a command's flags. Exit status: 0 done,\n1 a failure (reading, computing or writing), 2 bad usage.")
}
