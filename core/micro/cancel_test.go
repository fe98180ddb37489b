package micro

import (
	"errors"
	"reflect"
	"runtime"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/trace/tracetest"
)

// TestBuildCanceled: a model built from a trace in memory with its Cancel
// closed stops with trace.ErrComputationCanceled, no model and nothing
// left running, by each of its builders (the replay of the states, the
// dense builders of the other metrics); with Cancel open, it is the model
// built without one.
func TestBuildCanceled(t *testing.T) {
	tr := tracetest.Nested(64, 5000)
	for _, opt := range []Options{
		{Slices: 200},
		{Slices: 200, Metric: StateAverageDuration},
		{Slices: 200, Depth: 1},
	} {
		before := runtime.NumGoroutine()
		stop := make(chan struct{})
		close(stop)
		canceled := opt
		canceled.Cancel = stop
		m, err := Build(tr, canceled)
		if !errors.Is(err, trace.ErrComputationCanceled) || m != nil {
			t.Errorf("%+v canceled: model %v, error %v, want %v", opt, m != nil, err, trace.ErrComputationCanceled)
		}
		if n := tracetest.Settled(before); n > before {
			t.Errorf("%+v canceled: %d goroutines left running, %d before", opt, n, before)
		}
		want, err := Build(tr, opt)
		if err != nil {
			t.Fatal(err)
		}
		open := opt
		open.Cancel = make(chan struct{})
		got, err := Build(tr, open)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%+v with Cancel open: %v, not the model built without it", opt, err)
		}
	}
}
