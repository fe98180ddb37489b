package commmatrix

import (
	"reflect"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"
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
	same := func(got, want *Result) bool { return reflect.DeepEqual(got, want) }
	tracetest.Canceled(t, "Compute", func(cancel <-chan struct{}) (*Result, error) {
		return Compute(tr, Options{Cancel: cancel})
	}, same)
	tracetest.Canceled(t, "Result", func(cancel <-chan struct{}) (*Result, error) {
		a, err := New(Options{Cancel: cancel})
		if err != nil {
			return nil, err
		}
		tr.Replay(a) // to its end: the looks are Result's
		return a.Result()
	}, same)
}
