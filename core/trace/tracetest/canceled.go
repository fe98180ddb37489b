package tracetest

import (
	"errors"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Canceled checks a computation stopped by a Cancel channel: run with a
// closed channel returns trace.ErrComputationCanceled and no result (the
// zero R), and run with an open channel gives what run with none (nil)
// gives, as same compares them. name names the computation in failures.
func Canceled[R comparable](t testing.TB, name string, run func(cancel <-chan struct{}) (R, error), same func(got, want R) bool) {
	t.Helper()
	var none R
	if r, err := run(Closed()); !errors.Is(err, trace.ErrComputationCanceled) || r != none {
		t.Errorf("%s with Cancel closed: a result %v, error %v; want none and the cancellation", name, r != none, err)
	}
	want, err := run(nil)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if got, err := run(make(chan struct{})); err != nil || !same(got, want) {
		t.Errorf("%s with Cancel open: %v, not the result computed without it", name, err)
	}
}
