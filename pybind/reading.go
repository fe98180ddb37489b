package pybind

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/macroscope-hpc/macroscope/core/budget"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/partition"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Reading is a trace being read by a goroutine of its own, so that Python
// keeps control while it runs: Python polls Wait and Progress, which
// return at once or after a short wait with the GIL released, shows the
// progress, and calls Cancel when the user interrupts (Ctrl-C, the
// Jupyter stop button). A Go callback into Python would need the GIL from
// a Go thread; polling needs nothing of the sort.
type Reading struct {
	done        chan struct{} // closed when the read is over
	cancel      chan struct{}
	cancelOnce  sync.Once
	read, total atomic.Int64 // bytes

	// Set before done is closed: the trace (StartRead) or the model built
	// while reading (StartReadMicro), or the error that stopped the read.
	trace    *Trace
	model    *MicroModel
	moments  *Moments // StartMomentsFromFile
	analysis *Analysis
	err      error
	// What the steps of a distributed model give (partition.go).
	extent   [2]int64
	partial  []byte
	messages []byte
}

// newReading returns a Reading and the reader options that report to it
// and stop when it is canceled.
func newReading() (*Reading, trace.ReadOptions) {
	r := &Reading{done: make(chan struct{}), cancel: make(chan struct{})}
	return r, trace.ReadOptions{Cancel: r.cancel, Notes: &trace.Notes{}, Progress: func(done, total int64) {
		r.read.Store(done)
		r.total.Store(total)
	}}
}

// openTrace opens the trace at path through the registry's door;
// options is a JSON object of the reader's options, with "format" naming
// the format (detected when absent). The options are checked against the
// format's (an option of another format is an error).
func openTrace(path string, options string) (*ingest.Source, string, error) {
	values, err := decodeReadOptions(options)
	if err != nil {
		return nil, "", err
	}
	format, _ := values["format"].(string)
	delete(values, "format")
	delete(values, memoryBudgetOption)
	if v, ok := values[runPathsOption]; ok {
		delete(values, runPathsOption)
		return openRunList(v, format, values)
	}
	return partition.Open(path, format, values)
}

// runPathsOption lists the traces StartRead and StartAnalyze read as one,
// each under a container of its own named after its file
// (partition.Runs): the ranks' files of one PyTorch job, for instance.
// It is the front end's option, not a reader's.
const runPathsOption = "run_paths"

// openRunList opens the traces of the JSON list v as one source
// (partition.OpenRuns).
func openRunList(v any, format string, values ingest.Values) (*ingest.Source, string, error) {
	items, ok := v.([]any)
	paths := make([]string, len(items))
	for i, item := range items {
		paths[i], ok = item.(string)
		if !ok {
			break
		}
	}
	if !ok || len(paths) == 0 {
		return nil, "", errs.Argument("path", "must be a path or a non-empty list of paths, got %v", v)
	}
	return partition.OpenRuns(paths, format, values)
}

// memoryBudgetOption is the option of StartRead that bounds the memory of
// the trace read (budget.Guard): bytes, 0 for the default share of the
// memory available, negative for no limit. It is the front end's, not
// the reader's.
const memoryBudgetOption = "memory_budget"

// decodeReadOptions decodes the JSON object of StartRead's options: the
// reader's, "format" and memory_budget.
func decodeReadOptions(options string) (ingest.Values, error) {
	values := ingest.Values{}
	if options != "" {
		dec := json.NewDecoder(strings.NewReader(options))
		if err := dec.Decode(&values); err != nil {
			return nil, errs.Argument("options", "%v", err)
		}
	}
	return values, nil
}

// memoryBudget returns the memory_budget of the read options (0: the
// default).
func memoryBudget(options string) (int64, error) {
	values, err := decodeReadOptions(options)
	if err != nil {
		return 0, err
	}
	v, ok := values[memoryBudgetOption]
	if !ok || v == nil {
		return 0, nil
	}
	n, ok := v.(float64)
	if !ok || n != float64(int64(n)) {
		return 0, errs.Argument(memoryBudgetOption, "must be a number of bytes, got %v", v)
	}
	return int64(n), nil
}

// Formats describes every format and the options of its reader, as JSON:
// the Python package builds its readers' signatures from it.
func Formats() (js string, err error) {
	defer guard(&err)
	b, err := json.Marshal(formats.Describe())
	return string(b), err
}

// StartRead starts reading the trace at path in the background; options
// is a JSON object (readOptions). Problems found before reading starts
// (an unknown option, a missing file, an unknown format) are reported at
// once.
func StartRead(path string, options string) (r *Reading, err error) {
	defer guard(&err)
	src, format, err := openTrace(path, options)
	if err != nil {
		return nil, err
	}
	setting, err := memoryBudget(options)
	if err != nil {
		return nil, err
	}
	r, opt := newReading()
	go r.run(func() error {
		t := trace.New(src.Files...)
		// Past its budget the trace stops the read (as Cancel does) and
		// the error says so, instead of the kernel killing the process.
		g := budget.NewGuard(t, setting, r.stop)
		opt.Hold = g.Hold // what the reader gathers before delivering it weighs too
		err := readGuarded(path, func() error { return src.Read(g, opt) })
		if g.Err() != nil {
			return overBudget(path, g.Err(), err)
		}
		if err == nil {
			r.trace = &Trace{t: t, format: format, warnings: opt.Notes.Messages(), notes: opt.Notes}
		}
		return err
	})
	return r, nil
}

// run runs read on the calling goroutine, keeping its error and turning a
// panic into an internal error, since nothing would recover it there.
func (r *Reading) run(read func() error) {
	defer close(r.done)
	defer func() {
		if p := recover(); p != nil {
			r.trace, r.model, r.err = nil, nil, &panicError{value: p, stack: debug.Stack()}
		}
	}()
	r.err = read()
}

// readGuarded runs a read of file, turning a panic in the reader or a
// library it calls (a database driver, a decompressor) into a
// FormatError naming the file: the input made it fail, and the user must
// learn which file, not see the interpreter die.
func readGuarded(file string, read func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &errs.FormatError{File: file, Err: fmt.Errorf("the reader failed on this input (%v); please report it with the file", p)}
		}
	}()
	return read()
}

// Wait waits up to the given number of milliseconds for the read to end,
// and reports whether it has.
func (r *Reading) Wait(milliseconds int) (finished bool, err error) {
	defer guard(&err)
	if milliseconds <= 0 {
		select {
		case <-r.done:
			return true, nil
		default:
			return false, nil
		}
	}
	timer := time.NewTimer(time.Duration(milliseconds) * time.Millisecond)
	defer timer.Stop()
	select {
	case <-r.done:
		return true, nil
	case <-timer.C:
		return false, nil
	}
}

// Progress returns {"done": bytes read, "total": bytes to read (0 if
// unknown)} as JSON; a trace read twice counts twice.
func (r *Reading) Progress() (js string, err error) {
	defer guard(&err)
	return fmt.Sprintf(`{"done":%d,"total":%d}`, r.read.Load(), r.total.Load()), nil
}

// Cancel asks the reader to stop; Wait then soon reports the end, and
// Trace or Model the error trace.ErrCanceled.
func (r *Reading) Cancel() (err error) {
	defer guard(&err)
	r.stop()
	return nil
}

// stop asks the reader to stop (Cancel, a trace over its budget).
func (r *Reading) stop() { r.cancelOnce.Do(func() { close(r.cancel) }) }

// outcome waits for the end of the read and returns its error: the one
// that stopped it, else trace.ErrCanceled if it was canceled. A read that
// ended in the instant between the user's interrupt and Cancel is
// canceled all the same: the user asked for no result.
func (r *Reading) outcome() error {
	<-r.done
	if r.err != nil {
		return r.err
	}
	select {
	case <-r.cancel:
		return trace.ErrCanceled
	default:
		return nil
	}
}

// Trace returns the trace read (StartRead), or the error that stopped the
// read. It waits for the end of the read.
func (r *Reading) Trace() (t *Trace, err error) {
	defer guard(&err)
	if err := r.outcome(); err != nil {
		return nil, err
	}
	return r.trace, nil
}

// Model returns the model built while reading (StartReadMicro), or the
// error that stopped the read. It waits for the end of the read.
func (r *Reading) Model() (m *MicroModel, err error) {
	defer guard(&err)
	if err := r.outcome(); err != nil {
		return nil, err
	}
	return r.model, nil
}

// overBudget names the file whose read outgrew the memory budget in the
// budget's error over (an ArgumentError on memory_budget, which names no
// file), with the place in it that the reader's error read gives.
func overBudget(path string, over, read error) error {
	return budget.Named(over, read, path)
}
