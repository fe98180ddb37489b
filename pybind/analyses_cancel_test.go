package pybind

import (
	"bytes"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/trace/tracetest"
)

// TestAnalysisWorksCanceled: every analysis of a trace in memory, run as
// a Work (Trace.StartAnalyze) on a trace of 640,000 states and canceled as
// soon as it starts, ends canceled in the replay of the trace, with no
// result and nothing left running; run to its end on a run with MPI
// calls, it gives the result Analyze gives.
func TestAnalysisWorksCanceled(t *testing.T) {
	big := &Trace{t: tracetest.Nested(64, 5000), format: "table"}
	held, err := formats.ReadFile("../testdata/critpath/cp_delay.trace", "paje")
	if err != nil {
		t.Fatal(err)
	}
	mpi := &Trace{t: held, format: "paje"}
	for _, kind := range analysisNames() {
		t.Run(kind, func(t *testing.T) {
			before := runtime.NumGoroutine()
			w, err := big.StartAnalyze(kind, `{}`)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Cancel(); err != nil {
				t.Fatal(err)
			}
			if a, err := w.Analysis(); err == nil || !strings.Contains(err.Error(), "canceled") {
				t.Fatalf("canceled: got %v and error %v, want the cancellation", a != nil, err)
			}
			if n := tracetest.Settled(before); n > before {
				t.Fatalf("%d goroutines run after the cancellation, %d before", n, before)
			}
			w, err = mpi.StartAnalyze(kind, `{}`)
			if err != nil {
				t.Fatal(err)
			}
			got, err := w.Analysis()
			if err != nil {
				t.Fatal(err)
			}
			defer got.Close()
			want, err := mpi.Analyze(kind, `{}`)
			if err != nil {
				t.Fatal(err)
			}
			defer want.Close()
			gi, _ := got.Info()
			wi, _ := want.Info()
			if gi != wi || gi == "" {
				t.Fatalf("as a Work: %s, not Analyze's %s", gi, wi)
			}
		})
	}
}

// TestDelayCostsCanceled: the delay costs of a critical path, with their
// channel closed, stop with trace.ErrComputationCanceled; computed then
// as a Work, they are those of the table computed when asked.
func TestDelayCostsCanceled(t *testing.T) {
	held, err := formats.ReadFile("../testdata/critpath/cp_delay.trace", "paje")
	if err != nil {
		t.Fatal(err)
	}
	tr := &Trace{t: held, format: "paje"}
	a, err := tr.Analyze("critical_path", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := a.delays(tracetest.Closed()); !errors.Is(err, trace.ErrComputationCanceled) {
		t.Fatalf("closed channel: %v, want the cancellation", err)
	}
	w, err := a.StartDelayCosts()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Err(); err != nil {
		t.Fatal(err)
	}
	b, err := tr.Analyze("critical_path", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	got := a.tables["delay_costs"](cmem)
	defer got.Release()
	want := b.tables["delay_costs"](cmem)
	defer want.Release()
	if got.NumRows() == 0 || got.NumRows() != want.NumRows() || !array.RecordEqual(got, want) {
		t.Fatalf("delay costs as a Work: %d rows, computed when asked: %d", got.NumRows(), want.NumRows())
	}
	if p, err := (&Analysis{kind: "flat profile"}).StartDelayCosts(); err == nil {
		t.Fatalf("a flat profile's delay costs: %v, want an error", p)
	}
}

// TestMomentsPlotCanceled: the moment display of the 12,800 aggregates of
// a model of 64 resources x 200 slices, run as a Work and canceled as
// soon as it starts, ends canceled with nothing left running; run to its
// end it is the figure Plot draws, byte for byte.
func TestMomentsPlotCanceled(t *testing.T) {
	_, agg := everyCell(t)
	w, err := agg.StartMoments(`{}`)
	if err != nil {
		t.Fatal(err)
	}
	mo, err := w.Moments()
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	w, err = mo.StartPlot(`{}`)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Cancel(); err != nil {
		t.Fatal(err)
	}
	if img, err := w.Image(); err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Fatalf("canceled: %d bytes and error %v, want the cancellation", len(img), err)
	}
	if n := tracetest.Settled(before); n > before {
		t.Fatalf("%d goroutines run after the cancellation, %d before", n, before)
	}
	want, err := mo.Plot(`{}`)
	if err != nil {
		t.Fatal(err)
	}
	if w, err = mo.StartPlot(`{}`); err != nil {
		t.Fatal(err)
	}
	if got, err := w.Image(); err != nil || !bytes.Equal(got, want) || len(want) == 0 {
		t.Fatalf("as a Work: %v, not the figure Plot draws", err)
	}
}
