package pop

import (
	"errors"
	"fmt"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/trace/tracetest"
)

// TestCanceled: with its Cancel closed, Compute stops in the replay of
// the trace, and Result, once the trace is in, at its first look; both
// return trace.ErrComputationCanceled and no result. With Cancel open
// the result is the one computed without it.
func TestCanceled(t *testing.T) {
	tr, err := formats.ReadFile("../../../testdata/critpath/cp_delay.trace", "paje")
	if err != nil {
		t.Fatal(err)
	}
	closed := tracetest.Closed()
	if r, err := Compute(tr, Options{Cancel: closed}); !errors.Is(err, trace.ErrComputationCanceled) || r != nil {
		t.Errorf("Compute: %v, error %v", r != nil, err)
	}
	a := New(Options{})
	defer a.Close()
	tr.Replay(a)
	a.opt.Cancel = closed
	if r, err := a.Result(); !errors.Is(err, trace.ErrComputationCanceled) || r != nil {
		t.Errorf("Result: %v, error %v", r != nil, err)
	}
	want, err := Compute(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Compute(tr, Options{Cancel: make(chan struct{})})
	// Printed, not reflect.DeepEqual: the counters a trace lacks are NaN.
	if err != nil || fmt.Sprintf("%+v", *got) != fmt.Sprintf("%+v", *want) {
		t.Errorf("with Cancel open: %v, not the result computed without it", err)
	}
}
