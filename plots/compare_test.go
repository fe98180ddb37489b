package plots

import (
	"bytes"
	"errors"
	"image/png"
	"os"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/gen/bsp"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/trace/tracetest"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
	"github.com/macroscope-hpc/macroscope/core/views/compare"
)

// TestCompareOverview draws two runs of 40 ranks, one slowed, and checks
// the figure: its size, the panels one above the other, and the outline
// of the first row in the colour of the largest divergence.
func TestCompareOverview(t *testing.T) {
	a := bsp.Scenario{Ranks: 40, PerNode: 10, Iterations: 50, Noise: 0.01, Seed: 1}
	b := a
	b.Seed, b.Slow, b.Slowdown = 2, []int{13}, 0.3
	set, err := compare.Build([]compare.Input{{Name: "a", Source: a.Source()}, {Name: "b", Source: b.Source()}}, compare.Options{Slices: 20}, trace.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e, _ := aggregate.New(aggregate.KindSpatiotemporal, set.Input(), aggregate.Options{Normalize: true})
	part, _ := e.Solve(0.3)
	rows := compare.NodesOf(set.PartitionRows(part))
	tab, err := set.Differences(rows, compare.TableOptions{Rank: compare.ByOutlier})
	if err != nil {
		t.Fatal(err)
	}
	img, err := CompareOverview(set, rows, tab.Rows[:3], CompareOptions{Title: "slowed rank 13"})
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("KEEP_FIGURES") != "" {
		os.WriteFile("/tmp/compare.png", img, 0o644)
	}
	pic, err := png.Decode(bytes.NewReader(img))
	if err != nil {
		t.Fatal(err)
	}
	// 10 in x (2 x 2.6 + 1) in at 96 dpi.
	if b := pic.Bounds(); b.Dx() != 960 || b.Dy() != 595 {
		t.Errorf("figure %v", b)
	}
	lo, hi := divergenceRange(tab.Rows[:3])
	want := divergenceColor(hi, lo, hi)
	found := 0
	bounds := pic.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			r, g, b, _ := pic.At(x, y).RGBA()
			if uint8(r>>8) == want.R && uint8(g>>8) == want.G && uint8(b>>8) == want.B {
				found++
			}
		}
	}
	if found < 20 {
		t.Errorf("%d pixels of the top row's outline colour", found)
	}
	if _, err := CompareOverview(set, rows, nil, CompareOptions{Runs: []int{3}}); err == nil {
		t.Error("run 3 of 2 drawn")
	}
}

// TestCompareOverviewCanceled: the comparison figure with its Cancel
// closed stops with trace.ErrComputationCanceled and no figure, closed
// before it began or while it draws (in the first run's overview); with
// Cancel open it is the figure drawn without one, byte for byte.
func TestCompareOverviewCanceled(t *testing.T) {
	a := bsp.Scenario{Ranks: 200, PerNode: 10, Iterations: 50, Noise: 0.01, Seed: 1}
	b := a
	b.Seed, b.Slow, b.Slowdown = 2, []int{13}, 0.3
	set, err := compare.Build([]compare.Input{{Name: "a", Source: a.Source()}, {Name: "b", Source: b.Source()}}, compare.Options{Slices: 100}, trace.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var rows []compare.Row
	for _, n := range set.Resources.Leaves {
		for k := range set.Slices {
			rows = append(rows, compare.Row{Node: n, First: int32(k), Last: int32(k)})
		}
	}
	tab, err := set.Differences(rows[:50], compare.TableOptions{Rank: compare.ByOutlier})
	if err != nil {
		t.Fatal(err)
	}
	closed := tracetest.Closed()
	if img, err := CompareOverview(set, rows, tab.Rows[:3], CompareOptions{Cancel: closed}); !errors.Is(err, trace.ErrComputationCanceled) || img != nil {
		t.Errorf("canceled before: %d bytes, error %v", len(img), err)
	}
	part := &aggregate.Partition{}
	for _, r := range rows {
		part.Parts = append(part.Parts, aggregate.Part{Node: r.Node, First: r.First, Last: r.Last})
	}
	opt := CompareOptions{Cancel: closed}
	opt.Colors, _ = ResolveColors(set.States, set.Colors, nil)
	canceled := false
	if _, err := Render(700, 500, PNG, compareDraw(set, []int{0, 1}, part, tab.Rows[:3], opt, &canceled)); err != nil || !canceled {
		t.Errorf("canceled while drawing: canceled %v, error %v", canceled, err)
	}
	want, err := CompareOverview(set, rows, tab.Rows[:3], CompareOptions{Title: "t"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := CompareOverview(set, rows, tab.Rows[:3], CompareOptions{Title: "t", Cancel: make(chan struct{})})
	if err != nil || !bytes.Equal(got, want) || len(want) == 0 {
		t.Errorf("with Cancel open: %v, not the figure drawn without it", err)
	}
}
