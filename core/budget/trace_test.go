package budget

import (
	"errors"
	"strings"
	"testing"
	"unsafe"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestGuard: the trace is weighed as it fills; past the budget Over is
// called once, the entities that still come are dropped, and Err tells
// the estimate and what to do instead.
func TestGuard(t *testing.T) {
	const limit = 1 << 20
	overs := 0
	g := NewGuard(trace.New("t"), limit, func() { overs++ })
	g.DefineType(trace.Type{Name: "T", Kind: trace.KindContainer, Parent: trace.None})
	g.DefineType(trace.Type{Name: "S", Kind: trace.KindState, Parent: 0})
	g.DefineValue(trace.Value{Type: 1, Name: "run"})
	g.CreateContainer(trace.Container{Name: "c", Type: 0, Parent: 0})
	size := int64(unsafe.Sizeof(trace.State{}))
	for i := range 100_000 {
		g.State(trace.State{Container: 1, Type: 1, Start: trace.Time(i), End: trace.Time(i + 1)})
	}
	if overs != 1 {
		t.Fatalf("Over called %d times", overs)
	}
	// Stopped at the first weighing past the limit: the columns as
	// allocated weigh more than the limit, the states held at most the
	// limit and guardEvery states more.
	held := int64(g.Trace.States.Len())
	if held*size > limit+guardEvery*size || g.Bytes() <= limit {
		t.Errorf("%d states held (%d bytes, %d allocated) for a budget of %d", held, held*size, g.Bytes(), limit)
	}
	var ae *errs.ArgumentError
	err := g.Err()
	if !errors.As(err, &ae) || ae.Name != "memory_budget" ||
		!strings.Contains(err.Error(), "outgrew the memory budget of 1 MiB") ||
		!strings.Contains(err.Error(), "ms.read_micro(path") {
		t.Errorf("got %v", err)
	}
	// No limit: everything is kept.
	g = NewGuard(trace.New("t"), -1, func() { t.Error("Over without a limit") })
	for range 10_000 {
		g.State(trace.State{})
	}
	if g.Trace.States.Len() != 10_000 || g.Err() != nil || g.Bytes() < 10_000*size {
		t.Errorf("no limit: %d states, %v, %d bytes", g.Trace.States.Len(), g.Err(), g.Bytes())
	}
}

// Types weigh as values do: a million state types, defined by a Pajé
// trace of a few megabytes compressed, outgrow a budget of 1 MiB, where
// the guard did not weigh them at all.
func TestGuardWeighsTypes(t *testing.T) {
	overs := 0
	g := NewGuard(trace.New("t"), 1<<20, func() { overs++ })
	g.DefineType(trace.Type{Name: "T", Kind: trace.KindContainer, Parent: trace.None})
	for i := range 1_000_000 {
		g.DefineType(trace.Type{Name: "S" + strings.Repeat("x", i%16), Kind: trace.KindState, Parent: 0})
	}
	if overs != 1 || g.Err() == nil || !strings.Contains(g.Err().Error(), "outgrew the memory budget of 1 MiB") {
		t.Errorf("Over called %d times; %v", overs, g.Err())
	}
}
