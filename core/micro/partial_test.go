package micro

import (
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// partialOf streams a small trace of two containers into a partial.
func partialOf(t testing.TB, opt Options) *Partial {
	a, err := NewPartialAccumulator(opt, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	a.DefineType(trace.Type{Name: "P", Kind: trace.KindContainer, Parent: trace.None, Start: trace.None, End: trace.None})
	a.DefineType(trace.Type{Name: "S", Kind: trace.KindState, Parent: 0, Start: trace.None, End: trace.None})
	a.DefineValue(trace.Value{Type: 1, Name: "run"})
	a.DefineValue(trace.Value{Type: 1, Name: "wait"})
	a.CreateContainer(trace.Container{Name: "p0", Type: 0, Parent: 0})
	a.CreateContainer(trace.Container{Name: "p1", Type: 0, Parent: 0})
	a.State(trace.State{Container: 1, Type: 1, Value: 0, Start: 0, End: 40})
	a.State(trace.State{Container: 2, Type: 1, Value: 1, Start: 30, End: 100})
	a.Finish(0, 100)
	p, err := a.Partial()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A partial of the whole trace gives Build's model.
func TestPartialModelIsBuilds(t *testing.T) {
	opt := Options{Slices: 7, Depth: Innermost}
	got, err := partialOf(t, opt).Model()
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{}
	// p0 runs [0, 40): slices of 100/7 ns; p1 waits [30, 100).
	w := 100.0 / 7
	for leaf, span := range [][2]float64{{0, 40}, {30, 100}} {
		for k := range 7 {
			lo, hi := max(span[0], float64(k)*w), min(span[1], float64(k+1)*w)
			cell := [2]float64{}
			if hi > lo {
				// Integer arithmetic: scaled by 7, divided by 100 once.
				cell[leaf] = float64(int64(hi*7+0.5)-int64(lo*7+0.5)) / 100
			}
			want = append(want, cell[0], cell[1])
		}
	}
	if len(got.Values) != len(want) {
		t.Fatalf("%d cells, want %d", len(got.Values), len(want))
	}
	for i := range want {
		if got.Values[i] != want[i] {
			t.Fatalf("cell %d = %v, want %v", i, got.Values[i], want[i])
		}
	}
}

func FuzzUnmarshalPartial(f *testing.F) {
	for _, opt := range []Options{{Slices: 3}, {Slices: 2, Metric: StateAverageDuration}} {
		data, err := partialOf(f, opt).MarshalBinary()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := UnmarshalPartial(data)
		if err != nil {
			return
		}
		// Corrupt partials are errors, never panics.
		if m, err := Merge(ByPart, p, p); err == nil {
			_, _ = m.Model()
		}
		_, _ = p.Model()
	})
}
