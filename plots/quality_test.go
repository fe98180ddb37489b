package plots

import (
	"bytes"
	"errors"
	"image/png"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/gen/synthmodel"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
)

func scenarioLevels(t *testing.T) ([]aggregate.Level, *aggregate.Spatial) {
	t.Helper()
	sc := synthmodel.Scenario{Fanout: [5]int{4, 2, 2, 2, 3}, Slices: 2, Noise: 0.002, Contrast: 0.4}
	m, err := sc.Model()
	if err != nil {
		t.Fatal(err)
	}
	e, err := aggregate.NewSpatial(synthmodel.Input(m), aggregate.Options{Normalize: true})
	if err != nil {
		t.Fatal(err)
	}
	levels, err := aggregate.SignificantCompact(e, 0)
	if err != nil {
		t.Fatal(err)
	}
	return levels, e
}

func TestQualityCurves(t *testing.T) {
	levels, _ := scenarioLevels(t)
	data, err := QualityCurves(levels, 1, 1, QualityOptions{Width: 450, Height: 300, Recommended: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 600 || b.Dy() != 400 { // 96 dpi
		t.Fatalf("image is %dx%d", b.Dx(), b.Dy())
	}
	svg, err := QualityCurves(levels, 1, 1, QualityOptions{Format: SVG, Title: "scenario", Recommended: 0.2, LogP: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"scenario", "gain", "loss", "recommended p = 0.2", "aggregates"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("the SVG has no %q", want)
		}
	}
	var ae *errs.ArgumentError
	if _, err := QualityCurves(nil, 1, 1, QualityOptions{}); !errors.As(err, &ae) {
		t.Errorf("no levels: %v", err)
	}
	if _, err := QualityCurves(levels, math.NaN(), 0, QualityOptions{Width: -1, Height: 10}); !errors.As(err, &ae) {
		t.Errorf("negative width: %v", err)
	}
}

// The overview names the groups of the hierarchy along strips, and the
// rows by the names of the nodes they stand for.
func TestOverviewNamesTheGroups(t *testing.T) {
	sc := synthmodel.Scenario{Fanout: [5]int{4, 2, 2, 2, 3}, Slices: 5, Noise: 0.002, Contrast: 0.4}
	m, err := sc.Model()
	if err != nil {
		t.Fatal(err)
	}
	in := synthmodel.Input(m)
	e, err := aggregate.NewSpatiotemporal(in, aggregate.Options{Normalize: true})
	if err != nil {
		t.Fatal(err)
	}
	part, err := e.Solve(0.2)
	if err != nil {
		t.Fatal(err)
	}
	svg, err := Overview(m, in, part, OverviewOptions{Format: SVG, Width: 10 * vg.Inch, Height: 8 * vg.Inch})
	if err != nil {
		t.Fatal(err)
	}
	text := string(svg)
	// 4 sites x 2 super-clusters are tall enough to be named; the rows
	// (96 processes) are labelled at a level that fits.
	for _, want := range []string{">site-0<", ">site-3<", ">sc-1<", "VS0", "VS1"} {
		if !strings.Contains(text, want) {
			t.Errorf("the overview has no %q", want)
		}
	}
}
