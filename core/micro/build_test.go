package micro

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// randomTrace builds a trace with two clusters of hosts, each host running
// a random sequence of set/push/pop operations on one state type, with
// times on a coarse grid so that many states start on slice boundaries.
func randomTrace(rng *rand.Rand, hosts int) *trace.Trace {
	t := trace.New("random")
	t.DefineType(trace.Type{Name: "Cluster", Kind: trace.KindContainer, Parent: trace.None})
	t.DefineType(trace.Type{Name: "Host", Kind: trace.KindContainer, Parent: 0})
	t.DefineType(trace.Type{Name: "Activity", Kind: trace.KindState, Parent: 1})
	names := []string{"compute", "send", "recv", "wait"}
	for _, n := range names {
		t.DefineValue(trace.Value{Type: 2, Name: n})
	}
	t.CreateContainer(trace.Container{Name: "c0", Type: 0, Parent: 0})
	t.CreateContainer(trace.Container{Name: "c1", Type: 0, Parent: 0})
	end := trace.Time(1000)
	for h := 0; h < hosts; h++ {
		id := int32(len(t.Containers))
		t.CreateContainer(trace.Container{Name: "h", Type: 1, Parent: int32(1 + h%2)})
		type open struct {
			v     int32
			start trace.Time
		}
		var stack []open
		now := trace.Time(0)
		for now < end {
			now += trace.Time(rng.IntN(60)) // zero-length states happen too
			if now > end {
				now = end
			}
			switch op := rng.IntN(4); {
			case op == 0 || len(stack) == 0: // set
				for d := len(stack) - 1; d >= 0; d-- {
					t.State(trace.State{Container: id, Type: 2, Value: stack[d].v, Start: stack[d].start, End: now, Depth: int32(d)})
				}
				stack = append(stack[:0], open{int32(rng.IntN(4)), now})
			case op == 1 && len(stack) < 4: // push
				stack = append(stack, open{int32(rng.IntN(4)), now})
			default: // pop
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

// bruteForce computes the exact time (as a rational number) each container
// spends in each value within each slice, by walking every elementary
// segment between consecutive state boundaries and picking the deepest
// covering state (innermost) or the states at one depth.
func bruteForce(t *trace.Trace, start, end trace.Time, n int, depth int) map[[3]int64]*big.Rat {
	out := map[[3]int64]*big.Rat{}
	w := big.NewRat(int64(end-start), int64(n))
	addOverlap := func(c, v int32, a, b trace.Time) {
		for k := 0; k < n; k++ {
			lo := new(big.Rat).Add(big.NewRat(int64(start), 1), new(big.Rat).Mul(w, big.NewRat(int64(k), 1)))
			hi := new(big.Rat).Add(lo, w)
			x0 := maxRat(lo, big.NewRat(int64(a), 1))
			x1 := minRat(hi, big.NewRat(int64(b), 1))
			if x1.Cmp(x0) > 0 {
				key := [3]int64{int64(c), int64(k), int64(v)}
				if out[key] == nil {
					out[key] = new(big.Rat)
				}
				out[key].Add(out[key], new(big.Rat).Sub(x1, x0))
			}
		}
	}
	byContainer := map[int32][]trace.State{}
	for _, s := range t.States.All() {
		byContainer[s.Container] = append(byContainer[s.Container], s)
	}
	for c, states := range byContainer {
		if depth >= 0 {
			for _, s := range states {
				if s.Depth == int32(depth) {
					addOverlap(c, s.Value, s.Start, s.End)
				}
			}
			continue
		}
		var pts []trace.Time
		for _, s := range states {
			pts = append(pts, s.Start, s.End)
		}
		sort.Slice(pts, func(i, j int) bool { return pts[i] < pts[j] })
		for i := 0; i+1 < len(pts); i++ {
			a, b := pts[i], pts[i+1]
			if a == b {
				continue
			}
			best := -1
			for j, s := range states {
				if s.Start <= a && b <= s.End && (best < 0 || s.Depth > states[best].Depth) {
					best = j
				}
			}
			if best >= 0 {
				addOverlap(c, states[best].Value, a, b)
			}
		}
	}
	return out
}

func maxRat(a, b *big.Rat) *big.Rat {
	if a.Cmp(b) >= 0 {
		return a
	}
	return b
}

func minRat(a, b *big.Rat) *big.Rat {
	if a.Cmp(b) <= 0 {
		return a
	}
	return b
}

func TestBuildMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 40; iter++ {
		tr := randomTrace(rng, 5)
		n := []int{1, 3, 7, 10, 20}[iter%5]
		depth := []int{Innermost, 0, 1}[iter%3]
		opt := Options{Slices: n, Depth: depth}
		var start, end trace.Time = 0, 1000
		if iter%4 == 3 { // a window inside the trace
			start, end = 137, 911
			opt.Start, opt.End = &start, &end
		}
		m, err := Build(tr, opt)
		if err != nil {
			t.Fatal(err)
		}
		want := bruteForce(tr, start, end, n, depth)
		sliceLen := float64(end-start) / float64(n)
		for leaf, node := range m.Tree.Leaves {
			c := m.Container[node]
			for k := 0; k < n; k++ {
				for x := range m.States {
					got := m.Value(leaf, k, x) * sliceLen
					exp := 0.0
					if r := want[[3]int64{int64(c), int64(k), int64(x)}]; r != nil {
						exp, _ = r.Float64()
					}
					if math.Abs(got-exp) > 1e-9*sliceLen {
						t.Fatalf("iter %d: container %d slice %d state %s: %v, want %v", iter, c, k, m.States[x], got, exp)
					}
				}
			}
		}
	}
}

func TestInnermostIsExclusive(t *testing.T) {
	// With innermost semantics a resource is in exactly one state while any
	// state is open, so proportions of a fully covered slice sum to 1.
	tr := randomTrace(rand.New(rand.NewPCG(3, 4)), 6)
	m, err := Build(tr, Options{Slices: 10, Depth: Innermost})
	if err != nil {
		t.Fatal(err)
	}
	for leaf := range m.Tree.Leaves {
		for k := 0; k < m.Slices; k++ {
			sum := 0.0
			for x := range m.States {
				sum += m.Value(leaf, k, x)
			}
			if sum > 1+1e-12 {
				t.Fatalf("leaf %d slice %d: proportions sum to %v > 1", leaf, k, sum)
			}
		}
	}
}

func TestBoundaryAlignedStates(t *testing.T) {
	// A state starting exactly on an inner slice boundary and a zero-length
	// state: Ocelotl drops both; they must count (the second for nothing).
	tr := trace.New("aligned")
	tr.DefineType(trace.Type{Name: "Host", Kind: trace.KindContainer, Parent: trace.None})
	tr.DefineType(trace.Type{Name: "S", Kind: trace.KindState, Parent: 0})
	tr.DefineValue(trace.Value{Type: 1, Name: "a"})
	tr.DefineValue(trace.Value{Type: 1, Name: "b"})
	tr.CreateContainer(trace.Container{Name: "h0", Type: 0, Parent: 0})
	tr.State(trace.State{Container: 1, Type: 1, Value: 0, Start: 0, End: 250})
	tr.State(trace.State{Container: 1, Type: 1, Value: 1, Start: 250, End: 250})
	tr.State(trace.State{Container: 1, Type: 1, Value: 1, Start: 250, End: 1000})
	tr.Finish(0, 1000)
	m, err := Build(tr, Options{Slices: 4, Depth: Innermost})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float64{{1, 0}, {0, 1}, {0, 1}, {0, 1}}
	for k, row := range want {
		for x, v := range row {
			if got := m.Value(0, k, x); got != v {
				t.Errorf("slice %d state %s = %v, want %v", k, m.States[x], got, v)
			}
		}
	}
}

func TestSelfLeafAndEmptyResources(t *testing.T) {
	tr := trace.New("self")
	tr.DefineType(trace.Type{Name: "Node", Kind: trace.KindContainer, Parent: trace.None})
	tr.DefineType(trace.Type{Name: "S", Kind: trace.KindState, Parent: 0})
	tr.DefineType(trace.Type{Name: "Node2", Kind: trace.KindContainer, Parent: 0})
	tr.DefineType(trace.Type{Name: "Link", Kind: trace.KindContainer, Parent: trace.None})
	tr.DefineValue(trace.Value{Type: 1, Name: "busy"})
	tr.CreateContainer(trace.Container{Name: "n", Type: 0, Parent: 0}) // 1: a resource with data
	tr.CreateContainer(trace.Container{Name: "x", Type: 2, Parent: 1}) // 2: not a resource
	tr.CreateContainer(trace.Container{Name: "m", Type: 0, Parent: 0}) // 3: resource, no data
	tr.CreateContainer(trace.Container{Name: "l", Type: 3, Parent: 0}) // 4: other type
	tr.State(trace.State{Container: 1, Type: 1, Value: 0, Start: 0, End: 10})
	tr.Finish(0, 10)
	m, err := Build(tr, Options{Slices: 2, Depth: Innermost})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range m.Tree.Leaves {
		names = append(names, m.Tree.Path(l, "/"))
	}
	if len(names) != 2 || names[0] != "n" || names[1] != "m" {
		t.Fatalf("leaves %v, want [n m]", names)
	}
	if m.Value(0, 0, 0) != 1 || m.Value(1, 1, 0) != 0 {
		t.Errorf("values %v", m.Dense())
	}
}

func TestBuildRejectsBadArguments(t *testing.T) {
	tr := randomTrace(rand.New(rand.NewPCG(5, 6)), 2)
	five, three := trace.Time(5), trace.Time(3)
	for name, opt := range map[string]Options{
		"zero slices":   {Slices: 0},
		"too many":      {Slices: MaxSlices + 1},
		"empty window":  {Slices: 2, Start: &five, End: &three},
		"bad depth":     {Slices: 2, Depth: -2},
		"finer than ns": {Slices: 3, Start: &three, End: &five},
		"unknown type":  {Slices: 2, StateTypes: []string{"nope"}},
	} {
		_, err := Build(tr, opt)
		var ae *errs.ArgumentError
		if !errors.As(err, &ae) {
			t.Errorf("%s: got %v, want an ArgumentError", name, err)
		}
	}
}
