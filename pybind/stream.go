package pybind

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/macroscope-hpc/macroscope/core/aggregate"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/paje"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// MicroReading is a microscopic model being built while a trace is read,
// on a goroutine of its own: Python polls it as it polls a Reading.
type MicroReading struct {
	done        chan struct{}
	cancel      chan struct{}
	cancelOnce  sync.Once
	read, total atomic.Int64

	// Set before done is closed.
	model *MicroModel
	err   error
}

// parseMicroOptions decodes the options of Trace.micro (microOptions).
func parseMicroOptions(options string) (micro.Options, error) {
	o := microOptions{Slices: 100}
	if err := decodeOptions(options, &o); err != nil {
		return micro.Options{}, err
	}
	opt := micro.Options{Slices: o.Slices, StateTypes: o.StateTypes, Types: o.Types, Depth: micro.Innermost,
		Metric: micro.Metric(o.Metric)}
	if o.Depth != nil {
		opt.Depth = *o.Depth
	}
	var err error
	if opt.Start, err = seconds("start", o.Start); err != nil {
		return micro.Options{}, err
	}
	if opt.End, err = seconds("end", o.End); err != nil {
		return micro.Options{}, err
	}
	return opt, nil
}

// StartReadMicro starts building the microscopic model of the trace at
// path while reading it (micro.Stream): options are those of
// StartRead, modelOptions those of Trace.Micro. Problems found before
// reading starts are reported at once.
func StartReadMicro(path, options, modelOptions string) (r *MicroReading, err error) {
	defer guard(&err)
	var o readOptions
	dec := json.NewDecoder(strings.NewReader(options))
	dec.DisallowUnknownFields()
	if options != "" {
		if err := dec.Decode(&o); err != nil {
			return nil, errs.Argument("options", "%v", err)
		}
	}
	opt, err := parseMicroOptions(modelOptions)
	if err != nil {
		return nil, err
	}
	read, format, err := o.reader(path)
	if err != nil {
		return nil, err
	}
	files := append([]string{path}, o.Paths...)
	var probe micro.Probe
	if format == "paje" {
		po := paje.Options{}
		if o.Strict != nil && *o.Strict {
			po = paje.PajeNG()
		}
		probe = func() (trace.Time, trace.Time, bool) { return paje.Extent(files, po) }
	}
	r = &MicroReading{done: make(chan struct{}), cancel: make(chan struct{})}
	ro := trace.ReadOptions{Cancel: r.cancel, Progress: func(done, total int64) {
		r.read.Store(done)
		r.total.Store(total)
	}}
	go func() {
		defer close(r.done)
		defer func() {
			if p := recover(); p != nil {
				r.model, r.err = nil, &panicError{value: p, stack: debug.Stack()}
			}
		}()
		var warnings []string
		src := func(sink trace.Sink, ro trace.ReadOptions) error {
			var err error
			warnings, err = read(sink, ro)
			return err
		}
		var m *micro.Model
		var sum *micro.Summary
		var err error
		if format == "chrome" { // its reader holds the whole document anyway
			m, sum, err = micro.Load(src, opt, ro)
		} else {
			m, sum, err = micro.StreamWith(src, opt, ro, micro.StreamOptions{Probe: probe, StartOrdered: format == "pjdump"})
		}
		if err != nil {
			r.err = err
			return
		}
		r.model = &MicroModel{m: m, in: aggregate.Input{Tree: m.Tree, Slices: m.Slices, States: len(m.States), Values: m.Values},
			stateTypes: momentsStateTypes(opt), summary: map[string]any{
				"files": files, "format": format, "start": sum.Start.Seconds(), "end": sum.End.Seconds(),
				"containers": sum.Containers, "states": sum.States, "variables": sum.Variables, "links": sum.Links,
				"events": sum.Events, "passes": sum.Passes, "in_memory": sum.InMemory, "warnings": warnings,
			}}
	}()
	return r, nil
}

// Wait waits up to the given number of milliseconds for the read to end,
// and reports whether it has.
func (r *MicroReading) Wait(milliseconds int) (finished bool, err error) {
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
func (r *MicroReading) Progress() (js string, err error) {
	defer guard(&err)
	return fmt.Sprintf(`{"done":%d,"total":%d}`, r.read.Load(), r.total.Load()), nil
}

// Cancel asks the reader to stop; Wait then soon reports the end, and
// Model the error trace.ErrCanceled.
func (r *MicroReading) Cancel() (err error) {
	defer guard(&err)
	r.cancelOnce.Do(func() { close(r.cancel) })
	return nil
}

// Model returns the model, or the error that stopped the read. It waits
// for the end of the read.
func (r *MicroReading) Model() (m *MicroModel, err error) {
	defer guard(&err)
	<-r.done
	return r.model, r.err
}
