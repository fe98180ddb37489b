// Command macroscope turns execution traces into macroscopic views.
//
//	macroscope overview [flags] trace     spatiotemporal overview (PNG + Parquet)
//	macroscope moments [flags] trace      moments of utilization (table, CSV/Parquet, figure)
//	macroscope synth [flags] out          synthetic trace (Pajé or Parquet)
//	macroscope dump [flags] [trace]       pj_dump's CSV of a trace
//	macroscope treemap [flags] trace      treemap of the optimal aggregation (PNG + Parquet)
//	macroscope topology [flags] trace     topology-based view: graph of resources (PNG, CSV/Parquet)
//	macroscope help                       this text
//
// Run "macroscope <command> -h" for a command's flags.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

var commands = []command{
	{"overview", "spatiotemporal overview of a trace: significant p, optimal aggregation, figure and table", runOverview},
	{"moments", "moments of utilization of every resource, computed while reading: table and figure", runMoments},
	{"synth", "synthetic trace of any size (Pajé or Parquet) with anomalies where asked", runSynth},
	{"dump", "the trace as pj_dump's CSV, byte for byte (Pajé), with pj_dump's flags", runDump},
	{"treemap", "squarified treemap of the optimal cut of the hierarchy: figure and table of rectangles", runTreemap},
	{"topology", "topology-based view: resources and their links as a graph, sized by capacity, filled by use", runTopology},
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
			err := c.run(args[1:], stdout, stderr)
			if err == nil {
				return 0
			}
			if errors.Is(err, errUsage) {
				return 2
			}
			var st exitStatus
			if errors.As(err, &st) {
				return int(st)
			}
			fmt.Fprintln(stderr, "macroscope:", describe(err))
			return 1
		}
	}
	fmt.Fprintf(stderr, "macroscope: unknown command %q\n", args[0])
	usage(stderr)
	return 2
}

// errUsage reports bad command-line usage the flag package already printed.
var errUsage = errors.New("usage")

// exitStatus ends a command that has already said what went wrong (as
// dump does, in pj_dump's words) with that exit status.
type exitStatus int

func (s exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(s)) }

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: macroscope <command> [flags] [arguments]\n\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'macroscope <command> -h' for a command's flags.")
}

// describe prefixes argument errors with "invalid" so the user knows the
// problem is the command line, not the data.
func describe(err error) string {
	var ae *errs.ArgumentError
	if errors.As(err, &ae) {
		return "invalid " + ae.Error()
	}
	return err.Error()
}
