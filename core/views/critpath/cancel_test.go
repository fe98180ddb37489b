package critpath

import (
	"reflect"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"
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
	var results []*Result
	defer func() {
		for _, r := range results {
			r.Close()
		}
	}()
	same := func(got, want *Result) bool {
		return reflect.DeepEqual(got.Segments, want.Segments) && reflect.DeepEqual(got.Waits, want.Waits) &&
			reflect.DeepEqual(got.Attribution, want.Attribution)
	}
	kept := func(r *Result, err error) (*Result, error) {
		if r != nil {
			results = append(results, r)
		}
		return r, err
	}
	tracetest.Canceled(t, "Compute", func(cancel <-chan struct{}) (*Result, error) {
		return kept(Compute(tr, Options{Cancel: cancel}))
	}, same)
	tracetest.Canceled(t, "Result", func(cancel <-chan struct{}) (*Result, error) {
		a := New(Options{Cancel: cancel})
		defer a.Close()
		tr.Replay(a) // to its end: the looks are Result's
		return kept(a.Result())
	}, same)
	r, err := kept(Compute(tr, Options{}))
	if err != nil {
		t.Fatal(err)
	}
	// Canceled first (kept nothing), then computed, then kept.
	tracetest.Canceled(t, "DelayCosts", r.DelayCostsCancel, func(got, want *Delays) bool {
		return got == want && len(want.Costs) > 0
	})
}
