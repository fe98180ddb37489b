package pybind

import (
	"context"
	"encoding/json"
	"os"

	"github.com/macroscope-hpc/macroscope/cmd/macroscope/cli"
	"github.com/macroscope-hpc/macroscope/core/errs"
)

// Command is a run of the command line (package cli, the Go program's)
// on a goroutine of its own: the Python package's entry point (the
// console script macroscope, python -m macroscope) starts it with its
// arguments, polls Wait as it polls a Reading, and calls Cancel on
// Ctrl-C, which stops the command at its next check. The command writes
// its report to the process's standard output and error, as the Go
// program does.
type Command struct {
	done   chan struct{}
	cancel context.CancelFunc
	status int
}

// StartCommand starts the command line args, a JSON list of the
// arguments after the program's name.
func StartCommand(args string) (c *Command, err error) {
	defer guard(&err)
	var argv []string
	if err := json.Unmarshal([]byte(args), &argv); err != nil {
		return nil, errs.Argument("args", "not a JSON list of strings: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c = &Command{done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(c.done)
		c.status = cli.Run(ctx, argv, os.Stdout, os.Stderr)
	}()
	return c, nil
}

// Wait waits up to the given number of milliseconds for the command to
// end, and reports whether it has; it returns sooner when a Parquet file
// waits for Python to write it (NextParquetRequest).
func (c *Command) Wait(milliseconds int) (finished bool, err error) {
	defer guard(&err)
	return pollUntil(c.done, milliseconds), nil
}

// Cancel asks the command to stop, as Ctrl-C stops the Go program; Wait
// then soon reports its end, and Status StatusInterrupted.
func (c *Command) Cancel() (err error) {
	defer guard(&err)
	c.cancel()
	return nil
}

// Status waits for the end of the command and returns its exit status.
func (c *Command) Status() (status int, err error) {
	defer guard(&err)
	<-c.done
	return c.status, nil
}

// Version is the package's version, the command line's.
func Version() string { return cli.Version }
