package plots

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/png"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/gen/synthmodel"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
	"github.com/macroscope-hpc/macroscope/core/views/treemap"
)

// detailedCut returns the optimal spatial cut of the scenario that details
// exactly its injected heterogeneity.
func detailedCut(t testing.TB, sc synthmodel.Scenario) (*micro.Model, *aggregate.Partition) {
	t.Helper()
	m, part, err := sc.DetailedCut()
	if err != nil {
		t.Fatal(err)
	}
	return m, part
}

func decodePNG(t *testing.T, img []byte) image.Image {
	t.Helper()
	im, err := png.Decode(bytes.NewReader(img))
	if err != nil {
		t.Fatal(err)
	}
	return im
}

// pixelAt returns the pixel at (x, y) points from the figure's lower-left
// corner.
func pixelAt(im image.Image, x, y float64) color.RGBA {
	b := im.Bounds()
	px, py := int(x*dpi/72), b.Dy()-1-int(y*dpi/72)
	r, g, bl, _ := im.At(b.Min.X+px, b.Min.Y+py).RGBA()
	return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), 255}
}

func closeColor(a, b color.RGBA, tol int) bool {
	d := func(x, y uint8) bool { return int(x)-int(y) <= tol && int(y)-int(x) <= tol }
	return d(a.R, b.R) && d(a.G, b.G) && d(a.B, b.B)
}

// The figure draws every aggregate at its place in the layout, in the
// colour of its mode state with the opacity of its share.
func TestTreemapFigureColoursTheAggregates(t *testing.T) {
	sc := synthmodel.Scenario{Fanout: [5]int{10, 10, 10, 10, 10}, Slices: 1, Noise: 0.002, Contrast: 0.4}
	m, part := detailedCut(t, sc)
	for _, root := range []string{"", "site-3/sc-0/cluster-0/machine-0"} {
		opt := TreemapOptions{Title: "100,000 processes"}
		if root != "" {
			var err error
			if opt.Root, err = treemap.NodeByPath(m.Tree, root, "/"); err != nil {
				t.Fatal(err)
			}
		}
		img, err := Treemap(m, part, opt)
		if err != nil {
			t.Fatal(err)
		}
		im := decodePNG(t, img)
		if b := im.Bounds(); b.Dx() != 960 || b.Dy() != 720 {
			t.Fatalf("image %v, want 960 x 720", b)
		}
		f, err := newTreemapFigure(m, part, opt)
		if err != nil {
			t.Fatal(err)
		}
		checked, strong := 0, 0
		for _, c := range f.tm.Cells {
			if c.Group || c.W < 20 || c.H < 20 {
				continue
			}
			// Three points away from the label and the border; a dashed
			// line to a zoom may cross one of them.
			want := modeColor(CategoryColor(c.Mode), c.ModeProportion)
			var got []color.RGBA
			match := 0
			for _, at := range [][2]float64{{0.2, 0.2}, {0.8, 0.3}, {0.3, 0.8}} {
				px := pixelAt(im, tmMargin+c.X+at[0]*c.W, tmMargin+c.Y+at[1]*c.H)
				got = append(got, px)
				if closeColor(px, want, 3) {
					match++
				}
			}
			if match < 2 {
				t.Errorf("root %q: %s (mode %d, %.3f): pixels %v, want %v", root, m.Tree.Path(c.Node, "/"), c.Mode, c.ModeProportion, got, want)
			}
			checked++
			if c.ModeProportion > 0.85 {
				strong++
			}
		}
		t.Logf("root %q: %d aggregates checked, %d of them heterogeneous (mode share > 0.85)", root, checked, strong)
		if root != "" && (checked != 10 || strong != 10) {
			t.Errorf("the heterogeneous machine: %d processes checked, %d heterogeneous; want 10 and 10", checked, strong)
		}
		if root == "" && checked < 30 {
			t.Errorf("only %d aggregates checked", checked)
		}
	}
}

// The detailed groups too small to read are circled and zoomed: in
// Lamarche-Perrin et al.'s scenario, exactly the heterogeneous cluster of
// site-1, machine group of site-2 and processes of site-3 (their B.1 to
// B.4).
func TestTreemapZoomsOnTheHeterogeneousGroups(t *testing.T) {
	sc := synthmodel.Million()
	if testing.Short() {
		sc = synthmodel.Scenario{Fanout: [5]int{10, 10, 10, 10, 10}, Slices: 1, Noise: 0.002, Contrast: 0.4}
	}
	m, part := detailedCut(t, sc)
	f, err := newTreemapFigure(m, part, TreemapOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, i := range zoomCandidates(f.tm, planMap(f.tm), f.opt.Zooms) {
		got = append(got, m.Tree.Path(f.tm.Cells[i].Node, "/"))
	}
	want := []string{"site-1/sc-0", "site-2/sc-0/cluster-0", "site-3/sc-0/cluster-0/machine-0"}
	if !slices.Equal(got, want) {
		t.Errorf("%d processes: zoomed %v, want %v", sc.Processes(), got, want)
	}
	// The zooms show the heterogeneous processes: both states appear at
	// full strength in the right column.
	img, err := Treemap(m, part, TreemapOptions{})
	if err != nil {
		t.Fatal(err)
	}
	im := decodePNG(t, img)
	counts := [2]int{}
	b := im.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Max.X - int(float64(tmColumn)*dpi/72); x < b.Max.X; x++ {
			r, g, bl, _ := im.At(x, y).RGBA()
			px := color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), 255}
			for s := range counts {
				if closeColor(px, modeColor(CategoryColor(s), 0.9), 4) {
					counts[s]++
				}
			}
		}
	}
	if counts[0] < 500 || counts[1] < 500 {
		t.Errorf("pixels of the heterogeneous processes' colours in the zooms: %v", counts)
	}
}

// When every cell is under a pixel, groups are drawn whole and nothing is
// singled out.
func TestTreemapDrawsTinyGroupsWhole(t *testing.T) {
	sc := synthmodel.Scenario{Fanout: [5]int{10, 10, 10, 10, 10}, Slices: 1, Noise: 0.002, Contrast: 0.4}
	m, err := sc.Model()
	if err != nil {
		t.Fatal(err)
	}
	part := &aggregate.Partition{}
	for _, leaf := range m.Tree.Leaves {
		part.Parts = append(part.Parts, aggregate.Part{Node: leaf})
	}
	opt := TreemapOptions{Width: 300, Height: 250}
	f, err := newTreemapFigure(m, part, opt)
	if err != nil {
		t.Fatal(err)
	}
	pl := planMap(f.tm)
	whole := 0
	for i, c := range f.tm.Cells {
		if pl.whole[i] {
			whole++
			if m.Tree.Depth[c.Node] != 4 {
				t.Errorf("%s drawn whole, want machines only", m.Tree.Path(c.Node, "/"))
			}
		}
	}
	if whole != 10_000 {
		t.Errorf("%d groups drawn whole, want the 10,000 machines", whole)
	}
	if z := zoomCandidates(f.tm, pl, 3); z != nil {
		t.Errorf("zoomed %d groups of a map detailed everywhere", len(z))
	}
	if _, err := Treemap(m, part, opt); err != nil {
		t.Fatal(err)
	}
}

func TestTreemapFormatsAndErrors(t *testing.T) {
	m, part := detailedCut(t, synthmodel.Scenario{Fanout: [5]int{4, 2, 2, 2, 2}, Slices: 1, Noise: 0.002, Contrast: 0.4})
	svg, err := Treemap(m, part, TreemapOptions{Format: SVG, Proportions: true, Value: treemap.Activity})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(svg, []byte("<svg")) || !bytes.Contains(svg, []byte("site-0")) {
		t.Errorf("SVG output without the map: %.200s", svg)
	}
	var ae *errs.ArgumentError
	if _, err := Treemap(m, part, TreemapOptions{Width: 100, Height: 40}); !errors.As(err, &ae) || !strings.Contains(err.Error(), "too small") {
		t.Errorf("tiny figure: %v", err)
	}
	if _, err := Treemap(m, part, TreemapOptions{Value: "area"}); !errors.As(err, &ae) {
		t.Errorf("unknown value: %v", err)
	}
	if _, err := Treemap(m, part, TreemapOptions{Width: 10 * vg.Inch, Height: vg.Length(-1)}); err == nil {
		t.Errorf("negative height: no error")
	}
}
