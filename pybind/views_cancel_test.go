package pybind

import (
	"bytes"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/gen/synthmodel"
	"github.com/macroscope-hpc/macroscope/core/trace/tracetest"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
	"github.com/macroscope-hpc/macroscope/core/views/kaleido"
)

// viewWorks are the long computations on a trace in memory that Python
// runs as a Work: each starts one on tr and returns what it computed, as
// something to compare, once done.
var viewWorks = []struct {
	name   string
	start  func(tr *Trace) (*Work, error)
	result func(w *Work) (any, error)
}{
	{"model", func(tr *Trace) (*Work, error) { return tr.StartMicro(`{"slices":200}`) },
		func(w *Work) (any, error) {
			m, err := w.MicroModel()
			if err != nil {
				return nil, err
			}
			return m.Info()
		}},
	{"gantt", func(tr *Trace) (*Work, error) { return tr.StartPlotGantt(`{"width":300,"height":200}`) },
		func(w *Work) (any, error) { return w.Image() }},
	{"call tree", func(tr *Trace) (*Work, error) { return StartCallTreeOfTrace(tr, `{}`) },
		func(w *Work) (any, error) {
			c, err := w.CallTree()
			if err != nil {
				return nil, err
			}
			return c.Info()
		}},
	{"layout", func(tr *Trace) (*Work, error) {
		w, err := StartCallTreeOfTrace(tr, `{}`)
		if err != nil {
			return nil, err
		}
		c, err := w.CallTree()
		if err != nil {
			return nil, err
		}
		return c.StartLayout(`{"width":800}`)
	}, func(w *Work) (any, error) {
		k, err := w.Kaleidoscope()
		if err != nil {
			return nil, err
		}
		return k.Info()
	}},
	{"partial", func(tr *Trace) (*Work, error) {
		return tr.StartPartial(`{"slices":100}`, int64(tr.t.Start), int64(tr.t.End))
	}, func(w *Work) (any, error) { return w.Data() }},
}

// TestPartialWork: the partial model a Work builds is the bytes Partial
// returns.
func TestPartialWork(t *testing.T) {
	tr := &Trace{t: tracetest.Nested(16, 2000), format: "table"}
	want, err := tr.Partial(`{"slices":50}`, int64(tr.t.Start), int64(tr.t.End))
	if err != nil {
		t.Fatal(err)
	}
	w, err := tr.StartPartial(`{"slices":50}`, int64(tr.t.Start), int64(tr.t.End))
	if err != nil {
		t.Fatal(err)
	}
	got, err := w.Data()
	if err != nil || !bytes.Equal(got, want) || len(want) == 0 {
		t.Fatalf("the work's partial (%d bytes, %v) is not Partial's (%d bytes)", len(got), err, len(want))
	}
}

// TestViewWorksCanceled cancels each computation as soon as it starts, on
// a trace of 640,000 states: it ends canceled, with no result and no
// goroutine left; run to its end, it gives the same result twice.
func TestViewWorksCanceled(t *testing.T) {
	tr := &Trace{t: tracetest.Nested(64, 5000), format: "table"}
	for _, v := range viewWorks {
		t.Run(v.name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			w, err := v.start(tr)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Cancel(); err != nil {
				t.Fatal(err)
			}
			if got, err := v.result(w); err == nil || !strings.Contains(err.Error(), "canceled") {
				t.Fatalf("canceled: got %T and error %v, want the cancellation", got, err)
			}
			if n := tracetest.Settled(before); n > before {
				t.Fatalf("%d goroutines run after the cancellation, %d before", n, before)
			}
			one, two := completed(t, v.start, v.result, tr), completed(t, v.start, v.result, tr)
			if !equal(one, two) {
				t.Fatalf("two complete runs differ")
			}
		})
	}
}

// completed runs a work to its end and returns its result.
func completed(t *testing.T, start func(*Trace) (*Work, error), result func(*Work) (any, error), tr *Trace) any {
	t.Helper()
	w, err := start(tr)
	if err != nil {
		t.Fatal(err)
	}
	r, err := result(w)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func equal(a, b any) bool {
	if x, ok := a.([]byte); ok {
		return bytes.Equal(x, b.([]byte)) && len(x) > 0
	}
	return a == b
}

// moreWorks are the other long computations Python runs as a Work, each
// on an input of its own, built once: the spawn tree of 200,000 threads
// and their topology (the graph of the spawn links),
// the kaleidoscope figure of a 640,000-node call tree, the treemap of
// 50,000 aggregates, its figure and their overview figure.
var moreWorks = []struct {
	name   string
	start  func() (*Work, error)
	result func(w *Work) (any, error)
}{
	{"spawn tree", func() (*Work, error) { return StartSpawnTreeOfTrace(spawned(), "spawn") },
		func(w *Work) (any, error) {
			c, err := w.CallTree()
			if err != nil {
				return nil, err
			}
			return c.Info()
		}},
	{"topology", func() (*Work, error) { return spawned().StartTopology(`{}`) },
		func(w *Work) (any, error) {
			tp, err := w.Topology()
			if err != nil {
				return nil, err
			}
			return tp.Info()
		}},
	{"kaleidoscope figure", func() (*Work, error) { return layout().StartPlot(`{"view":"procedure"}`) },
		func(w *Work) (any, error) { return w.Image() }},
	{"treemap", func() (*Work, error) {
		return aggregation().StartTreemap(`{"value":"activity","width":720,"height":540}`)
	},
		func(w *Work) (any, error) {
			tm, err := w.Treemap()
			if err != nil {
				return nil, err
			}
			return tm.Info()
		}},
	{"treemap figure", func() (*Work, error) { return aggregation().StartPlotTreemap(`{"width":720,"height":540}`) },
		func(w *Work) (any, error) { return w.Image() }},
	{"overview figure", func() (*Work, error) { return aggregation().StartPlot(`{"width":720,"height":432}`) },
		func(w *Work) (any, error) { return w.Image() }},
	{"topology figure", func() (*Work, error) { return laidOut().StartPlot(`{"width":600,"height":500}`) },
		func(w *Work) (any, error) { return w.Image() }},
}

var (
	spawned = sync.OnceValue(func() *Trace { return &Trace{t: tracetest.Spawned(200_000), format: "table"} })
	layout  = sync.OnceValue(func() *Kaleidoscope {
		tree, err := kaleido.FromTrace(tracetest.Nested(64, 5000), kaleido.TraceOptions{})
		if err != nil {
			panic(err)
		}
		l, err := tree.Layout(kaleido.Options{Width: 800})
		if err != nil {
			panic(err)
		}
		return &Kaleidoscope{l: l}
	})
	// laidOut: the topology of the spawn links of 20,000 threads, laid
	// out (a few iterations: any positions draw).
	laidOut = sync.OnceValue(func() *Topology {
		tp, err := (&Trace{t: tracetest.Spawned(20_000), format: "table"}).Topology(`{}`)
		if err != nil {
			panic(err)
		}
		if _, err := tp.Layout(`{"iterations":2}`); err != nil {
			panic(err)
		}
		return tp
	})
	// aggregation: every process of a model of 50,000 apart.
	aggregation = sync.OnceValue(func() *Aggregation {
		sc := synthmodel.Wide(4)
		m, err := sc.Model()
		if err != nil {
			panic(err)
		}
		part := synthmodel.LeafParts(m)
		in := aggregate.Input{Tree: m.Tree, Slices: m.Slices, States: len(m.States), Values: m.Values, Cells: m.Cells}
		return &Aggregation{model: &MicroModel{m: m, in: in}, part: part, kind: aggregate.KindSpatial}
	})
)

// TestMoreWorksCanceled is TestViewWorksCanceled for moreWorks.
func TestMoreWorksCanceled(t *testing.T) {
	for _, v := range moreWorks {
		t.Run(v.name, func(t *testing.T) {
			v.start() // builds the input before the goroutines are counted
			before := runtime.NumGoroutine()
			w, err := v.start()
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Cancel(); err != nil {
				t.Fatal(err)
			}
			if got, err := v.result(w); err == nil || !strings.Contains(err.Error(), "canceled") {
				t.Fatalf("canceled: got %T and error %v, want the cancellation", got, err)
			}
			if n := tracetest.Settled(before); n > before {
				t.Fatalf("%d goroutines run after the cancellation, %d before", n, before)
			}
			start := func(*Trace) (*Work, error) { return v.start() }
			one, two := completed(t, start, v.result, nil), completed(t, start, v.result, nil)
			if !equal(one, two) {
				t.Fatalf("two complete runs differ")
			}
		})
	}
}

// everyCell returns the trace of 640,000 states of the moments' tests and
// the aggregation of its model of 200 slices into its 12,800 cells (every
// resource apart in every slice).
func everyCell(t *testing.T) (*Trace, *Aggregation) {
	t.Helper()
	tr := &Trace{t: tracetest.Nested(64, 5000), format: "table"}
	w, err := tr.StartMicro(`{"slices":200}`)
	if err != nil {
		t.Fatal(err)
	}
	m, err := w.MicroModel()
	if err != nil {
		t.Fatal(err)
	}
	return tr, &Aggregation{model: m, part: synthmodel.CellParts(m.m), kind: aggregate.KindSpatiotemporal}
}

// TestMomentsWorksCanceled: the moments of a trace in memory and of the
// 12,800 aggregates of a model of it (every resource apart in every
// slice) end canceled when canceled at their start, with nothing left
// running; run to their end they give the same result twice.
func TestMomentsWorksCanceled(t *testing.T) {
	tr, agg := everyCell(t)
	rows := func(w *Work) (any, error) {
		mo, err := w.Moments()
		if err != nil {
			return nil, err
		}
		return len(mo.rows), nil
	}
	for _, v := range []struct {
		name  string
		start func() (*Work, error)
		rows  int
	}{
		// Not by state: tracetest.Nested gives an outer state before the
		// one nested in it, where readers give the order they complete
		// in, which the moments by state need.
		{"trace", func() (*Work, error) { return tr.StartMoments(`{}`) }, 64},
		{"aggregates", func() (*Work, error) { return agg.StartMoments(`{}`) }, 64 * 200},
	} {
		t.Run(v.name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			w, err := v.start()
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Cancel(); err != nil {
				t.Fatal(err)
			}
			if got, err := rows(w); err == nil || !strings.Contains(err.Error(), "canceled") {
				t.Fatalf("canceled: got %v and error %v, want the cancellation", got, err)
			}
			if n := tracetest.Settled(before); n > before {
				t.Fatalf("%d goroutines run after the cancellation, %d before", n, before)
			}
			start := func(*Trace) (*Work, error) { return v.start() }
			one, two := completed(t, start, rows, nil), completed(t, start, rows, nil)
			if one != v.rows || two != v.rows {
				t.Fatalf("%v and %v rows, want %d", one, two, v.rows)
			}
		})
	}
}
