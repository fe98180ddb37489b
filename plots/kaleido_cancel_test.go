package plots

import (
	"bytes"
	"errors"
	"runtime"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/trace/tracetest"
	"github.com/macroscope-hpc/macroscope/core/views/kaleido"
)

// TestKaleidoscopeCanceled: the kaleidoscope figure with its Cancel closed
// stops with trace.ErrComputationCanceled and no figure, whether closed
// before it began or while it draws, and leaves nothing running; with
// Cancel open it is the figure drawn without one, byte for byte.
func TestKaleidoscopeCanceled(t *testing.T) {
	tree, err := kaleido.FromTrace(tracetest.Nested(32, 4000), kaleido.TraceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := tree.Layout(kaleido.Options{Width: 400})
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	closed := tracetest.Closed()
	if img, err := Kaleidoscope(l, KaleidoscopeOptions{Cancel: closed}); !errors.Is(err, trace.ErrComputationCanceled) || img != nil {
		t.Errorf("canceled before: %d bytes, error %v", len(img), err)
	}
	// Closed once the figure is set up: the drawing stops at its first
	// look, before the families are painted.
	paint, err := newKaleidoPaint(l, KaleidoscopeByPE, nil)
	if err != nil {
		t.Fatal(err)
	}
	k := &kaleidoFigure{l: l, paint: paint, opt: KaleidoscopeOptions{Cancel: closed, Format: PNG},
		look: trace.Looker{Cancel: closed}}
	if _, err := Render(500, 500, PNG, k.draw); err != nil || !k.canceled {
		t.Errorf("canceled while drawing: canceled %v, error %v", k.canceled, err)
	}
	if n := tracetest.Settled(before); n > before {
		t.Errorf("%d goroutines left running, %d before", n, before)
	}
	for _, view := range []string{KaleidoscopeByPE, KaleidoscopeByProcedure, KaleidoscopeByTime} {
		want, err := Kaleidoscope(l, KaleidoscopeOptions{View: view})
		if err != nil {
			t.Fatal(err)
		}
		got, err := Kaleidoscope(l, KaleidoscopeOptions{View: view, Cancel: make(chan struct{})})
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s view with Cancel open: %v, not the figure drawn without it", view, err)
		}
	}
}
