package plots

import (
	"image/color"
	"math"
)

// palette holds qualitative colours that stay distinguishable side by side
// (ColorBrewer "Set1" and "Dark2" with the yellow toned down), for states.
var palette = []color.RGBA{
	{228, 26, 28, 255}, {55, 126, 184, 255}, {77, 175, 74, 255}, {152, 78, 163, 255},
	{255, 127, 0, 255}, {200, 180, 40, 255}, {166, 86, 40, 255}, {247, 129, 191, 255},
	{27, 158, 119, 255}, {117, 112, 179, 255}, {102, 166, 30, 255}, {230, 171, 2, 255},
	{31, 120, 180, 255}, {227, 26, 28, 255}, {106, 61, 154, 255}, {177, 89, 40, 255},
}

// CategoryColor returns the colour of category i (a state, a procedure, a
// processor). Beyond the palette, hues continue around the colour wheel at
// the golden angle so that neighbours stay apart.
func CategoryColor(i int) color.RGBA {
	if i < len(palette) {
		return palette[i]
	}
	h := float64(i-len(palette)) * 137.508
	return hsv(h, 0.65, 0.85)
}

// hsv converts a hue in degrees and saturation, value in [0,1] to RGBA.
func hsv(h, s, v float64) color.RGBA {
	h = math.Mod(h, 360)
	c := v * s
	hp := h / 60
	x := c * (1 - math.Abs(math.Mod(hp, 2)-1))
	var r, g, b float64
	switch int(hp) {
	case 0:
		r, g = c, x
	case 1:
		r, g = x, c
	case 2:
		g, b = c, x
	case 3:
		g, b = x, c
	case 4:
		r, b = x, c
	default:
		r, b = c, x
	}
	m := v - c
	return color.RGBA{uint8(255 * (r + m)), uint8(255 * (g + m)), uint8(255 * (b + m)), 255}
}
