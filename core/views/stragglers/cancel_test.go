package stragglers

import (
	"errors"
	"reflect"
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
	tr, err := formats.ReadFile("../../../testdata/critpath/cp_coll.trace", "paje")
	if err != nil {
		t.Fatal(err)
	}
	closed := tracetest.Closed()
	if r, err := Compute(tr, Options{Cancel: closed}); !errors.Is(err, trace.ErrComputationCanceled) || r != nil {
		t.Errorf("Compute: %v, error %v", r != nil, err)
	}
	a, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
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
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("with Cancel open: %v, not the result computed without it", err)
	}
}
