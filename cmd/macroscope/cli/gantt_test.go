package cli

import (
	"image/color"
	"path/filepath"
	"testing"
)

// The Gantt view of one rank over a window, coloured by the command line:
// jacobi32's rank-0 computes ("Compute") most of its time, which the
// override paints pure green; the figure has the asked size.
func TestGanttCommand(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "g.png")
	mustRun(t, "gantt", "--resources", "rank-0", "--start", "2", "--end", "2.5", "--colors", "Compute=#00ff00",
		"--width", "500", "--height", "200", "-o", out, bundledTrace)
	img := readPNG(t, out)
	checkSize(t, img, 500, 200)
	green := 0
	b := img.Bounds()
	for x := b.Min.X; x < b.Max.X; x++ {
		r, g, bl, _ := img.At(x, b.Dy()/2).RGBA()
		if (color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), 255}) == (color.RGBA{0, 255, 0, 255}) {
			green++
		}
	}
	if green < 100 {
		t.Errorf("%d green pixels across the row, want most of the data area", green)
	}
	checkRefusals(t, []refusal{
		{[]string{"gantt", "--resources", "nope", "-o", filepath.Join(dir, "x.png"), bundledTrace}, 2, "no container matches"},
		{[]string{"gantt", "--colors", "Compute", "-o", filepath.Join(dir, "x.png"), bundledTrace}, 2, "state=colour"},
	})
}
