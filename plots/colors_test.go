package plots

import (
	"fmt"
	"image/color"
	"math"
	"strings"
	"testing"
)

// deltaE2000 is the CIEDE2000 colour difference (Sharma, Wu and Dalal
// 2005) of two CIELAB colours: the oracle for "looks like the same
// colour", independent of the OKLab distance the code uses.
func deltaE2000(a, b [3]float64) float64 {
	deg := math.Pi / 180
	c1, c2 := math.Hypot(a[1], a[2]), math.Hypot(b[1], b[2])
	cm := (c1 + c2) / 2
	g := 0.5 * (1 - math.Sqrt(math.Pow(cm, 7)/(math.Pow(cm, 7)+math.Pow(25, 7))))
	a1, a2 := (1+g)*a[1], (1+g)*b[1]
	c1p, c2p := math.Hypot(a1, a[2]), math.Hypot(a2, b[2])
	hue := func(x, y float64) float64 {
		if x == 0 && y == 0 {
			return 0
		}
		h := math.Atan2(y, x) / deg
		if h < 0 {
			h += 360
		}
		return h
	}
	h1, h2 := hue(a1, a[2]), hue(a2, b[2])
	dL, dC := b[0]-a[0], c2p-c1p
	dh := 0.0
	if c1p*c2p != 0 {
		dh = h2 - h1
		if dh > 180 {
			dh -= 360
		} else if dh < -180 {
			dh += 360
		}
	}
	dH := 2 * math.Sqrt(c1p*c2p) * math.Sin(dh/2*deg)
	lm, cmp := (a[0]+b[0])/2, (c1p+c2p)/2
	hm := h1 + h2
	if c1p*c2p != 0 {
		if math.Abs(h1-h2) <= 180 {
			hm = (h1 + h2) / 2
		} else if h1+h2 < 360 {
			hm = (h1 + h2 + 360) / 2
		} else {
			hm = (h1 + h2 - 360) / 2
		}
	}
	t := 1 - 0.17*math.Cos((hm-30)*deg) + 0.24*math.Cos(2*hm*deg) + 0.32*math.Cos((3*hm+6)*deg) - 0.20*math.Cos((4*hm-63)*deg)
	dTheta := 30 * math.Exp(-math.Pow((hm-275)/25, 2))
	rc := 2 * math.Sqrt(math.Pow(cmp, 7)/(math.Pow(cmp, 7)+math.Pow(25, 7)))
	sl := 1 + 0.015*(lm-50)*(lm-50)/math.Sqrt(20+(lm-50)*(lm-50))
	sc := 1 + 0.045*cmp
	sh := 1 + 0.015*cmp*t
	rt := -math.Sin(2*dTheta*deg) * rc
	return math.Sqrt(math.Pow(dL/sl, 2) + math.Pow(dC/sc, 2) + math.Pow(dH/sh, 2) + rt*(dC/sc)*(dH/sh))
}

// The oracle itself, on pairs of Sharma et al.'s table of test data.
func TestDeltaE2000Oracle(t *testing.T) {
	for _, c := range []struct {
		a, b [3]float64
		want float64
	}{
		{[3]float64{50, 2.6772, -79.7751}, [3]float64{50, 0, -82.7485}, 2.0425},
		{[3]float64{50, 2.5, 0}, [3]float64{50, 0, -2.5}, 4.3065},
		{[3]float64{50, 2.5, 0}, [3]float64{73, 25, -18}, 27.1492},
		{[3]float64{60.2574, -34.0099, 36.2677}, [3]float64{60.4626, -34.1751, 39.4387}, 1.2644},
	} {
		if got := deltaE2000(c.a, c.b); math.Abs(got-c.want) > 1e-4 {
			t.Errorf("ΔE2000(%v, %v) = %.4f, want %.4f", c.a, c.b, got, c.want)
		}
	}
}

// minDeltaE2000 is the smallest CIEDE2000 difference between two colours
// of a map, and the pair.
func minDeltaE2000(cs ColorMap) (float64, int, int) {
	best, bi, bj := math.Inf(1), -1, -1
	for i := range cs {
		for j := i + 1; j < len(cs); j++ {
			if d := deltaE2000(cieLab(cs[i]), cieLab(cs[j])); d < best {
				best, bi, bj = d, i, j
			}
		}
	}
	return best, bi, bj
}

// The colours of SimGrid's SMPI traces (is_B_64.trace of the corpus):
// PMPI_Init, PMPI_Reduce and PMPI_Finalize are all "0 1 0". The first
// keeps the trace's green; the others get colours of their own, far from
// every other state's; the states with colours of their own keep them.
func TestResolveColorsTraceDuplicates(t *testing.T) {
	names := []string{"PMPI_Init", "PMPI_Allreduce", "PMPI_Alltoall", "PMPI_Alltoallv", "PMPI_Reduce",
		"PMPI_Irecv", "PMPI_Send", "PMPI_Wait", "PMPI_Finalize"}
	trace := []string{"0 1 0", "1 0 1", "0.52 0 1", "0.78 0.52 1", "0 1 0", "1 0.52 0.52", "0 0 1", "1 1 0", "0 1 0"}
	cm, err := ResolveColors(names, trace, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, spec := range trace {
		if i == 4 || i == 8 {
			continue
		}
		if want, _ := ParseColor(spec); cm[i] != want {
			t.Errorf("%s: %v, want the trace's %v", names[i], cm[i], want)
		}
	}
	green := color.RGBA{0, 255, 0, 255}
	if cm[4] == green || cm[8] == green || cm[4] == cm[8] {
		t.Errorf("duplicates kept: Reduce %v, Finalize %v", cm[4], cm[8])
	}
	// Before: ΔE2000 0 between Init, Reduce and Finalize. (The trace's
	// own Alltoall and Send are 9.9 apart: the trace's choice.)
	for _, i := range []int{4, 8} {
		for j := range names {
			if d := deltaE2000(cieLab(cm[i]), cieLab(cm[j])); j != i && d < 10 {
				t.Errorf("%s and %s: ΔE2000 %.2f < 10", names[i], names[j], d)
			}
		}
	}
	// A user's override is the user's choice, duplicates included.
	cm, err = ResolveColors(names, trace, map[string]string{"PMPI_Reduce": "#00ff00"})
	if err != nil || cm[4] != green {
		t.Errorf("override: %v, %v", cm[4], err)
	}
}

// Near duplicates count too, and palette colours avoid the trace's: a
// state without a trace colour whose palette colour (index 0 is Set1's
// red, 228 26 28) is the colour another state was given by the trace
// takes another.
func TestResolveColorsNearDuplicates(t *testing.T) {
	names := []string{"a", "b", "c", "d"}
	trace := []string{"", "0.894 0.102 0.110", "0.9 0.1 0.1", "0 0 1"}
	cm, err := ResolveColors(names, trace, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := ParseColor(trace[1]); cm[1] != want {
		t.Errorf("b: %v, want the trace's %v", cm[1], want)
	}
	if d, i, j := minDeltaE2000(cm); d < 10 {
		t.Errorf("%s and %s: ΔE2000 %.2f < 10 (%v)", names[i], names[j], d, cm)
	}
	// Without trace colours the map is the palette, unchanged, also past
	// the palette's size (a Kineto trace has hundreds of kernel names; an
	// early version gave every state past the 256th one colour).
	many := make([]string, 600)
	for i := range many {
		many[i] = fmt.Sprint("kernel ", i)
	}
	for _, tc := range [][]string{nil, {"", "", "0 0.5 1"}} {
		plain, err := ResolveColors(many, tc, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range many {
			want := CategoryColor(i)
			if i == 2 && tc != nil {
				want = color.RGBA{0, 128, 255, 255}
			}
			if plain[i] != want {
				t.Errorf("%v: %s: %v, want %v", tc, many[i], plain[i], want)
				break
			}
		}
	}
}

// A colour the user gives one state (colors=) is not the palette's colour
// of another: that state takes the next free palette colour, as it does
// beside the trace's colours; the states the override does not touch keep
// theirs.
func TestResolveColorsAvoidsTheUsersColours(t *testing.T) {
	names := []string{"compute", "MPI_Wait", "MPI_Send", "MPI_Recv"}
	second := Hex(CategoryColor(1)) // the palette's colour of MPI_Wait
	cm, err := ResolveColors(names, nil, map[string]string{"compute": second})
	if err != nil {
		t.Fatal(err)
	}
	if cm[0] != CategoryColor(1) {
		t.Errorf("compute: %v, want the user's %s", cm[0], second)
	}
	if d := deltaE2000(cieLab(cm[0]), cieLab(cm[1])); d < 10 {
		t.Errorf("MPI_Wait %v looks like the user's compute %v: ΔE2000 %.2f", cm[1], cm[0], d)
	}
	for i := 2; i < len(names); i++ {
		if cm[i] != CategoryColor(i) {
			t.Errorf("%s: %v, want the palette's %v", names[i], cm[i], CategoryColor(i))
		}
	}
}

// A model of many states without trace colours keeps the palette, whose
// first 40 colours are pairwise at least ΔE2000 9 apart (past 30 states).
func TestPaletteMinDeltaE2000(t *testing.T) {
	for _, c := range []struct {
		n     int
		bound float64
	}{{10, 20}, {30, 9}, {40, 9}} {
		d, i, j := minDeltaE2000(ColorMap(Palette(c.n)))
		t.Logf("n=%d min ΔE2000=%.2f (%d, %d)", c.n, d, i, j)
		if d < c.bound {
			t.Errorf("first %d colours: colours %d and %d at ΔE2000 %.2f < %.0f", c.n, i, j, d, c.bound)
		}
	}
}

// Later repeats of a colour are dropped, the first kept, whatever the
// order the figure lists its states in afterwards (jacobi32.trace:
// PMPI_Init and PMPI_Finalize are both "0 1 0").
func TestDistinctTraceColors(t *testing.T) {
	got := DistinctTraceColors([]string{"0.6 0.8 0.6", "0 1 0", "", "bogus", "1 0 1", "0 1 0", "0.99 0 1"})
	want := []string{"0.6 0.8 0.6", "0 1 0", "", "", "1 0 1", "", ""}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Of several colours given for states the figure lacks, the error names
// the first by name, every time (the map's order is random).
func TestResolveColorsUnknownNamesInOrder(t *testing.T) {
	over := map[string]string{"zeta": "red", "beta": "blue", "alpha": "green", "gamma": "#000000"}
	for range 50 {
		_, err := ResolveColors([]string{"gamma"}, nil, over)
		if err == nil || !strings.Contains(err.Error(), `"alpha"`) {
			t.Fatalf("error %v, want one naming \"alpha\"", err)
		}
	}
}
