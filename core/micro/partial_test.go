package micro

import (
	"slices"
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

// FuzzPartial corrupts one index or length of a valid partial, as a
// damaged message between processes would: Merge and Model report it,
// never panic. (The bytes themselves are gob's, which checks its own
// framing; partials travel between the processes of one computation.)
func FuzzPartial(f *testing.F) {
	f.Add(uint8(0), int32(7), false)
	f.Add(uint8(5), int32(-3), true)
	f.Add(uint8(9), int32(1), false)
	f.Fuzz(func(t *testing.T, field uint8, v int32, average bool) {
		opt := Options{Slices: 3}
		if average {
			opt = Options{Slices: 2, Metric: StateAverageDuration}
		}
		p := partialOf(t, opt)
		switch field % 12 {
		case 0:
			p.Types[1].Parent = v
		case 1:
			p.Values[0].Type = v
		case 2:
			p.Containers[1].Parent = v
		case 3:
			p.Containers[2].Type = v
		case 4:
			p.ColCont[0] = v
		case 5:
			p.ColCode[0] = v
		case 6:
			p.NoValue = append(p.NoValue, v)
			p.NoValueFirst = append(p.NoValueFirst, 0)
		case 7:
			p.Dur[0] = p.Dur[0][:min(int(uint32(v)%4), len(p.Dur[0]))]
		case 8:
			p.Options.Slices = int(v)
		case 9:
			p.TypeFirst = p.TypeFirst[:int(uint32(v))%(len(p.TypeFirst)+1)]
		case 10:
			p.NaN = append(p.NaN, trace.Variable{Container: v, Type: v})
		case 11:
			p.Stays = nil
		}
		if m, err := Merge(ByPart, p, partialOf(t, opt)); err == nil {
			_, _ = m.Model()
		}
		_, _ = p.Model()
	})
}

func TestUnmarshalPartial(t *testing.T) {
	p := partialOf(t, Options{Slices: 3})
	data, err := p.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	q, err := UnmarshalPartial(data)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := p.Model()
	b, _ := q.Model()
	if !slices.Equal(a.Dense(), b.Dense()) {
		t.Fatalf("decoded partial gives %v, want %v", b.Dense(), a.Dense())
	}
	if _, err := UnmarshalPartial(data[:len(data)/2]); err == nil {
		t.Fatal("a cut partial decoded without error")
	}
}
