package plots

import (
	"bytes"
	"errors"
	"runtime"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/trace/tracetest"
)

// TestGanttCanceled: the Gantt figure with its Cancel closed stops with
// trace.ErrComputationCanceled and no figure, whether closed before it
// began or while it draws, and leaves nothing running; with Cancel open it
// is the figure drawn without one, byte for byte.
func TestGanttCanceled(t *testing.T) {
	tr := tracetest.Nested(32, 4000)
	before := runtime.NumGoroutine()
	closed := make(chan struct{})
	close(closed)
	if img, err := Gantt(tr, GanttOptions{Cancel: closed}); !errors.Is(err, trace.ErrComputationCanceled) || img != nil {
		t.Errorf("canceled before: %d bytes, error %v", len(img), err)
	}
	// Closed once the layout is done: the drawing stops.
	stop := make(chan struct{})
	gv, err := newGantt(tr, GanttOptions{Cancel: stop, Width: 640, Height: 400, Format: PNG})
	if err != nil {
		t.Fatal(err)
	}
	close(stop)
	if _, err := Render(gv.opt.Width, gv.opt.Height, gv.opt.Format, gv.draw); err != nil || !gv.canceled {
		t.Errorf("canceled while drawing: canceled %v, error %v", gv.canceled, err)
	}
	if n := tracetest.Settled(before); n > before {
		t.Errorf("%d goroutines left running, %d before", n, before)
	}
	want, err := Gantt(tr, GanttOptions{Width: 640, Height: 400})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Gantt(tr, GanttOptions{Width: 640, Height: 400, Cancel: make(chan struct{})})
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("with Cancel open: %v, not the figure drawn without it", err)
	}
}
