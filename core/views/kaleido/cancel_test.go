package kaleido

import (
	"errors"
	"reflect"
	"runtime"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/trace/tracetest"
)

// TestCanceled: the call tree and its radial layout, with their Cancel
// closed, stop with trace.ErrComputationCanceled, no result and nothing
// left running; with Cancel open, they are what they are without one.
func TestCanceled(t *testing.T) {
	tr := tracetest.Nested(64, 5000)
	closed := make(chan struct{})
	close(closed)
	before := runtime.NumGoroutine()
	if tree, err := FromTrace(tr, TraceOptions{Cancel: closed}); !errors.Is(err, trace.ErrComputationCanceled) || tree != nil {
		t.Errorf("call tree canceled: tree %v, error %v", tree != nil, err)
	}
	want, err := FromTrace(tr, TraceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := FromTrace(tr, TraceOptions{Cancel: make(chan struct{})})
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("call tree with Cancel open: %v, not the tree built without it", err)
	}
	if l, err := want.Layout(Options{Width: 800, Cancel: closed}); !errors.Is(err, trace.ErrComputationCanceled) || l != nil {
		t.Errorf("layout canceled: layout %v, error %v", l != nil, err)
	}
	wantLayout, err := want.Layout(Options{Width: 800})
	if err != nil {
		t.Fatal(err)
	}
	gotLayout, err := want.Layout(Options{Width: 800, Cancel: make(chan struct{})})
	if err != nil || !reflect.DeepEqual(gotLayout, wantLayout) {
		t.Errorf("layout with Cancel open: %v, not the layout made without it", err)
	}
	if n := tracetest.Settled(before); n > before {
		t.Errorf("%d goroutines left running, %d before", n, before)
	}
}
