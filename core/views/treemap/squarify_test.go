package treemap

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*max(1, math.Abs(a), math.Abs(b)) }

func nearRect(a, b Rect, tol float64) bool {
	return near(a.X, b.X, tol) && near(a.Y, b.Y, tol) && near(a.W, b.W, tol) && near(a.H, b.H, tol)
}

// The worked example of Bruls, Huizing and van Wijk (2000), section 3:
// values 6, 6, 4, 3, 2, 2, 1 in a 6 x 4 rectangle. Rows: [6 6] as a
// column at the left (ratios 3/2), [4 3] as a strip at the top of the 3 x 4
// left (the third value would have made the worst ratio 4.5 instead of
// 1.81), then 2, 2 and 1 alone, side by side in the 3 x 5/3 left.
func TestBrulsWorkedExample(t *testing.T) {
	values := []float64{6, 6, 4, 3, 2, 2, 1}
	rects, rows, err := SquarifyRows(values, Rect{W: 6, H: 4})
	if err != nil {
		t.Fatal(err)
	}
	wantRows := [][]int{{0, 1}, {2, 3}, {4}, {5}, {6}}
	if !reflect.DeepEqual(rows, wantRows) {
		t.Errorf("rows %v, want %v", rows, wantRows)
	}
	want := []Rect{
		{X: 0, Y: 2, W: 3, H: 2},
		{X: 0, Y: 0, W: 3, H: 2},
		{X: 3, Y: 5.0 / 3, W: 12.0 / 7, H: 7.0 / 3},
		{X: 3 + 12.0/7, Y: 5.0 / 3, W: 9.0 / 7, H: 7.0 / 3},
		{X: 3, Y: 0, W: 1.2, H: 5.0 / 3},
		{X: 4.2, Y: 0, W: 1.2, H: 5.0 / 3},
		{X: 5.4, Y: 0, W: 0.6, H: 5.0 / 3},
	}
	for i := range want {
		if !nearRect(rects[i], want[i], 1e-12) {
			t.Errorf("value %v: %+v, want %+v", values[i], rects[i], want[i])
		}
	}
	// The aspect ratios the paper reports for the final layout.
	ratios := []float64{1.5, 1.5, 49.0 / 36, 49.0 / 27, 25.0 / 18, 25.0 / 18, 25.0 / 9}
	for i, r := range ratios {
		if !near(rects[i].Aspect(), r, 1e-12) {
			t.Errorf("value %v: aspect %v, want %v", values[i], rects[i].Aspect(), r)
		}
	}
}

// checkLayout verifies a flat layout: every positive value has its share
// of r's area (relative tol), the rectangles lie in r, siblings do not
// overlap, the areas add up to r's, and zero values have no area.
func checkLayout(t *testing.T, values []float64, r Rect, rects []Rect, tol float64) {
	t.Helper()
	var total float64
	for _, v := range values {
		total += v
	}
	var sum float64
	edge := tol * math.Sqrt(r.Area()) // absolute slack on coordinates
	for i, v := range values {
		a := rects[i].Area()
		sum += a
		if v == 0 {
			if rects[i].W != 0 || rects[i].H != 0 {
				t.Fatalf("value %d is zero but has %+v", i, rects[i])
			}
			continue
		}
		want := v / total * r.Area()
		if !(rects[i].W > 0 && rects[i].H > 0) || math.Abs(a-want) > tol*want {
			t.Fatalf("value %d (%v of %v): area %v, want %v (rel. error %.3g)", i, v, total, a, want, math.Abs(a-want)/want)
		}
		if !r.Contains(rects[i], edge) {
			t.Fatalf("value %d: %+v outside %+v", i, rects[i], r)
		}
	}
	if total > 0 && math.Abs(sum-r.Area()) > tol*r.Area() {
		t.Fatalf("areas add up to %v, want %v", sum, r.Area())
	}
	checkDisjoint(t, rects, edge)
}

// checkDisjoint fails if two rectangles overlap by more than tol in both
// directions.
func checkDisjoint(t *testing.T, rects []Rect, tol float64) {
	t.Helper()
	for i := range rects {
		a := rects[i]
		if a.W == 0 || a.H == 0 {
			continue
		}
		for j := i + 1; j < len(rects); j++ {
			b := rects[j]
			if b.W == 0 || b.H == 0 {
				continue
			}
			ox := min(a.X+a.W, b.X+b.W) - max(a.X, b.X)
			oy := min(a.Y+a.H, b.Y+b.H) - max(a.Y, b.Y)
			if ox > tol && oy > tol {
				t.Fatalf("rectangles %d %+v and %d %+v overlap", i, a, j, b)
			}
		}
	}
}

// randomValues draws n values from one of several distributions: uniform,
// heavy-tailed over 6 orders of magnitude, small integers (many ties),
// with some zeros.
func randomValues(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	kind := rng.IntN(4)
	for i := range v {
		switch kind {
		case 0:
			v[i] = rng.Float64()
		case 1:
			v[i] = math.Pow(10, 6*rng.Float64())
		case 2:
			v[i] = float64(1 + rng.IntN(5))
		default:
			if rng.IntN(4) > 0 {
				v[i] = rng.ExpFloat64()
			}
		}
	}
	return v
}

func randomRect(rng *rand.Rand) Rect {
	return Rect{X: rng.Float64()*10 - 5, Y: rng.Float64()*10 - 5, W: math.Pow(10, 3*rng.Float64()-1), H: math.Pow(10, 3*rng.Float64()-1)}
}

func TestAreasProportionalToValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 3000; trial++ {
		values := randomValues(rng, 1+rng.IntN(200))
		r := randomRect(rng)
		rects, err := Squarify(values, r)
		if err != nil {
			t.Fatal(err)
		}
		checkLayout(t, values, r, rects, 1e-9)
	}
}

// Viva's squarified layout stopped a row when its ratio reached exactly 1
// and dropped the values left. Here every value is placed in layouts full
// of exact squares.
func TestEveryValuePlacedWhenRatiosAreExactlyOne(t *testing.T) {
	cases := []struct {
		values []float64
		r      Rect
	}{
		{[]float64{1, 1, 1, 1}, Rect{W: 2, H: 2}},     // four unit squares
		{[]float64{4, 2, 2}, Rect{W: 2, H: 4}},        // a 2x2 square first, then two 1x2
		{[]float64{9, 6}, Rect{W: 3, H: 5}},           // a 3x3 square first
		{[]float64{16, 4, 4, 4, 4}, Rect{W: 4, H: 8}}, // a square, then four 2x2 squares
		{[]float64{1, 1, 1, 1, 1, 1, 1, 1, 1}, Rect{W: 3, H: 3}},
		{[]float64{25, 9, 9, 4, 1, 1, 1, 1}, Rect{W: 5, H: 10.2}},
		{[]float64{100, 1, 1, 1}, Rect{W: 10, H: 10.3}},
	}
	for _, c := range cases {
		rects, rows, err := SquarifyRows(c.values, c.r)
		if err != nil {
			t.Fatal(err)
		}
		placed := 0
		for _, row := range rows {
			placed += len(row)
		}
		if placed != len(c.values) {
			t.Errorf("%v in %+v: %d values placed in rows %v", c.values, c.r, placed, rows)
		}
		checkLayout(t, c.values, c.r, rects, 1e-12)
		if a := rects[0].Aspect(); !near(a, 1, 1e-12) {
			t.Errorf("%v in %+v: first rectangle %+v is not a square", c.values, c.r, rects[0])
		}
	}
	// Random layouts of equal values in squares: many rows of ratio 1.
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 500; trial++ {
		k := 1 + rng.IntN(12)
		values := make([]float64, k*k+rng.IntN(5))
		for i := range values {
			values[i] = 1
		}
		side := math.Sqrt(float64(len(values)))
		rects, err := Squarify(values, Rect{W: side, H: side})
		if err != nil {
			t.Fatal(err)
		}
		checkLayout(t, values, Rect{W: side, H: side}, rects, 1e-9)
	}
}

func TestZeroValuesGetNoArea(t *testing.T) {
	values := []float64{0, 3, 0, 1, 0}
	r := Rect{X: 1, Y: 2, W: 4, H: 1}
	rects, err := Squarify(values, r)
	if err != nil {
		t.Fatal(err)
	}
	checkLayout(t, values, r, rects, 1e-12)
	for _, i := range []int{0, 2, 4} {
		if rects[i] != (Rect{X: 1, Y: 2}) {
			t.Errorf("zero value %d: %+v, want a zero-size rectangle at the corner", i, rects[i])
		}
	}
	// All zeros, and nothing at all: nothing placed, no error.
	for _, values := range [][]float64{{0, 0}, nil} {
		rects, err := Squarify(values, r)
		if err != nil || len(rects) != len(values) {
			t.Fatalf("%v: %v, %v", values, rects, err)
		}
		for _, q := range rects {
			if q.Area() != 0 {
				t.Errorf("%v: %+v", values, q)
			}
		}
	}
}

func TestBadValuesAreArgumentErrors(t *testing.T) {
	for _, c := range []struct {
		values []float64
		r      Rect
		want   string
	}{
		{[]float64{1, math.NaN()}, Rect{W: 1, H: 1}, "value 1 is NaN"},
		{[]float64{1, 2, -1}, Rect{W: 1, H: 1}, "value 2 is -1"},
		{[]float64{math.Inf(1)}, Rect{W: 1, H: 1}, "value 0 is +Inf"},
		{[]float64{1}, Rect{W: -1, H: 1}, "negative side"},
		{[]float64{1}, Rect{W: math.NaN(), H: 1}, "not finite"},
	} {
		_, err := Squarify(c.values, c.r)
		var ae *errs.ArgumentError
		if !errors.As(err, &ae) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v in %+v: error %v, want an argument error saying %q", c.values, c.r, err, c.want)
		}
	}
}

// sliceLayout is the slice-and-dice layout of one level (Shneiderman
// 1992): strips across r in the order of the values, side by side along
// the width when vertical, stacked along the height otherwise.
func sliceLayout(values []float64, r Rect, vertical bool) []Rect {
	var total float64
	for _, v := range values {
		total += v
	}
	out := make([]Rect, len(values))
	pos := 0.0
	for i, v := range values {
		f := v / total
		if vertical {
			out[i] = Rect{X: r.X + pos*r.W, Y: r.Y, W: f * r.W, H: r.H}
		} else {
			out[i] = Rect{X: r.X, Y: r.Y + pos*r.H, W: r.W, H: f * r.H}
		}
		pos += f
	}
	return out
}

func worstAspect(rects []Rect, values []float64) float64 {
	w := 1.0
	for i, r := range rects {
		if values[i] > 0 {
			w = max(w, r.Aspect())
		}
	}
	return w
}

// The point of squarifying: on random inputs, the worst aspect ratio is
// never worse than slice-and-dice's, even cutting along the better side.
func TestNoWorseThanSliceAndDice(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	better, trials := 0, 5000
	for trial := 0; trial < trials; trial++ {
		values := randomValues(rng, 1+rng.IntN(60))
		r := randomRect(rng)
		rects, err := Squarify(values, r)
		if err != nil {
			t.Fatal(err)
		}
		sq := worstAspect(rects, values)
		sd := min(worstAspect(sliceLayout(values, r, true), values), worstAspect(sliceLayout(values, r, false), values))
		if sq > sd*(1+1e-9) {
			t.Fatalf("%v in %+v: worst aspect %v, slice-and-dice %v", values, r, sq, sd)
		}
		if sq < sd*(1-1e-9) {
			better++
		}
	}
	t.Logf("squarified strictly better than slice-and-dice in %d of %d random layouts", better, trials)
}

func TestSplit(t *testing.T) {
	r := Rect{X: 1, Y: 1, W: 4, H: 2}
	got, err := Split(r, []float64{0.5, 0.25})
	if err != nil {
		t.Fatal(err)
	}
	want := []Rect{{X: 1, Y: 1, W: 2, H: 2}, {X: 3, Y: 1, W: 1, H: 2}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("wide: %+v, want %+v", got, want)
	}
	// Taller than wide: from the top; fractions over 1 scaled down.
	got, err = Split(Rect{W: 1, H: 4}, []float64{1, 3})
	if err != nil {
		t.Fatal(err)
	}
	want = []Rect{{X: 0, Y: 3, W: 1, H: 1}, {X: 0, Y: 0, W: 1, H: 3}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tall: %+v, want %+v", got, want)
	}
	if _, err := Split(r, []float64{0.5, math.NaN()}); err == nil || !strings.Contains(err.Error(), "fraction 1") {
		t.Errorf("NaN fraction: %v", err)
	}
}
