package plots

import (
	"bytes"
	"errors"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/gen/synthmodel"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/trace/tracetest"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
)

// TestOverviewCanceled: the overview figure of 200,000 aggregates with its
// Cancel closed stops with trace.ErrComputationCanceled and no figure,
// whether closed before it began or while it draws; with Cancel open it is
// the figure drawn without one, byte for byte.
func TestOverviewCanceled(t *testing.T) {
	sc := synthmodel.Wide(4)
	m, err := sc.Model()
	if err != nil {
		t.Fatal(err)
	}
	in := aggregate.Input{Tree: m.Tree, Slices: m.Slices, States: len(m.States), Values: m.Values, Cells: m.Cells}
	all := synthmodel.CellParts(m)
	closed := tracetest.Closed()
	if img, err := Overview(m, in, all, OverviewOptions{Cancel: closed}); !errors.Is(err, trace.ErrComputationCanceled) || img != nil {
		t.Errorf("canceled before: %d bytes, error %v", len(img), err)
	}
	// Closed once the figure is set up: the drawing stops at its first
	// look.
	ov := &overview{m: m, in: in, p: all, opt: OverviewOptions{Width: 720, Height: 432, Format: PNG, PixelThreshold: 1, Cancel: closed}}
	ov.opt.Colors, _ = ResolveColors(m.States, m.Colors, nil)
	if _, err := Render(ov.opt.Width, ov.opt.Height, ov.opt.Format, ov.draw); err != nil || !ov.canceled || len(ov.shown) != 0 {
		t.Errorf("canceled while drawing: canceled %v, %d states drawn, error %v", ov.canceled, len(ov.shown), err)
	}
	want, err := Overview(m, in, all, OverviewOptions{Width: 720, Height: 432})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Overview(m, in, all, OverviewOptions{Width: 720, Height: 432, Cancel: make(chan struct{})})
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("Cancel open: %v, not the figure drawn without it", err)
	}
}
