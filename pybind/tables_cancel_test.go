package pybind

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/macroscope-hpc/macroscope/core/trace/tracetest"
)

// The table works (a trace's states, a model's long table and cells, an
// aggregation's table and rows) canceled as they start export nothing and
// say so; complete, they hold the table the direct conversion gives.
func TestTableWorksCanceled(t *testing.T) {
	tr := &Trace{t: tracetest.Nested(64, 5000), format: "table"}
	mw, err := tr.StartMicro(`{"slices":200}`)
	if err != nil {
		t.Fatal(err)
	}
	m, err := mw.MicroModel()
	if err != nil {
		t.Fatal(err)
	}
	a, err := m.Aggregate(0, `{}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		start func() (*Work, error)
	}{
		{"states", func() (*Work, error) { return tr.StartTable("states") }},
		{"containers", func() (*Work, error) { return tr.StartTable("containers") }},
		{"types", func() (*Work, error) { return tr.StartTable("types") }},
		{"model", m.StartTable},
		{"cells", m.StartCells},
		{"aggregation", a.StartTable},
		{"rows", a.StartRows},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := tc.start()
			if err != nil {
				t.Fatal(err)
			}
			w.Cancel()
			if err := w.Export(1); err == nil || !strings.Contains(err.Error(), "canceled") {
				t.Fatalf("canceled: export error %v, want the cancellation", err)
			}
			one, two := held(t, tc.start), held(t, tc.start)
			if one.NumRows() == 0 || !array.RecordEqual(one, two) {
				t.Fatalf("two complete conversions differ, or are empty (%d rows)", one.NumRows())
			}
		})
	}
	if _, err := tr.StartTable("nodes"); err == nil || !strings.Contains(err.Error(), "nodes") {
		t.Errorf("an unknown table: %v", err)
	}
}

// held runs a table work to its end and takes its table from it (the
// work's cleanup would release it once the work is collected).
func held(t *testing.T, start func() (*Work, error)) arrow.RecordBatch {
	t.Helper()
	w, err := start()
	if err != nil {
		t.Fatal(err)
	}
	r, err := w.finished("table")
	if err != nil {
		t.Fatal(err)
	}
	rec := r.(*heldTable).take()
	t.Cleanup(rec.Release)
	return rec
}

// The pjdump of 640,000 states canceled as it starts gives nothing and
// writes no file; complete, it is Pjdump's text, and the file it writes
// holds that text.
func TestPjdumpWorkCanceled(t *testing.T) {
	tr := &Trace{t: tracetest.Nested(64, 5000), format: "table"}
	path := filepath.Join(t.TempDir(), "dump.pjdump")
	w, err := tr.StartPjdump(path, `{}`)
	if err != nil {
		t.Fatal(err)
	}
	w.Cancel()
	if _, err := w.JSON(); err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Fatalf("canceled: %v, want the cancellation", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("a canceled dump wrote %s: %v", path, err)
	}
	want, err := tr.Pjdump("", `{}`)
	if err != nil || len(want) < 640000 {
		t.Fatalf("Pjdump: %d bytes, %v", len(want), err)
	}
	w, _ = tr.StartPjdump("", `{}`)
	if got, err := w.JSON(); err != nil || got != want {
		t.Fatalf("the work's text: %d bytes, %v; Pjdump's %d", len(got), err, len(want))
	}
	w, _ = tr.StartPjdump(path, `{}`)
	if _, err := w.JSON(); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != want {
		t.Fatalf("the file written: %d bytes, %v", len(b), err)
	}
}
