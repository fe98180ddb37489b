package micro

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// profileTrace is randomTrace shaped like a GPU profile: 400 state values,
// each host using a dozen of them, so that a cell holds a few states out
// of hundreds.
func profileTrace(rng *rand.Rand, hosts int) *trace.Trace {
	t := trace.New("profile")
	t.DefineType(trace.Type{Name: "Cluster", Kind: trace.KindContainer, Parent: trace.None})
	t.DefineType(trace.Type{Name: "Host", Kind: trace.KindContainer, Parent: 0})
	t.DefineType(trace.Type{Name: "Kernel", Kind: trace.KindState, Parent: 1})
	const values = 400
	for v := range values {
		t.DefineValue(trace.Value{Type: 2, Name: fmt.Sprintf("kernel_%d", v)})
	}
	t.CreateContainer(trace.Container{Name: "c0", Type: 0, Parent: 0})
	t.CreateContainer(trace.Container{Name: "c1", Type: 0, Parent: 0})
	end := trace.Time(10_000)
	for h := range hosts {
		id := int32(len(t.Containers))
		t.CreateContainer(trace.Container{Name: fmt.Sprintf("h%d", h), Type: 1, Parent: int32(1 + h%2)})
		own := make([]int32, 12)
		for i := range own {
			own[i] = int32(rng.IntN(values))
		}
		type open struct {
			v     int32
			start trace.Time
		}
		var stack []open
		for now := trace.Time(0); now < end; {
			now = min(end, now+trace.Time(rng.IntN(400)))
			switch op := rng.IntN(4); {
			case op == 0 || len(stack) == 0:
				for d := len(stack) - 1; d >= 0; d-- {
					t.State(trace.State{Container: id, Type: 2, Value: stack[d].v, Start: stack[d].start, End: now, Depth: int32(d)})
				}
				stack = append(stack[:0], open{own[rng.IntN(len(own))], now})
			case op == 1 && len(stack) < 3:
				stack = append(stack, open{own[rng.IntN(len(own))], now})
			default:
				d := len(stack) - 1
				t.State(trace.State{Container: id, Type: 2, Value: stack[d].v, Start: stack[d].start, End: now, Depth: int32(d)})
				stack = stack[:d]
			}
		}
		for d := len(stack) - 1; d >= 0; d-- {
			t.State(trace.State{Container: id, Type: 2, Value: stack[d].v, Start: stack[d].start, End: end, Depth: int32(d)})
		}
	}
	t.Finish(0, end)
	return t
}

// TestSparseModelsMatchBruteForce builds profile-like models, which are
// sparse, in every way (the replay of the states, the whole trace, the
// stream) and checks that they agree bit for bit, cell for cell, and with
// the exact times computed in rational arithmetic.
func TestSparseModelsMatchBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for iter := range 12 {
		tr := profileTrace(rng, 6)
		n := []int{1, 10, 37, 100}[iter%4]
		depth := []int{Innermost, 0, 1}[iter%3]
		opt := Options{Slices: n, Depth: depth}
		m, err := Build(tr, opt)
		if err != nil {
			t.Fatal(err)
		}
		if n > 1 && !m.IsSparse() {
			t.Fatalf("iter %d: %d of %d values are not zero, and the model is dense", iter, m.NonZero(), len(m.Dense()))
		}
		whole, err := buildWhole(tr, opt)
		if err != nil {
			t.Fatal(err)
		}
		streamed, _, err := Stream(replay(tr), opt, trace.ReadOptions{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for how, other := range map[string]*Model{"whole trace": whole, "stream": streamed} {
			if err := sameModel(m, other); err != nil {
				t.Fatalf("iter %d: Build and %s: %v", iter, how, err)
			}
		}
		want := bruteForce(tr, 0, 10_000, n, depth)
		sliceLen := 10_000 / float64(n)
		for leaf, node := range m.Tree.Leaves {
			c := m.Container[node]
			row := make([]float64, len(m.States))
			for k := range n {
				m.Row(leaf, k, row)
				for x := range m.States {
					exp := 0.0
					if r := want[[3]int64{int64(c), int64(k), int64(x)}]; r != nil {
						exp, _ = r.Float64()
					}
					if got := row[x] * sliceLen; math.Abs(got-exp) > 1e-9*sliceLen || m.Value(leaf, k, x) != row[x] {
						t.Fatalf("iter %d: container %d slice %d state %s: %v (Value %v), want %v", iter, c, k, m.States[x], got, m.Value(leaf, k, x), exp)
					}
				}
			}
		}
	}
}

// TestModelForms checks the two forms of a model's values: conversions
// both ways, windows, and the memory each takes.
func TestModelForms(t *testing.T) {
	m, err := Build(profileTrace(rand.New(rand.NewPCG(9, 9)), 4), Options{Slices: 20, Depth: Innermost})
	if err != nil {
		t.Fatal(err)
	}
	d := m.ToDense()
	if !m.IsSparse() || d.IsSparse() || m.ToSparse() != m || d.ToDense() != d {
		t.Fatalf("forms: sparse %v, dense %v", m.IsSparse(), d.IsSparse())
	}
	if !slices.Equal(d.ToSparse().Cells.Value, m.Cells.Value) || !slices.Equal(d.Values, m.Dense()) {
		t.Fatal("the conversions do not give the same values")
	}
	if want := int64(len(m.Cells.Start))*8 + int64(m.NonZero())*12; m.ValueBytes() != want || d.ValueBytes() != int64(len(d.Values))*8 {
		t.Errorf("value bytes %d and %d", m.ValueBytes(), d.ValueBytes())
	}
	if m.NonZero() != d.NonZero() {
		t.Errorf("%d and %d non-zero values", m.NonZero(), d.NonZero())
	}
	for _, w := range [][2]int{{0, 19}, {3, 3}, {5, 12}} {
		ws, err := m.Window(w[0], w[1])
		if err != nil {
			t.Fatal(err)
		}
		wd, err := d.Window(w[0], w[1])
		if err != nil {
			t.Fatal(err)
		}
		if !ws.IsSparse() || !slices.Equal(ws.Dense(), wd.Values) || ws.Start != wd.Start || ws.End != wd.End {
			t.Errorf("window %v: the sparse model's differs from the dense one's", w)
		}
	}
}
