package plots

import (
	"math"

	"gonum.org/v1/plot/vg"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// The largest figure drawn: a side of MaxSide pixels at most (PNG at 96
// dpi; SVG and PDF are held to the same sizes), MaxArea pixels in all.
// A PNG of MaxArea pixels is 256 MiB of RGBA while it is drawn; a side of
// 16,384 pixels is a poster of 1.4 m at 300 dpi. An absurd size (a width of
// 2^40) is refused at once, before anything is computed, instead of the
// drawing asking for terabytes.
const (
	MaxSide = 16384
	MaxArea = 1 << 26
)

// pxPerPt converts the points the figures are sized in to the pixels of
// their PNG.
const pxPerPt = dpi / 72.0

// CheckSize returns an ArgumentError naming width or height when a
// figure's size, in points (a zero: the figure's default), is not a
// finite number of points from one pixel to MaxSide pixels, or when the
// two make more than MaxArea pixels. Every figure checks its size with it
// before any work; the error says the range allowed, in pixels.
func CheckSize(width, height vg.Length) error {
	for _, s := range []struct {
		name string
		v    vg.Length
	}{{"width", width}, {"height", height}} {
		px := float64(s.v) * pxPerPt
		if math.IsNaN(px) || math.IsInf(px, 0) || px < 0 || px > MaxSide || s.v != 0 && px < 1 {
			return errs.Argument(s.name, "must be from 1 to %d pixels (at %d dpi), got %.6g", MaxSide, dpi, px)
		}
	}
	if area := float64(width) * pxPerPt * float64(height) * pxPerPt; area > MaxArea {
		return errs.Argument("width", "a figure of %.6g x %.6g pixels is larger than the %d pixels (%d x %d) a figure may have",
			float64(width)*pxPerPt, float64(height)*pxPerPt, MaxArea, 8192, 8192)
	}
	return nil
}
