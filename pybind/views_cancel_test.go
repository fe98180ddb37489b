package pybind

import (
	"bytes"
	"runtime"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace/tracetest"
)

// viewWorks are the long computations on a trace in memory that Python
// runs as a Work: each starts one on tr and returns what it computed, as
// something to compare, once done.
var viewWorks = []struct {
	name   string
	start  func(tr *Trace) (*Work, error)
	result func(w *Work) (any, error)
}{
	{"model", func(tr *Trace) (*Work, error) { return tr.StartMicro(`{"slices":200}`) },
		func(w *Work) (any, error) {
			m, err := w.MicroModel()
			if err != nil {
				return nil, err
			}
			return m.Info()
		}},
	{"gantt", func(tr *Trace) (*Work, error) { return tr.StartPlotGantt(`{"width":300,"height":200}`) },
		func(w *Work) (any, error) { return w.Image() }},
	{"call tree", func(tr *Trace) (*Work, error) { return StartCallTreeOfTrace(tr, `{}`) },
		func(w *Work) (any, error) {
			c, err := w.CallTree()
			if err != nil {
				return nil, err
			}
			return c.Info()
		}},
	{"layout", func(tr *Trace) (*Work, error) {
		w, err := StartCallTreeOfTrace(tr, `{}`)
		if err != nil {
			return nil, err
		}
		c, err := w.CallTree()
		if err != nil {
			return nil, err
		}
		return c.StartLayout(`{"width":800}`)
	}, func(w *Work) (any, error) {
		k, err := w.Kaleidoscope()
		if err != nil {
			return nil, err
		}
		return k.Info()
	}},
}

// TestViewWorksCanceled cancels each computation as soon as it starts, on
// a trace of 640,000 states: it ends canceled, with no result and no
// goroutine left; run to its end, it gives the same result twice.
func TestViewWorksCanceled(t *testing.T) {
	tr := &Trace{t: tracetest.Nested(64, 5000), format: "table"}
	for _, v := range viewWorks {
		t.Run(v.name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			w, err := v.start(tr)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Cancel(); err != nil {
				t.Fatal(err)
			}
			if got, err := v.result(w); err == nil || !strings.Contains(err.Error(), "canceled") {
				t.Fatalf("canceled: got %T and error %v, want the cancellation", got, err)
			}
			if n := tracetest.Settled(before); n > before {
				t.Fatalf("%d goroutines run after the cancellation, %d before", n, before)
			}
			one, two := completed(t, v.start, v.result, tr), completed(t, v.start, v.result, tr)
			if !equal(one, two) {
				t.Fatalf("two complete runs differ")
			}
		})
	}
}

// completed runs a work to its end and returns its result.
func completed(t *testing.T, start func(*Trace) (*Work, error), result func(*Work) (any, error), tr *Trace) any {
	t.Helper()
	w, err := start(tr)
	if err != nil {
		t.Fatal(err)
	}
	r, err := result(w)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func equal(a, b any) bool {
	if x, ok := a.([]byte); ok {
		return bytes.Equal(x, b.([]byte)) && len(x) > 0
	}
	return a == b
}
