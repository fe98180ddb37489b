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

// TestSpawnTreeCanceled: the spawn tree with its Cancel closed stops with
// trace.ErrComputationCanceled and no tree; with Cancel open, it is the
// tree built without one.
func TestSpawnTreeCanceled(t *testing.T) {
	tr := tracetest.Spawned(200_000)
	closed := make(chan struct{})
	close(closed)
	before := runtime.NumGoroutine()
	if tree, err := FromSpawnLinksCancel(tr, "spawn", closed); !errors.Is(err, trace.ErrComputationCanceled) || tree != nil {
		t.Errorf("spawn tree canceled: tree %v, error %v", tree != nil, err)
	}
	want, err := FromSpawnLinks(tr, "spawn")
	if err != nil {
		t.Fatal(err)
	}
	// A binary tree of 200,000 threads under the synthetic root.
	if len(want.Parent) != 200_001 || want.Height != 1+18 {
		t.Errorf("spawn tree of %d nodes, height %d; want 200,001 and 19", len(want.Parent), want.Height)
	}
	got, err := FromSpawnLinksCancel(tr, "spawn", make(chan struct{}))
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("spawn tree with Cancel open: %v, not the tree built without it", err)
	}
	if n := tracetest.Settled(before); n > before {
		t.Errorf("%d goroutines left running, %d before", n, before)
	}
}
