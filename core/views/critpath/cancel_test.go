package critpath

import (
	"errors"
	"reflect"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/trace/tracetest"
)

// TestCanceled: with its Cancel closed, Compute stops in the replay of
// the trace, Result at its first look once the trace is in, and the delay
// costs at theirs; each returns trace.ErrComputationCanceled and no
// result, and the delay costs asked again are computed. With Cancel open
// the path, its attribution and its delay costs are those computed
// without it.
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
	defer want.Close()
	if d, err := want.DelayCostsCancel(closed); !errors.Is(err, trace.ErrComputationCanceled) || d != nil {
		t.Errorf("delay costs: %v, error %v", d != nil, err)
	}
	wantCosts := want.DelayCosts()
	if wantCosts == nil || len(wantCosts.Costs) == 0 {
		t.Fatal("no delay costs after a canceled computation of them")
	}
	got, err := Compute(tr, Options{Cancel: make(chan struct{})})
	if err != nil {
		t.Fatal(err)
	}
	defer got.Close()
	costs, err := got.DelayCostsCancel(make(chan struct{}))
	if err != nil || !reflect.DeepEqual(got.Segments, want.Segments) || !reflect.DeepEqual(got.Waits, want.Waits) ||
		!reflect.DeepEqual(got.Attribution, want.Attribution) || !reflect.DeepEqual(costs, wantCosts) {
		t.Errorf("with Cancel open: %v, not the path, attribution and delay costs computed without it", err)
	}
}
