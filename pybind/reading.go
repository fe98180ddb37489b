package pybind

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/paje"
	"github.com/macroscope-hpc/macroscope/core/paraver"
	"github.com/macroscope-hpc/macroscope/core/pjcsv"
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
	trace *Trace
	model *MicroModel
	err   error
}

// newReading returns a Reading and the reader options that report to it
// and stop when it is canceled.
func newReading() (*Reading, trace.ReadOptions) {
	r := &Reading{done: make(chan struct{}), cancel: make(chan struct{})}
	return r, trace.ReadOptions{Cancel: r.cancel, Progress: func(done, total int64) {
		r.read.Store(done)
		r.total.Store(total)
	}}
}

// parseReadOptions decodes the options of StartRead (readOptions); an
// unknown option is an error.
func parseReadOptions(options string) (readOptions, error) {
	var o readOptions
	dec := json.NewDecoder(strings.NewReader(options))
	dec.DisallowUnknownFields()
	if options != "" {
		if err := dec.Decode(&o); err != nil {
			return o, errs.Argument("options", "%v", err)
		}
	}
	return o, nil
}

// readOptions mirror the keyword arguments of macroscope.read and the
// per-format readers. Pointers tell an option given from one left out, so
// that an option the format does not have is an error, not ignored.
type readOptions struct {
	Format string   `json:"format"`
	Paths  []string `json:"paths"` // Pajé only: more files read after the first, as one trace
	// Pajé.
	Strict                *bool `json:"strict"`
	IgnoreIncompleteLinks *bool `json:"ignore_incomplete_links"`
	// Paraver.
	View *string `json:"view"`
	// pj_dump tables.
	SkipInverted *bool `json:"skip_inverted"`
}

// StartRead starts reading the trace at path in the background; options
// is a JSON object (readOptions). Problems found before reading starts
// (an unknown option, a missing file, an unknown format) are reported at
// once.
func StartRead(path string, options string) (r *Reading, err error) {
	defer guard(&err)
	o, err := parseReadOptions(options)
	if err != nil {
		return nil, err
	}
	read, format, err := o.reader(path)
	if err != nil {
		return nil, err
	}
	r, opt := newReading()
	go r.run(func() error {
		t := trace.New(append([]string{path}, o.Paths...)...)
		warnings, err := read(t, opt)
		if err == nil {
			r.trace = &Trace{t: t, format: format, warnings: warnings}
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
	r.cancelOnce.Do(func() { close(r.cancel) })
	return nil
}

// Trace returns the trace read (StartRead), or the error that stopped the
// read. It waits for the end of the read.
func (r *Reading) Trace() (t *Trace, err error) {
	defer guard(&err)
	<-r.done
	return r.trace, r.err
}

// Model returns the model built while reading (StartReadMicro), or the
// error that stopped the read. It waits for the end of the read.
func (r *Reading) Model() (m *MicroModel, err error) {
	defer guard(&err)
	<-r.done
	return r.model, r.err
}

// readFunc streams a trace into sink and returns the warnings the read
// gave.
type readFunc func(sink trace.Sink, opt trace.ReadOptions) (warnings []string, err error)

// reader chooses the reader for path and checks that the options given
// are those of its format.
func (o *readOptions) reader(path string) (readFunc, string, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, "", err
	}
	var f formats.Format
	var err error
	if o.Format == "" {
		f, err = formats.Detect(path)
	} else {
		f, err = formats.ByName(o.Format)
	}
	if err != nil {
		return nil, "", err
	}
	foreign := map[string]bool{ // options of other formats that were given
		"strict": o.Strict != nil && f.Name != "paje", "ignore_incomplete_links": o.IgnoreIncompleteLinks != nil && f.Name != "paje",
		"view": o.View != nil && f.Name != "paraver", "skip_inverted": o.SkipInverted != nil && f.Name != "pjdump",
		"paths": len(o.Paths) > 0 && f.Name != "paje",
	}
	for _, name := range []string{"strict", "ignore_incomplete_links", "view", "skip_inverted", "paths"} {
		if foreign[name] {
			return nil, "", errs.Argument(name, "is not an option of the %s reader", f.Name)
		}
	}
	switch f.Name {
	case "paje":
		opt := paje.Options{}
		if o.Strict != nil && *o.Strict {
			opt = paje.PajeNG()
		}
		opt.IgnoreIncompleteLinks = o.IgnoreIncompleteLinks != nil && *o.IgnoreIncompleteLinks
		paths := append([]string{path}, o.Paths...)
		return func(t trace.Sink, ro trace.ReadOptions) ([]string, error) {
			opt.ReadOptions = ro
			return nil, paje.ReadFiles(paths, t, opt)
		}, f.Name, nil
	case "paraver":
		view := paraver.ByThread
		if o.View != nil {
			switch *o.View {
			case "thread":
			case "cpu":
				view = paraver.ByCPU
			default:
				return nil, "", errs.Argument("view", "%q is not a view (thread or cpu)", *o.View)
			}
		}
		return func(t trace.Sink, ro trace.ReadOptions) ([]string, error) {
			return nil, paraver.ReadView(path, view, t, ro)
		}, f.Name, nil
	case "pjdump":
		skip := o.SkipInverted != nil && *o.SkipInverted
		return func(t trace.Sink, ro trace.ReadOptions) ([]string, error) {
			var skipped []string
			opt := pjcsv.Options{ReadOptions: ro}
			if skip {
				opt.OnInverted = func(file string, line int) { skipped = append(skipped, fmt.Sprintf("%s:%d", file, line)) }
			}
			if err := pjcsv.ReadWith(path, t, opt); err != nil {
				return nil, err
			}
			return invertedWarning(skipped), nil
		}, f.Name, nil
	}
	return func(t trace.Sink, ro trace.ReadOptions) ([]string, error) {
		return nil, f.Read(path, t, ro)
	}, f.Name, nil
}

// invertedWarning words the rows skip_inverted skipped, naming the first
// few.
func invertedWarning(rows []string) []string {
	if len(rows) == 0 {
		return nil
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "skipped %d row(s) ending before they start: ", len(rows))
	const shown = 5
	b.WriteString(strings.Join(rows[:min(len(rows), shown)], ", "))
	if len(rows) > shown {
		fmt.Fprintf(&b, " and %d more", len(rows)-shown)
	}
	return []string{b.String()}
}
