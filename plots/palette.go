package plots

import (
	"image/color"
	"math"
	"sync"
)

// The qualitative palette of states, procedures and processors. Colours
// are chosen in OKLab (a perceptual space: Euclidean distance there tracks
// how different two colours look) by farthest-point sampling: after a few
// familiar seeds (ColorBrewer Set1's red, blue, green, purple and orange),
// each next colour is the candidate of the sRGB gamut farthest from all
// those already chosen. So the first n colours of the sequence are as far
// apart as this greedy choice gets for every n at once, the order is
// deterministic, and no two colours are near duplicates however many
// states a trace has (the old fixed table repeated itself, and its
// golden-angle continuation put look-alikes side by side past 30).
//
// Candidates exclude greys (chroma below 0.06: grey is the colour of "no
// state" and of frames), and colours too light to show on white or too
// dark to tell from black text (OKLab lightness outside [0.45, 0.88]).

// paletteSize is the number of colours precomputed; later categories
// repeat the sequence (a figure of more than paletteSize states cannot
// tell them apart by colour anyway).
const paletteSize = 256

var paletteSeeds = []color.RGBA{
	{228, 26, 28, 255}, {55, 126, 184, 255}, {77, 175, 74, 255}, {152, 78, 163, 255}, {255, 127, 0, 255},
}

var (
	paletteOnce sync.Once
	palette     []color.RGBA
)

// CategoryColor returns the colour of category i (a state, a procedure, a
// processor) in the qualitative palette.
func CategoryColor(i int) color.RGBA {
	paletteOnce.Do(buildPalette)
	if i < 0 {
		i = -i
	}
	return palette[i%len(palette)]
}

// Palette returns the first n colours of the qualitative palette.
func Palette(n int) []color.RGBA {
	out := make([]color.RGBA, n)
	for i := range out {
		out[i] = CategoryColor(i)
	}
	return out
}

func buildPalette() {
	// Candidates: a 24-step grid of the sRGB cube (15625 colours).
	const steps = 24
	var cands []color.RGBA
	var labs [][3]float64
	for r := 0; r <= steps; r++ {
		for g := 0; g <= steps; g++ {
			for b := 0; b <= steps; b++ {
				c := color.RGBA{uint8(r * 255 / steps), uint8(g * 255 / steps), uint8(b * 255 / steps), 255}
				l := OKLab(c)
				if l[0] < 0.45 || l[0] > 0.88 || math.Hypot(l[1], l[2]) < 0.06 {
					continue
				}
				cands = append(cands, c)
				labs = append(labs, l)
			}
		}
	}
	// nearest[k]: distance from candidate k to the closest chosen colour.
	nearest := make([]float64, len(cands))
	for k := range nearest {
		nearest[k] = math.Inf(1)
	}
	choose := func(c color.RGBA) {
		palette = append(palette, c)
		l := OKLab(c)
		for k := range labs {
			if d := okDistance(l, labs[k]); d < nearest[k] {
				nearest[k] = d
			}
		}
	}
	for _, s := range paletteSeeds {
		choose(s)
	}
	for len(palette) < paletteSize {
		best := 0
		for k := range nearest {
			if nearest[k] > nearest[best] {
				best = k
			}
		}
		choose(cands[best])
	}
}

func okDistance(a, b [3]float64) float64 {
	return math.Sqrt((a[0]-b[0])*(a[0]-b[0]) + (a[1]-b[1])*(a[1]-b[1]) + (a[2]-b[2])*(a[2]-b[2]))
}

// OKLab returns the OKLab coordinates (L, a, b) of an sRGB colour
// (Björn Ottosson, 2020), L in [0, 1].
func OKLab(c color.RGBA) [3]float64 {
	r, g, b := linear(c.R), linear(c.G), linear(c.B)
	l := math.Cbrt(0.4122214708*r + 0.5363325363*g + 0.0514459929*b)
	m := math.Cbrt(0.2119034982*r + 0.6806995451*g + 0.1073969566*b)
	s := math.Cbrt(0.0883024619*r + 0.2817188376*g + 0.6299787005*b)
	return [3]float64{
		0.2104542553*l + 0.7936177850*m - 0.0040720468*s,
		1.9779984951*l - 2.4285922050*m + 0.4505937099*s,
		0.0259040371*l + 0.7827717662*m - 0.8086757660*s,
	}
}

// linear undoes the sRGB transfer function.
func linear(v uint8) float64 {
	x := float64(v) / 255
	if x <= 0.04045 {
		return x / 12.92
	}
	return math.Pow((x+0.055)/1.055, 2.4)
}
