package plots

import (
	"bytes"
	"image/png"
	"os"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/gen/bsp"
	"github.com/macroscope-hpc/macroscope/core/trace"
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
