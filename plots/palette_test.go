package plots

import (
	"image/color"
	"math"
	"testing"
)

// cieLab converts sRGB to CIELAB (D65 white), independently of the OKLab
// code the palette is chosen with, for the ΔE oracle.
func cieLab(c color.RGBA) [3]float64 {
	lin := func(v uint8) float64 {
		x := float64(v) / 255
		if x <= 0.04045 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	r, g, b := lin(c.R), lin(c.G), lin(c.B)
	x := (0.4124564*r + 0.3575761*g + 0.1804375*b) / 0.95047
	y := 0.2126729*r + 0.7151522*g + 0.0721750*b
	z := (0.0193339*r + 0.1191920*g + 0.9503041*b) / 1.08883
	f := func(t float64) float64 {
		if t > 216.0/24389 {
			return math.Cbrt(t)
		}
		return (24389.0/27*t + 16) / 116
	}
	return [3]float64{116*f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))}
}

// minDeltaE is the smallest CIE76 ΔE between two of the colours.
func minDeltaE(cs []color.RGBA) float64 {
	min := math.Inf(1)
	for i := range cs {
		for j := i + 1; j < len(cs); j++ {
			a, b := cieLab(cs[i]), cieLab(cs[j])
			d := math.Sqrt((a[0]-b[0])*(a[0]-b[0]) + (a[1]-b[1])*(a[1]-b[1]) + (a[2]-b[2])*(a[2]-b[2]))
			min = math.Min(min, d)
		}
	}
	return min
}

// The palette keeps states apart: the smallest CIELAB ΔE between any two
// of its first n colours stays above a bound that shrinks slowly with n
// (ΔE 2.3 is a just-noticeable difference; the bounds are several times
// that). The old table had two colours at ΔE < 1 among its first 16.
func TestPaletteMinDeltaE(t *testing.T) {
	for _, c := range []struct {
		n     int
		bound float64
	}{{10, 30}, {30, 15}, {60, 10}, {100, 7}} {
		got := minDeltaE(Palette(c.n))
		t.Logf("n=%d min ΔE=%.2f", c.n, got)
		if got < c.bound {
			t.Errorf("first %d colours: min ΔE %.2f < %.1f", c.n, got, c.bound)
		}
	}
}
