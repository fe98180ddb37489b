package plots

import (
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
)

// Absurd figure sizes are refused before any drawing, with an error
// naming the argument and the range allowed; sizes in range pass.
func TestCheckSize(t *testing.T) {
	pt := func(px float64) vg.Length { return vg.Length(px / pxPerPt) }
	for _, c := range []struct {
		w, h  vg.Length
		param string
	}{
		{pt(3e4), pt(600), "width"},
		{pt(math.Pow(2, 40)), pt(600), "width"},
		{pt(800), pt(1e6), "height"},
		{vg.Length(math.NaN()), pt(600), "width"},
		{pt(800), vg.Length(math.Inf(1)), "height"},
		{pt(0.5), pt(600), "width"},
		{pt(-3), pt(600), "width"},
		{pt(16000), pt(16000), "width"}, // each side in range, too many pixels
	} {
		err := CheckSize(c.w, c.h)
		var ae *errs.ArgumentError
		if !errors.As(err, &ae) || ae.Name != c.param || !strings.Contains(err.Error(), "16384") && !strings.Contains(err.Error(), "67108864") {
			t.Errorf("%v x %v: %v, want an ArgumentError on %s saying the range", c.w, c.h, err, c.param)
		}
	}
	for _, ok := range [][2]float64{{0, 0}, {1, 1}, {960, 576}, {16384, 4096}, {8192, 8192}} {
		if err := CheckSize(pt(ok[0]), pt(ok[1])); err != nil {
			t.Errorf("%v: %v", ok, err)
		}
	}
}

// Every format is held to the bounds, and every figure checks them first.
func TestAbsurdFigures(t *testing.T) {
	huge := vg.Length(math.Pow(2, 40))
	for _, f := range []Format{PNG, SVG, PDF} {
		drawn := false
		_, err := Render(huge, 400, f, func(draw.Canvas) { drawn = true })
		var ae *errs.ArgumentError
		if !errors.As(err, &ae) || drawn {
			t.Errorf("%s: %v (drawn: %v)", f, err, drawn)
		}
	}
	var ae *errs.ArgumentError
	if _, err := Gantt(ganttTrace(), GanttOptions{Width: huge}); !errors.As(err, &ae) || ae.Name != "width" {
		t.Errorf("Gantt: %v", err)
	}
	if _, err := MomentsFigure(nil, MomentsOptions{Height: huge}); !errors.As(err, &ae) || ae.Name != "height" {
		t.Errorf("moments: %v", err)
	}
	if _, err := QualityCurves(nil, 1, 1, QualityOptions{Width: huge}); !errors.As(err, &ae) || ae.Name != "width" {
		t.Errorf("quality: %v", err)
	}
	if _, err := Overview(nil, aggregate.Input{}, nil, OverviewOptions{Height: huge}); !errors.As(err, &ae) || ae.Name != "height" {
		t.Errorf("overview: %v", err)
	}
	if _, err := Treemap(nil, nil, TreemapOptions{Width: huge}); !errors.As(err, &ae) || ae.Name != "width" {
		t.Errorf("treemap: %v", err)
	}
	if _, err := Topology(nil, TopologyOptions{Width: huge}); !errors.As(err, &ae) || ae.Name != "width" {
		t.Errorf("topology: %v", err)
	}
}

// FuzzCheckSize checks that every size CheckSize accepts is one a figure
// may have (finite, each side at most MaxSide pixels, MaxArea in all) and
// that every refusal is an ArgumentError naming width or height.
func FuzzCheckSize(f *testing.F) {
	f.Add(720.0, 432.0)
	f.Add(math.Pow(2, 40), 1.0)
	f.Add(math.NaN(), 0.0)
	f.Add(-1.0, 1e300)
	f.Fuzz(func(t *testing.T, w, h float64) {
		err := CheckSize(vg.Length(w), vg.Length(h))
		if err != nil {
			var ae *errs.ArgumentError
			if !errors.As(err, &ae) || ae.Name != "width" && ae.Name != "height" {
				t.Fatalf("%v x %v: %v", w, h, err)
			}
			return
		}
		pw, ph := w*pxPerPt, h*pxPerPt
		if !(pw >= 0 && pw <= MaxSide && ph >= 0 && ph <= MaxSide && pw*ph <= MaxArea) {
			t.Fatalf("%v x %v pixels accepted", pw, ph)
		}
	})
}
