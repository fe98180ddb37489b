package aggregate

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/hier"
)

// twoLeaves is a root over two leaves with the given rows of values
// (slices x 2 states each).
func twoLeaves(a, b []float64) Input {
	bld := hier.NewBuilder("root")
	bld.Add(0, "a")
	bld.Add(0, "b")
	tree, _ := bld.Build()
	return Input{Tree: tree, Slices: len(a) / 2, States: 2, Values: append(append([]float64(nil), a...), b...)}
}

func TestTieRules(t *testing.T) {
	zero := twoLeaves(make([]float64, 6), make([]float64, 6))
	same := twoLeaves([]float64{0.5, 0.5, 0.5, 0.5, 0.5, 0.5}, []float64{0.5, 0.5, 0.5, 0.5, 0.5, 0.5})
	for _, c := range []struct {
		name  string
		kind  Kind
		in    Input
		p     float64
		parts string
	}{
		// Gain, value and loss all equal (no data): aggregate (Triva's rule,
		// lpaggreg's for the spatiotemporal kind).
		{"spatial, full tie", KindSpatial, zero, 0.3, "0:0-2 "},
		{"spatiotemporal, full tie", KindSpatiotemporal, zero, 0.3, "0:0-2 "},
		// Full ties between time cuts go to the later cut (lpaggreg's OLP):
		// every slice on its own.
		{"temporal, full tie", KindTemporal, zero, 0.3, "1:0-0 1:1-1 1:2-2 2:0-0 2:1-1 2:2-2 "},
		// At p = 0 every lossless partition has the value 0: with
		// lpaggreg's rule the larger gain wins, which merges identical
		// cells; by default the finest partition does.
		{"spatial, value tie", KindSpatial, same, 0, "0:0-2 "},
		{"spatiotemporal, value tie", KindSpatiotemporal, same, 0, "0:0-2 "},
		{"temporal, value tie", KindTemporal, same, 0, "1:0-2 2:0-2 "},
		{"spatial, value tie, finest", KindSpatial, same, -1, "1:0-2 2:0-2 "},
		{"spatiotemporal, value tie, finest", KindSpatiotemporal, same, -1, "1:0-0 1:1-1 1:2-2 2:0-0 2:1-1 2:2-2 "},
		{"temporal, value tie, finest", KindTemporal, same, -1, "1:0-0 1:1-1 1:2-2 2:0-0 2:1-1 2:2-2 "},
	} {
		opt := Options{Ties: TiesLpaggreg}
		if c.p < 0 { // p = 0 with the default rule
			c.p, opt.Ties = 0, ""
		}
		e, err := New(c.kind, c.in, opt)
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.Solve(c.p)
		if err != nil {
			t.Fatal(err)
		}
		if k := key(got.Parts); k != c.parts {
			t.Errorf("%s: %s, want %s", c.name, k, c.parts)
		}
	}
}

// A model of a single slice has no time to cut: the spatiotemporal optimum
// is the spatial one.
func TestOneSliceSpatiotemporalIsSpatial(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 1))
	for iter := 0; iter < 30; iter++ {
		in := randomInput(rng, 3, 1, 3)
		st, err := NewSpatiotemporal(in, Options{Normalize: true})
		if err != nil {
			t.Fatal(err)
		}
		sp, err := NewSpatial(in, Options{Normalize: true, Gain: GainEntropy, Entities: EntitiesCells})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []float64{0, 0.2, 0.4, 0.6, 1} {
			a, _ := st.Solve(p)
			b, _ := sp.Solve(p)
			if key(a.Parts) != key(b.Parts) || math.Abs(a.Value-b.Value) > 1e-12 {
				t.Fatalf("iter %d p=%v: spatiotemporal %s, spatial %s", iter, p, key(a.Parts), key(b.Parts))
			}
		}
	}
}

func TestBadInput(t *testing.T) {
	good := twoLeaves([]float64{0.5, 0.5}, []float64{1, 0})
	empty, _ := hier.NewBuilder("root").Build()
	for name, in := range map[string]Input{
		"no hierarchy":    {Slices: 1, States: 1},
		"leafless":        {Tree: &hier.Tree{}, Slices: 1, States: 1},
		"zero slices":     {Tree: good.Tree, Slices: 0, States: 2, Values: nil},
		"no state":        {Tree: good.Tree, Slices: 1, States: 0},
		"short values":    {Tree: good.Tree, Slices: 1, States: 2, Values: []float64{1, 2, 3}},
		"NaN":             {Tree: good.Tree, Slices: 1, States: 2, Values: []float64{1, math.NaN(), 0, 0}},
		"negative":        {Tree: good.Tree, Slices: 1, States: 2, Values: []float64{1, -1e-9, 0, 0}},
		"infinite":        {Tree: good.Tree, Slices: 1, States: 2, Values: []float64{1, math.Inf(1), 0, 0}},
		"too many slices": {Tree: empty, Slices: 1 << 16, States: 1, Values: make([]float64, 1<<16)},
	} {
		for _, kind := range []Kind{KindSpatiotemporal, KindSpatial, KindTemporal} {
			_, err := New(kind, in, Options{})
			var ae *errs.ArgumentError
			if !errors.As(err, &ae) {
				t.Errorf("%s, %s: got %v, want an ArgumentError", name, kind, err)
			}
		}
	}
	for _, kind := range []Kind{KindSpatiotemporal, KindSpatial, KindTemporal} {
		e, err := New(kind, good, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []float64{-0.1, 1.5, math.NaN()} {
			var ae *errs.ArgumentError
			if _, err := e.Solve(p); !errors.As(err, &ae) {
				t.Errorf("%s: p=%v gave %v", kind, p, err)
			}
		}
	}
	for _, w := range []Window{{-1, 0}, {1, 0}, {0, 1}} {
		var ae *errs.ArgumentError
		if _, err := NewSpatial(good, Options{Window: &w}); !errors.As(err, &ae) {
			t.Errorf("window %+v: got %v", w, err)
		}
	}
	var ae *errs.ArgumentError
	if _, err := New("both", good, Options{}); !errors.As(err, &ae) {
		t.Errorf("unknown kind: got %v", err)
	}
	if _, err := New(KindSpatial, good, Options{Gain: "bits"}); !errors.As(err, &ae) {
		t.Errorf("unknown gain: got %v", err)
	}
}

// TestFirstInvalidAcrossChunks checks that the first bad value is the one
// reported, whichever chunk and worker finds one first.
func TestFirstInvalidAcrossChunks(t *testing.T) {
	values := make([]float64, 3<<20+5)
	if got := firstInvalid(values, 3); got != -1 {
		t.Fatalf("valid values: got %d", got)
	}
	values[0] = math.Copysign(0, -1) // -0 is not negative
	values[3<<20+1] = math.Inf(1)
	values[2<<20+7] = math.NaN()
	values[1<<20+3] = -1
	for _, workers := range []int{0, 1, 2, 7} {
		if got := firstInvalid(values, workers); got != 1<<20+3 {
			t.Errorf("%d workers: got %d, want %d", workers, got, 1<<20+3)
		}
	}
	values[1<<20+3] = 1
	if got := firstInvalid(values, 2); got != 2<<20+7 {
		t.Errorf("got %d, want %d", got, 2<<20+7)
	}
}
