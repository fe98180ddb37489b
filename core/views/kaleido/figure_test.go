package kaleido_test

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/ingest"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/kaleido"
	"github.com/macroscope-hpc/macroscope/plots"
)

// render draws l and decodes the PNG; with KALEIDO_FIGURES set to a
// directory the image is also written there to be looked at.
func render(t testing.TB, l *kaleido.Layout, view, name string) image.Image {
	t.Helper()
	b, err := plots.Kaleidoscope(l, plots.KaleidoscopeOptions{View: view})
	if err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv("KALEIDO_FIGURES"); dir != "" {
		os.WriteFile(dir+"/"+name+"-"+view+".png", b, 0o644)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func layout(t testing.TB, tree *kaleido.Tree, opt kaleido.Options) *kaleido.Layout {
	t.Helper()
	l, err := tree.Layout(opt)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// spawnTree simulates a parallel divide and conquer: each task splits its
// work at random among up to four children until the work is small; tasks
// run on 5 PEs, a child on its parent's PE or, one time in four, on
// another; a child starts after its parent.
func spawnTree(n int, seed uint64) *kaleido.Tree {
	rng := rand.New(rand.NewPCG(seed, 3))
	ids := []int64{0}
	parents := []int64{0}
	has := []bool{false}
	procs := []int32{0}
	pes := []int32{0}
	start := []trace.Time{0}
	work := []int{n}
	for i := 0; i < len(ids) && len(ids) < n; i++ {
		if work[i] < 2 {
			continue
		}
		k := 1 + rng.IntN(4)
		left := work[i] - 1
		for j := 0; j < k && left > 0 && len(ids) < n; j++ {
			w := left
			if j < k-1 {
				w = rng.IntN(left + 1)
			}
			left -= w
			pe := pes[i]
			if rng.IntN(4) == 0 {
				pe = int32(rng.IntN(5))
			}
			ids = append(ids, int64(len(ids)))
			parents = append(parents, int64(i))
			has = append(has, true)
			procs = append(procs, int32(1+rng.IntN(5)))
			pes = append(pes, pe)
			start = append(start, start[i]+trace.Time(1+rng.IntN(1000)))
			work = append(work, w)
		}
	}
	tree, err := kaleido.FromIntTable(ids, parents, has, kaleido.Attributes{
		Procedure: procs, Procedures: []string{"main", "split", "merge", "sort", "scan", "leaf"},
		PE: pes, PEs: []string{"PE 0", "PE 1", "PE 2", "PE 3", "PE 4"}, Start: start, OrderByStart: true,
	})
	if err != nil {
		panic(err)
	}
	return tree
}

// pixel returns the colour at layout point (x, y) of a figure of a
// window w pixels wide: the window is below a 44-pixel title band.
func pixel(img image.Image, w, x, y float64) color.RGBA {
	c := img.At(int(math.Floor(w/2+x)), int(math.Floor(44+w/2-y)))
	r, g, b, a := c.RGBA()
	return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)}
}

// threeTree is a root on PE 0 with children a, b, c on PEs 1, 2, 3, each
// with three children on PE 4, running procedures p0..p3 from time 0 to 12.
func threeTree(t testing.TB) *kaleido.Tree {
	t.Helper()
	ids := []int64{0, 1, 2, 3}
	parents := []int64{0, 0, 0, 0}
	has := []bool{false, true, true, true}
	pes := []int32{0, 1, 2, 3}
	procs := []int32{0, 1, 2, 3}
	start := []trace.Time{0, 1e9, 2e9, 3e9}
	for k := int64(4); k < 13; k++ {
		ids, parents, has = append(ids, k), append(parents, 1+(k-4)/3), append(has, true)
		pes, procs, start = append(pes, 4), append(procs, 3), append(start, trace.Time(k)*1e9)
	}
	tree, err := kaleido.FromIntTable(ids, parents, has, kaleido.Attributes{
		Procedure: procs, Procedures: []string{"p0", "p1", "p2", "p3"},
		PE: pes, PEs: []string{"PE0", "PE1", "PE2", "PE3", "PE4"}, Start: start,
	})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

func TestFigurePixels(t *testing.T) {
	tree := threeTree(t)
	const w = 400.0
	l := layout(t, tree, kaleido.Options{Width: w, LevelSpacing: 60})
	if l.Condensing.Active {
		t.Fatalf("condensed: %+v", l.Condensing)
	}
	white := color.RGBA{255, 255, 255, 255}
	// a, b, c at 60, 180 and 300 degrees, 60 pixels out.
	a, b, cc := int32(1), int32(5), int32(9)
	if l.Sector[a] != 0 || l.Sector[b] != 120 || l.Sector[cc] != 240 {
		t.Fatalf("sectors %v %v %v", l.Sector[a], l.Sector[b], l.Sector[cc])
	}
	inside := func(pts ...kaleido.Point) (x, y float64) {
		for _, p := range pts {
			x, y = x+p.X/float64(len(pts)), y+p.Y/float64(len(pts))
		}
		return x, y
	}
	mab := kaleido.Point{X: (l.X[a] + l.X[b]) / 2, Y: (l.Y[a] + l.Y[b]) / 2}
	mbc := kaleido.Point{X: (l.X[b] + l.X[cc]) / 2, Y: (l.Y[b] + l.Y[cc]) / 2}
	for _, c := range []struct {
		view string
		want map[string]color.RGBA
	}{
		{"pe", map[string]color.RGBA{"root": plots.CategoryColor(0), "a": plots.CategoryColor(1), "b": plots.CategoryColor(2), "c": plots.CategoryColor(3), "a's children": plots.CategoryColor(4)}},
		// p3 runs on 10 nodes, then p0, p1, p2 on one each (ties by name).
		{"procedure", map[string]color.RGBA{"root": plots.CategoryColor(1), "a": plots.CategoryColor(2), "b": plots.CategoryColor(3), "c": plots.CategoryColor(0), "a's children": plots.CategoryColor(0)}},
		{"time", map[string]color.RGBA{"root": plots.Spectrum(0), "a": plots.Spectrum(1.0 / 12), "b": plots.Spectrum(2.0 / 12), "c": plots.Spectrum(3.0 / 12), "a's children": plots.Spectrum(5.0 / 12)}},
	} {
		img := render(t, l, c.view, "three")
		if bd := img.Bounds(); bd.Dx() != w+230 || bd.Dy() != w+44 {
			t.Fatalf("%s: image %v", c.view, bd)
		}
		x, y := inside(kaleido.Point{}, l.Point(a), mab)
		xb, yb := inside(kaleido.Point{}, mab, l.Point(b), mbc)
		xc, yc := inside(kaleido.Point{}, mbc, l.Point(cc))
		// The middle part of a's family lies along a's direction, 1.5
		// levels out.
		xg, yg := 90*math.Cos(math.Pi/3), 90*math.Sin(math.Pi/3)
		for name, at := range map[string][2]float64{"root": {0, 0}, "a": {x, y}, "b": {xb, yb}, "c": {xc, yc}, "a's children": {xg, yg}} {
			if got := pixel(img, w, at[0], at[1]); got != c.want[name] {
				t.Errorf("%s view: %s at (%.1f, %.1f) is %v, want %v", c.view, name, at[0], at[1], got, c.want[name])
			}
		}
		// Outside every family: white.
		if got := pixel(img, w, -60, 100); got != white {
			t.Errorf("%s view: background %v", c.view, got)
		}
	}
	// Node condensing with a threshold wider than any sector: a, b and c
	// are drawn without their children.
	l = layout(t, tree, kaleido.Options{Width: w, LevelSpacing: 60, MinSector: 1000})
	img := render(t, l, "pe", "three-condensed")
	if l.NumCollapsed != 3 || l.NumDrawn != 4 {
		t.Fatalf("%d collapsed, %d drawn", l.NumCollapsed, l.NumDrawn)
	}
	if got := pixel(img, w, 90*math.Cos(math.Pi/3), 90*math.Sin(math.Pi/3)); got != white {
		t.Errorf("condensed family still painted: %v", got)
	}
	if got := pixel(img, w, 0, 0); got != plots.CategoryColor(0) {
		t.Errorf("root %v", got)
	}
}

func TestFigureOptions(t *testing.T) {
	tree := threeTree(t)
	l := layout(t, tree, kaleido.Options{Width: 300})
	svg, err := plots.Kaleidoscope(l, plots.KaleidoscopeOptions{View: "time", Format: plots.SVG})
	if err != nil || !bytes.Contains(svg[:200], []byte("<svg")) {
		t.Errorf("SVG: %v %q", err, svg[:min(len(svg), 80)])
	}
	var ae *errs.ArgumentError
	if _, err := plots.Kaleidoscope(l, plots.KaleidoscopeOptions{View: "colour"}); !errors.As(err, &ae) || ae.Name != "view" {
		t.Errorf("bad view: %v", err)
	}
	bare, err := kaleido.FromIntTable([]int64{1, 2}, []int64{0, 1}, []bool{false, true}, kaleido.Attributes{})
	if err != nil {
		t.Fatal(err)
	}
	for _, view := range []string{"pe", "procedure", "time"} {
		if _, err := plots.Kaleidoscope(layout(t, bare, kaleido.Options{Width: 100}), plots.KaleidoscopeOptions{View: view}); !errors.As(err, &ae) {
			t.Errorf("%s view of a tree without attributes: %v", view, err)
		}
	}
	// The jacobi root is the synthetic "program", on no PE: grey.
	tr, err := readPaje("../../../testdata/jacobi32.trace")
	if err != nil {
		t.Fatal(err)
	}
	jt, err := kaleido.FromTrace(tr, kaleido.TraceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	img := render(t, layout(t, jt, kaleido.Options{Width: 600}), "pe", "jacobi")
	if got := pixel(img, 600, 0, 0); got != plots.KaleidoNone {
		t.Errorf("jacobi root %v", got)
	}
}

// TestFigureViews draws the three views of real call trees and of a
// simulated spawn tree: the window's size, the root's colour at the centre.
func TestFigureViews(t *testing.T) {
	type tc struct {
		name string
		tree func() (*kaleido.Tree, error)
		root map[string]color.RGBA // the root's colour by view
	}
	fromTrace := func(read func(string) (*trace.Trace, error), path string) func() (*kaleido.Tree, error) {
		return func() (*kaleido.Tree, error) {
			tr, err := read(path)
			if err != nil {
				return nil, err
			}
			return kaleido.FromTrace(tr, kaleido.TraceOptions{})
		}
	}
	// The synthetic root of a trace's tree has no PE and starts first.
	program := map[string]color.RGBA{"pe": plots.KaleidoNone, "time": plots.Spectrum(0)}
	cases := []tc{
		{"native", fromTrace(readPaje, "../../../../shared/traces/pajeng/traces/native_sample.trace"), program},
		{"kineto", fromTrace(func(p string) (*trace.Trace, error) { return formats.ReadFile(p, "chrome") }, "../../../../shared/traces/hta/tests/data/rank_non_gpu/rank_non_gpu.json.gz"), program},
		{"spawn", func() (*kaleido.Tree, error) { return spawnTree(100_000, 1), nil },
			map[string]color.RGBA{"pe": plots.CategoryColor(0), "time": plots.Spectrum(0)}},
	}
	corpusPaths := map[string]string{"native": "../../../../shared/traces/pajeng/traces/native_sample.trace",
		"kineto": "../../../../shared/traces/hta/tests/data/rank_non_gpu/rank_non_gpu.json.gz"}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if path, ok := corpusPaths[c.name]; ok {
				if _, err := os.Stat(path); err != nil {
					t.Skipf("%s is absent", path)
				}
			}
			tree, err := c.tree()
			if err != nil {
				t.Fatal(err)
			}
			l := layout(t, tree, kaleido.Options{Width: 700})
			for _, view := range []string{"pe", "procedure", "time"} {
				img := render(t, l, view, c.name)
				if b := img.Bounds(); b.Dx() != 700+230 || b.Dy() != 700+44 {
					t.Errorf("%s view: image %v", view, b)
				}
				if want, ok := c.root[view]; ok {
					if got := pixel(img, 700, 0, 0); got != want {
						t.Errorf("%s view: root %v, want %v", view, got, want)
					}
				}
			}
			// A subtree view recycles the spectrum: its centre, which starts
			// first, is blue again.
			img := render(t, layout(t, tree, kaleido.Options{Width: 700, Subtree: 1}), "time", c.name+"-subtree")
			if got := pixel(img, 700, 0, 0); got != plots.Spectrum(0) {
				t.Errorf("subtree: centre %v", got)
			}
		})
	}
}

// BenchmarkFigure draws the three views of a spawn tree of 1e5 nodes in an
// 850-pixel window.
func BenchmarkFigure(b *testing.B) {
	tree := spawnTree(100_000, 1)
	l := layout(b, tree, kaleido.Options{Width: 850})
	for _, view := range []string{"pe", "procedure", "time"} {
		b.Run(view, func(b *testing.B) {
			for b.Loop() {
				if _, err := plots.Kaleidoscope(l, plots.KaleidoscopeOptions{View: view}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(l.NumDrawn), "drawn")
		})
	}
}

// star returns a root with n children on PEs 1, 1, 2, 1, 1, 2...
func star(t testing.TB, n int) *kaleido.Tree {
	t.Helper()
	ids, par, has, pe := make([]int64, n+1), make([]int64, n+1), make([]bool, n+1), make([]int32, n+1)
	for i := 1; i <= n; i++ {
		ids[i], has[i], pe[i] = int64(i), true, 1+int32(i%3/2)
	}
	tree, err := kaleido.FromIntTable(ids, par, has, kaleido.Attributes{PE: pe, PEs: []string{"root", "one", "two"}})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// TestFigureSubpixelChildren: 30,000 children of the root, 40 pixels out,
// are a few thousandths of a pixel apart; each pixel of the fan shows the
// colour most of its children have, not a blend.
func TestFigureSubpixelChildren(t *testing.T) {
	l := layout(t, star(t, 30_000), kaleido.Options{Width: 200, LevelSpacing: 40})
	img := render(t, l, "pe", "star")
	for _, deg := range []float64{10, 100, 200, 300} {
		x, y := 25*math.Cos(deg*math.Pi/180), 25*math.Sin(deg*math.Pi/180)
		if got := pixel(img, 200, x, y); got != plots.CategoryColor(1) {
			t.Errorf("at %v degrees: %v, want %v", deg, got, plots.CategoryColor(1))
		}
	}
}

// BenchmarkFigureStar draws a family of 200,000 children.
func BenchmarkFigureStar(b *testing.B) {
	l := layout(b, star(b, 200_000), kaleido.Options{Width: 850})
	for b.Loop() {
		if _, err := plots.Kaleidoscope(l, plots.KaleidoscopeOptions{View: "pe"}); err != nil {
			b.Fatal(err)
		}
	}
}

// readPaje reads a Pajé trace into memory, its dates in seconds whatever
// wrote it (the door reads StarPU's in milliseconds).
func readPaje(path string) (*trace.Trace, error) {
	src, _, err := formats.Open(path, "paje", ingest.Values{"time_unit": "s"})
	if err != nil {
		return nil, err
	}
	t := trace.New(path)
	return t, src.Read(t, trace.ReadOptions{})
}
