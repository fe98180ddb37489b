package plots

import (
	"bytes"
	"errors"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/gen/synthmodel"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/trace/tracetest"
)

// TestTreemapCanceled: the treemap figure of 50,000 aggregates with its
// Cancel closed stops with trace.ErrComputationCanceled and no figure,
// whether closed before it began or while it draws; with Cancel open it
// is the figure drawn without one, byte for byte.
func TestTreemapCanceled(t *testing.T) {
	sc := synthmodel.Wide(2)
	m, err := sc.Model()
	if err != nil {
		t.Fatal(err)
	}
	all := synthmodel.LeafParts(m)
	closed := tracetest.Closed()
	if img, err := Treemap(m, all, TreemapOptions{Cancel: closed}); !errors.Is(err, trace.ErrComputationCanceled) || img != nil {
		t.Errorf("canceled before: %d bytes, error %v", len(img), err)
	}
	// Closed once the map is laid out: the drawing stops at its first
	// look, at the first cell.
	f, err := newTreemapFigure(m, all, TreemapOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f.opt.Cancel, f.look.Cancel = closed, closed
	if _, err := Render(f.opt.Width, f.opt.Height, f.opt.Format, f.draw); err != nil || !f.canceled {
		t.Errorf("canceled while drawing: canceled %v, error %v", f.canceled, err)
	}
	for _, proportions := range []bool{false, true} {
		want, err := Treemap(m, all, TreemapOptions{Proportions: proportions})
		if err != nil {
			t.Fatal(err)
		}
		got, err := Treemap(m, all, TreemapOptions{Proportions: proportions, Cancel: make(chan struct{})})
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("proportions %v, Cancel open: %v, not the figure drawn without it", proportions, err)
		}
	}
}
