// Command macroscope turns execution traces into macroscopic views: the
// command line of package cli, run from Go. The Python package's entry
// point runs the same command line through its extension module.
//
// Run "macroscope help" for the commands, "macroscope <command> --help"
// for a command's flags.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/macroscope-hpc/macroscope/cmd/macroscope/cli"

	// The Go program writes Parquet with arrow-go; the Python extension,
	// which runs the same command line, with pyarrow.
	_ "github.com/macroscope-hpc/macroscope/arrowio/files/goparquet"
)

func main() {
	os.Exit(run())
}

// run runs the command line; the first Ctrl-C (or SIGTERM) asks the
// command to stop at its next check, a second one ends the process at
// once.
func run() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // the next signal has its default effect
	}()
	return cli.Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
}
