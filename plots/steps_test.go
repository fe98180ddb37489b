package plots

import (
	"slices"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/hier"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
)

// TestStepMarks: a mark at each step's start in the window and one at the
// end of the last step; none outside the window.
func TestStepMarks(t *testing.T) {
	m := &micro.Model{Start: 100, End: 1000, Steps: []micro.Step{
		{Number: 1, Start: 50, End: 300}, {Number: 2, Start: 300, End: 600}, {Number: 3, Start: 600, End: 900},
	}}
	want := []StepMark{{300, "step 2"}, {600, "step 3"}, {900, ""}}
	if got := StepMarks(m); !slices.Equal(got, want) {
		t.Errorf("marks %v, want %v", got, want)
	}
	m.End = 800 // the last step ends after the window
	if got := StepMarks(m); !slices.Equal(got, want[:2]) {
		t.Errorf("marks %v, want %v", got, want[:2])
	}
}

// TestOverviewMarksSteps: the overview of a one-state model, white, draws
// a dashed grey line at each step's start and at the last one's end,
// where the time axis puts them (anti-aliased: a pixel either side), and
// nothing elsewhere in the data area.
func TestOverviewMarksSteps(t *testing.T) {
	b := hier.NewBuilder("root")
	b.Add(0, "r0")
	tree, _ := b.Build()
	const slices = 10
	values := make([]float64, slices)
	for k := range values {
		values[k] = 1
	}
	m := &micro.Model{Tree: tree, Container: make([]int32, tree.Len()), States: []string{"work"}, Slices: slices,
		Start: 0, End: 10 * trace.Second, Values: values,
		Steps: []micro.Step{{Number: 4, Start: 2 * trace.Second, End: 5 * trace.Second}, {Number: 5, Start: 5 * trace.Second, End: 7 * trace.Second}}}
	in := aggregate.Input{Tree: tree, Slices: slices, States: 1, Values: values}
	colors, err := ResolveColors(m.States, nil, map[string]string{"work": "#ffffff"})
	if err != nil {
		t.Fatal(err)
	}
	ov := &overview{m: m, in: in, p: &aggregate.Partition{Parts: []aggregate.Part{{Node: 0, First: 0, Last: slices - 1}}},
		opt: OverviewOptions{Width: 500, Height: 300, Colors: colors, PixelThreshold: 1}}
	img, err := Render(500, 300, PNG, ov.draw)
	if err != nil {
		t.Fatal(err)
	}
	im := decodePNG(t, img)
	d := ov.data
	dark := func(x float64) int { // dark pixels down the column at x (points)
		n := 0
		for y := float64(d.Min.Y) + 20; y < float64(d.Max.Y)-2; y++ {
			for _, dx := range []float64{-1, 0, 1} { // a pixel either side: the line is thinner than one
				if c := pixelAt(im, x+dx*72/dpi, y); c.R < 220 && c.G < 220 && c.B < 220 {
					n++
					break
				}
			}
		}
		return n
	}
	xAt := func(s float64) float64 { return float64(d.Min.X) + s/10*float64(d.Max.X-d.Min.X) }
	for _, s := range []float64{2, 5, 7} {
		if n := dark(xAt(s)); n < 20 {
			t.Errorf("at %g s: %d dark pixels down the line", s, n)
		}
	}
	for _, s := range []float64{1, 3.5, 6, 8.5} {
		if n := dark(xAt(s)); n != 0 {
			t.Errorf("at %g s: %d dark pixels, no step there", s, n)
		}
	}
}
