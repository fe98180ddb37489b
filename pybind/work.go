package pybind

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
	"github.com/macroscope-hpc/macroscope/core/views/forcelayout"
)

// Work is a long computation (a sweep of the significant levels) running
// on a goroutine of its own, so that Python keeps control: like Reading,
// Python polls Wait and Progress, shows the progress, and calls Cancel
// when the user interrupts (Ctrl-C, Jupyter's stop button). The
// computation checks the cancel flag in its loop and stops with nothing
// kept.
type Work struct {
	done       chan struct{}
	cancel     chan struct{}
	cancelOnce sync.Once
	// steps done (solves) and the part of the work done, in thousandths.
	steps, permille atomic.Int64
	err             error
	// result returns what the work computed, once done (nil for none).
	result func() any
}

// startWork runs fn(control) on a new goroutine.
func startWork(fn func(ctl *aggregate.Control) error) *Work {
	w := &Work{done: make(chan struct{}), cancel: make(chan struct{})}
	ctl := &aggregate.Control{Cancel: w.cancel, Progress: func(steps int, covered float64) {
		w.steps.Store(int64(steps))
		w.permille.Store(int64(math.Round(covered * 1000)))
	}}
	go func() {
		defer close(w.done)
		defer func() {
			if p := recover(); p != nil {
				w.err = &panicError{value: p, stack: debug.Stack()}
			}
		}()
		if w.err = fn(ctl); w.err == nil {
			w.permille.Store(1000) // done, also when the result was known
		}
	}()
	return w
}

// Wait waits up to the given number of milliseconds for the work to end,
// and reports whether it has; it returns sooner when a Parquet file waits
// for Python to write it (NextParquetRequest).
func (w *Work) Wait(milliseconds int) (finished bool, err error) {
	defer guard(&err)
	return pollUntil(w.done, milliseconds), nil
}

// Progress returns {"done": thousandths done, "total": 1000, "steps":
// solves so far} as JSON.
func (w *Work) Progress() (js string, err error) {
	defer guard(&err)
	return fmt.Sprintf(`{"done":%d,"total":1000,"steps":%d}`, w.permille.Load(), w.steps.Load()), nil
}

// Cancel asks the work to stop; Wait then soon reports the end and Err
// the cancellation.
func (w *Work) Cancel() (err error) {
	defer guard(&err)
	w.cancelOnce.Do(func() { close(w.cancel) })
	return nil
}

// Err waits for the end of the work and returns its error, nil when it
// completed.
func (w *Work) Err() (err error) {
	defer guard(&err)
	<-w.done
	if errors.Is(w.err, aggregate.ErrCanceled) || errors.Is(w.err, forcelayout.ErrCanceled) {
		return errors.New("canceled: " + w.err.Error())
	}
	return w.err
}

// JSON waits for the end of a work whose result is a JSON document
// (StartSynth) and returns it, or its error.
func (w *Work) JSON() (js string, err error) {
	defer guard(&err)
	if err := w.Err(); err != nil {
		return "", err
	}
	if w.result != nil {
		if s, ok := w.result().(string); ok {
			return s, nil
		}
	}
	return "", errors.New("this work computes no JSON document")
}

// Aggregation waits for the end of a StartAggregate work and returns its
// partition, or its error.
func (w *Work) Aggregation() (a *Aggregation, err error) {
	defer guard(&err)
	if err := w.Err(); err != nil {
		return nil, err
	}
	if w.result != nil {
		if a, ok := w.result().(*Aggregation); ok && a != nil {
			return a, nil
		}
	}
	return nil, errors.New("this work computes no aggregation")
}

// finished waits for the end of w and returns its result, or its error;
// what names the result in the error of a work that computes none.
func (w *Work) finished(what string) (any, error) {
	if err := w.Err(); err != nil {
		return nil, err
	}
	if w.result == nil {
		return nil, errors.New("this work computes no " + what)
	}
	return w.result(), nil
}

// MicroModel waits for the end of a StartMicro work and returns its
// model, or its error.
func (w *Work) MicroModel() (m *MicroModel, err error) {
	defer guard(&err)
	r, err := w.finished("model")
	if m, ok := r.(*MicroModel); ok && m != nil {
		return m, nil
	}
	return nil, orNone(err, "model")
}

// Image waits for the end of a work that draws a figure (StartPlotGantt,
// Kaleidoscope.StartPlot, Aggregation.StartPlotTreemap)
// and returns the image file's bytes, or its error.
func (w *Work) Image() (img []byte, err error) {
	defer guard(&err)
	r, err := w.finished("image")
	if img, ok := r.([]byte); ok && img != nil {
		return img, nil
	}
	return nil, orNone(err, "image")
}

// CallTree waits for the end of a StartCallTreeOfTrace or
// StartSpawnTreeOfTrace work and returns
// its tree, or its error.
func (w *Work) CallTree() (c *CallTree, err error) {
	defer guard(&err)
	r, err := w.finished("call tree")
	if c, ok := r.(*CallTree); ok && c != nil {
		return c, nil
	}
	return nil, orNone(err, "call tree")
}

// Kaleidoscope waits for the end of a CallTree.StartLayout work and
// returns its layout, or its error.
func (w *Work) Kaleidoscope() (k *Kaleidoscope, err error) {
	defer guard(&err)
	r, err := w.finished("layout")
	if k, ok := r.(*Kaleidoscope); ok && k != nil {
		return k, nil
	}
	return nil, orNone(err, "layout")
}

// Treemap waits for the end of an Aggregation.StartTreemap work and
// returns its treemap, or its error.
func (w *Work) Treemap() (t *Treemap, err error) {
	defer guard(&err)
	r, err := w.finished("treemap")
	if t, ok := r.(*Treemap); ok && t != nil {
		return t, nil
	}
	return nil, orNone(err, "treemap")
}

// Moments waits for the end of a Trace.StartMoments or
// Aggregation.StartMoments work and returns its moments, or its error.
func (w *Work) Moments() (m *Moments, err error) {
	defer guard(&err)
	r, err := w.finished("moments")
	if m, ok := r.(*Moments); ok && m != nil {
		return m, nil
	}
	return nil, orNone(err, "moments")
}

// Analysis waits for the end of a Trace.StartAnalyze work and returns its
// result, or its error.
func (w *Work) Analysis() (a *Analysis, err error) {
	defer guard(&err)
	r, err := w.finished("analysis")
	if a, ok := r.(*Analysis); ok && a != nil {
		return a, nil
	}
	return nil, orNone(err, "analysis")
}

// orNone is err, or when nil the error of a work that computes no what.
func orNone(err error, what string) error {
	if err != nil {
		return err
	}
	return errors.New("this work computes no " + what)
}

// heldTable is the table a table work converted, until Export hands it to
// Python; released then, or when the work is collected without having
// handed it (interrupted between its end and the export).
type heldTable struct {
	mu  sync.Mutex
	rec arrow.RecordBatch
	// warnings are what the conversion has to say of the table
	// (startWarnedTable), kept with it rather than with the object that
	// started the work, so that two works never mix theirs.
	warnings []string
}

func (h *heldTable) take() arrow.RecordBatch {
	h.mu.Lock()
	defer h.mu.Unlock()
	rec := h.rec
	h.rec = nil
	return rec
}

// startTable runs the conversion of a table (an arrowio ...Cancel
// function, its channel the work's cancel) as a Work; Export gives the
// table once done.
func startTable(convert func(cancel <-chan struct{}) (arrow.RecordBatch, error)) *Work {
	return startWarnedTable(func(cancel <-chan struct{}) (arrow.RecordBatch, []string, error) {
		rec, err := convert(cancel)
		return rec, nil, err
	})
}

// startWarnedTable is startTable for a conversion that also has warnings
// to give (Work.Warnings).
func startWarnedTable(convert func(cancel <-chan struct{}) (arrow.RecordBatch, []string, error)) *Work {
	held := &heldTable{}
	w := startWork(func(ctl *aggregate.Control) error {
		rec, warnings, err := convert(ctl.Cancel)
		held.mu.Lock()
		held.rec, held.warnings = rec, warnings // before the work is done: Export waits for it
		held.mu.Unlock()
		return err
	})
	w.result = func() any { return held }
	runtime.AddCleanup(w, func(h *heldTable) {
		if rec := h.take(); rec != nil {
			rec.Release()
		}
	}, held)
	return w
}

// Warnings waits for the end of a work that converts a table and returns
// what its conversion warned of (JSON: a list of strings, "[]" for none),
// or the work's error.
func (w *Work) Warnings() (js string, err error) {
	defer guard(&err)
	r, err := w.finished("table")
	if err != nil {
		return "", err
	}
	h, ok := r.(*heldTable)
	if !ok {
		return "", errors.New("this work computes no table")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	b, err := json.Marshal(append([]string{}, h.warnings...))
	return string(b), err
}

// Export waits for the end of a work that converts a table
// (Trace.StartTable, MicroModel.StartTable...) and moves the table into
// the ArrowArrayStream at addr, or returns the work's error. The table is
// handed over once.
func (w *Work) Export(addr uintptr) (err error) {
	defer guard(&err)
	r, err := w.finished("table")
	if err != nil {
		return err
	}
	h, ok := r.(*heldTable)
	if !ok {
		return errors.New("this work computes no table")
	}
	rec := h.take()
	if rec == nil {
		return errors.New("this work's table was already exported")
	}
	return export(rec, addr)
}
