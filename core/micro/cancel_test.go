package micro

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"runtime"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/trace/tracetest"
)

// TestBuildCanceled: a model built from a trace in memory with its Cancel
// closed stops with trace.ErrComputationCanceled, no model and nothing
// left running, by each of its builders (the replay of the states, the
// dense builders of the other metrics); with Cancel open, it is the model
// built without one.
func TestBuildCanceled(t *testing.T) {
	tr := tracetest.Nested(64, 5000)
	for _, opt := range []Options{
		{Slices: 200},
		{Slices: 200, Metric: StateAverageDuration},
		{Slices: 200, Depth: 1},
	} {
		before := runtime.NumGoroutine()
		stop := make(chan struct{})
		close(stop)
		canceled := opt
		canceled.Cancel = stop
		m, err := Build(tr, canceled)
		if !errors.Is(err, trace.ErrComputationCanceled) || m != nil {
			t.Errorf("%+v canceled: model %v, error %v, want %v", opt, m != nil, err, trace.ErrComputationCanceled)
		}
		if n := tracetest.Settled(before); n > before {
			t.Errorf("%+v canceled: %d goroutines left running, %d before", opt, n, before)
		}
		want, err := Build(tr, opt)
		if err != nil {
			t.Fatal(err)
		}
		open := opt
		open.Cancel = make(chan struct{})
		got, err := Build(tr, open)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%+v with Cancel open: %v, not the model built without it", opt, err)
		}
	}
}

// denseStep runs the dense builder of opt's metric on tr as Build does,
// its looks at cancel.
func denseStep(t *testing.T, tr *trace.Trace, opt Options, cancel <-chan struct{}) ([]float64, error) {
	t.Helper()
	metric, err := ParseMetric(string(opt.Metric))
	if err != nil {
		t.Fatal(err)
	}
	if opt, err = opt.Resolve(tr.Start, tr.End); err != nil {
		t.Fatal(err)
	}
	start, end, err := window(tr, opt)
	if err != nil {
		t.Fatal(err)
	}
	kind := metric.entityKind()
	typeSel, err := selectTypes(tr, kind, typeNames(opt))
	if err != nil {
		t.Fatal(err)
	}
	key, _ := ParseKey(string(opt.Key))
	m, leafOf, categoryOf, slot, err := layout(tr, metric, key, typeSel, scanUsage(tr, kind, typeSel, opt), opt, start, end)
	if err != nil {
		t.Fatal(err)
	}
	g := grid{start: start, end: end, n: int64(opt.Slices), nCat: len(m.States), leaves: len(m.Tree.Leaves)}
	look := &trace.Looker{Cancel: cancel}
	switch metric {
	case EventCount:
		return buildEvents(tr, g, leafOf, categoryOf, typeSel, look, make([]trace.Role, len(tr.Values)), newLeftOuts(opt.Slices))
	case VariableAverage:
		return buildVariables(tr, g, leafOf, categoryOf, typeSel, look)
	}
	return buildStates(tr, g, leafOf, slot, categoryOf, typeSel, opt.Depth, metric == StateAverageDuration, look,
		make([]trace.Role, len(tr.Values)), newLeftOuts(opt.Slices))
}

// TestDenseStepCanceled: each dense builder (the step Build takes once it
// has looked at Cancel) stops inside with trace.ErrComputationCanceled
// and no values when its Looker's channel is closed; with the channel
// open its values are those of Build without one, cell for cell.
func TestDenseStepCanceled(t *testing.T) {
	nested := tracetest.Nested(64, 5000)
	rng := rand.New(rand.NewPCG(5, 6))
	mixed := randomTrace(rng, 40)
	withEventsAndVariables(rng, mixed)
	for _, c := range []struct {
		tr  *trace.Trace
		opt Options
	}{
		{nested, Options{Slices: 200, Depth: 1}},
		{nested, Options{Slices: 200, Depth: 1, Metric: StateAverageDuration}},
		{nested, Options{Slices: 50}},                               // innermost: the exclusive pieces
		{nested, Options{Slices: 50, Metric: StateAverageDuration}}, // the same, the mean stays
		{mixed, Options{Slices: 40, Metric: EventCount}},
		{mixed, Options{Slices: 40, Metric: VariableAverage}},
	} {
		values, err := denseStep(t, c.tr, c.opt, tracetest.Closed())
		if !errors.Is(err, trace.ErrComputationCanceled) || values != nil {
			t.Errorf("%+v canceled: %d values, error %v, want none and %v", c.opt, len(values), err, trace.ErrComputationCanceled)
		}
		got, err := denseStep(t, c.tr, c.opt, make(chan struct{}))
		if err != nil {
			t.Fatalf("%+v open: %v", c.opt, err)
		}
		want, err := denseStep(t, c.tr, c.opt, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%+v: the values with Cancel open differ from those without", c.opt)
		}
		m, err := Build(c.tr, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		if c.opt.Depth == Innermost && c.opt.Metric != EventCount && c.opt.Metric != VariableAverage {
			continue // Build replays these into the accumulator's model instead
		}
		var dense []float64
		if m.Cells != nil {
			dense = m.Cells.Dense(len(m.States))
		} else {
			dense = m.Values
		}
		if !reflect.DeepEqual(dense, got) {
			t.Errorf("%+v: the step's values are not the model's", c.opt)
		}
	}
}

// TestEachRun: the runs of cells cover [0, n) once, in order, and a
// closed channel stops before the first.
func TestEachRun(t *testing.T) {
	for _, n := range []int{0, 1, cellRun - 1, cellRun, 3*cellRun + 5} {
		next := 0
		err := eachRun(n, &trace.Looker{Cancel: make(chan struct{})}, func(lo, hi int) {
			if lo != next || hi <= lo || hi-lo > cellRun {
				t.Errorf("n=%d: run [%d, %d) after %d", n, lo, hi, next)
			}
			next = hi
		})
		if err != nil || next != n {
			t.Errorf("n=%d: covered %d, error %v", n, next, err)
		}
		calls := 0
		err = eachRun(n, &trace.Looker{Cancel: tracetest.Closed()}, func(lo, hi int) { calls++ })
		if n > 0 && (!errors.Is(err, trace.ErrComputationCanceled) || calls != 0) {
			t.Errorf("n=%d closed: %d runs, error %v", n, calls, err)
		}
	}
}
