package moments

import (
	"errors"
	"reflect"
	"runtime"
	"testing"

	"strconv"

	"github.com/macroscope-hpc/macroscope/core/gen/synthmodel"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/trace/tracetest"
)

// TestCanceled: the moments of a trace in memory and of the aggregates of
// a partition, with their Cancel closed, stop with
// trace.ErrComputationCanceled, no result and nothing left running; with
// Cancel open, they are what they are without one.
func TestCanceled(t *testing.T) {
	tr := flat(64, 5000)
	m, err := micro.Build(tr, micro.Options{Slices: 50})
	if err != nil {
		t.Fatal(err)
	}
	// Every resource apart in every slice: 3,200 aggregates.
	part := synthmodel.CellParts(m)
	closed := make(chan struct{})
	close(closed)
	before := runtime.NumGoroutine()
	if r, err := Compute(tr, Options{Cancel: closed}); !errors.Is(err, trace.ErrComputationCanceled) || r != nil {
		t.Errorf("moments canceled: result %v, error %v", r != nil, err)
	}
	for _, byState := range []bool{false, true} {
		rows, index, err := Aggregates(tr, m, part, Options{ByState: byState, Cancel: closed})
		if !errors.Is(err, trace.ErrComputationCanceled) || rows != nil || index != nil {
			t.Errorf("by state %v: aggregates' moments canceled: %d rows, error %v", byState, len(rows), err)
		}
	}
	if n := tracetest.Settled(before); n > before {
		t.Errorf("%d goroutines left running, %d before", n, before)
	}
	want, err := Compute(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Compute(tr, Options{Cancel: make(chan struct{})})
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("moments with Cancel open: %v, not those computed without it", err)
	}
	for _, byState := range []bool{false, true} {
		wantRows, wantIndex, err := Aggregates(tr, m, part, Options{ByState: byState})
		if err != nil {
			t.Fatal(err)
		}
		if n := len(part.Parts) * map[bool]int{false: 1, true: 2}[byState]; len(wantRows) != n {
			t.Errorf("by state %v: %d rows, want %d", byState, len(wantRows), n)
		}
		rows, index, err := Aggregates(tr, m, part, Options{ByState: byState, Cancel: make(chan struct{})})
		if err != nil || !reflect.DeepEqual(rows, wantRows) || !reflect.DeepEqual(index, wantIndex) {
			t.Errorf("by state %v: aggregates' moments with Cancel open: %v, not those computed without it", byState, err)
		}
	}
}

// flat returns a trace of resources threads under one process, each
// making calls calls of 10 ns, 2 ns apart, "compute" or (one in three)
// "exchange": a trace of resources x calls states, none nested.
func flat(resources, calls int) *trace.Trace {
	t := trace.New()
	t.DefineType(trace.Type{Name: "Process", Kind: trace.KindContainer, Parent: trace.None})
	t.DefineType(trace.Type{Name: "Thread", Kind: trace.KindContainer, Parent: 0})
	t.DefineType(trace.Type{Name: "Function", Kind: trace.KindState, Parent: 1})
	t.DefineValue(trace.Value{Type: 2, Name: "compute"})
	t.DefineValue(trace.Value{Type: 2, Name: "exchange"})
	end := trace.Time(12 * calls)
	t.CreateContainer(trace.Container{Name: "process", Type: 0, Parent: 0, Start: 0, End: end})
	for r := range resources {
		c := int32(len(t.Containers))
		t.CreateContainer(trace.Container{Name: "thread " + strconv.Itoa(r), Type: 1, Parent: 1, Start: 0, End: end})
		for k := range calls {
			at := trace.Time(12 * k)
			t.State(trace.State{Container: c, Type: 2, Value: int32(min(k%3, 1)), Start: at, End: at + 10, Order: int32(k)})
		}
	}
	t.Finish(0, end)
	return t
}
