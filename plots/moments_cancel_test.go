package plots

import (
	"bytes"
	"errors"
	"strconv"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/trace/tracetest"
	"github.com/macroscope-hpc/macroscope/core/views/moments"
)

// TestMomentsFigureCanceled: the moment display of 50,000 rows with its
// Cancel closed stops with trace.ErrComputationCanceled and no figure,
// whether closed before it began or while it draws; with Cancel open it
// is the figure drawn without one, byte for byte.
func TestMomentsFigureCanceled(t *testing.T) {
	rows := make([]MomentRow, 50_000)
	for i := range rows {
		rows[i] = MomentRow{Label: "rank " + strconv.Itoa(i),
			Moments: moments.Moments{M0: 1 + float64(i%7), M1: 10 + float64(i%13), M2: 1, M3: 0.5}}
	}
	closed := tracetest.Closed()
	if img, err := MomentsFigure(rows, MomentsOptions{Cancel: closed}); !errors.Is(err, trace.ErrComputationCanceled) || img != nil {
		t.Errorf("canceled before: %d bytes, error %v", len(img), err)
	}
	// Closed once the figure is laid out: the drawing stops at its first
	// look, before the first row.
	f, err := newMomentsFigure(rows, MomentsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f.look.Cancel = closed
	if _, err := Render(f.width, f.height, f.format, f.draw); err != nil || !f.canceled {
		t.Errorf("canceled while drawing: canceled %v, error %v", f.canceled, err)
	}
	want, err := MomentsFigure(rows, MomentsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := MomentsFigure(rows, MomentsOptions{Cancel: make(chan struct{})})
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("with Cancel open: %v, not the figure drawn without it", err)
	}
}
