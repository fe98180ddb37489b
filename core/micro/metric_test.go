package micro

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// withEventsAndVariables adds to a random trace (randomTrace) an event type
// with two values and two variable types on hosts, with times on a coarse
// grid so that many fall on slice boundaries and on the window's ends.
func withEventsAndVariables(rng *rand.Rand, t *trace.Trace) {
	evType := int32(len(t.Types))
	t.DefineType(trace.Type{Name: "Mark", Kind: trace.KindEvent, Parent: 1})
	v0 := int32(len(t.Values))
	t.DefineValue(trace.Value{Type: evType, Name: "send"})
	t.DefineValue(trace.Value{Type: evType, Name: "recv"})
	load := int32(len(t.Types))
	t.DefineType(trace.Type{Name: "load", Kind: trace.KindVariable, Parent: 1})
	t.DefineType(trace.Type{Name: "mem", Kind: trace.KindVariable, Parent: 1})
	for c := int32(3); c < int32(len(t.Containers)); c++ {
		for k := 0; k < 40; k++ {
			t.Event(trace.Event{Container: c, Type: evType, Value: v0 + int32(rng.IntN(2)), Time: trace.Time(25 * rng.IntN(41))})
		}
		for _, typ := range []int32{load, load + 1} {
			at := trace.Time(0)
			for at < 1000 {
				next := min(at+trace.Time(1+rng.IntN(120)), 1000)
				if rng.IntN(4) > 0 { // gaps where the variable is not defined
					t.Variable(trace.Variable{Container: c, Type: typ, Start: at, End: next, Value: float64(rng.IntN(2000)-500) / 7})
				}
				at = next
			}
		}
	}
}

// slicesOf returns the exact slice boundaries of [start, end] cut in n.
func slicesOf(start, end trace.Time, n int) []*big.Rat {
	out := make([]*big.Rat, n+1)
	for k := range out {
		out[k] = new(big.Rat).Add(big.NewRat(int64(start), 1), big.NewRat(int64(k)*int64(end-start), int64(n)))
	}
	return out
}

func overlapRat(bounds []*big.Rat, k int, a, b trace.Time) *big.Rat {
	lo := maxRat(bounds[k], big.NewRat(int64(a), 1))
	hi := minRat(bounds[k+1], big.NewRat(int64(b), 1))
	if hi.Cmp(lo) <= 0 {
		return new(big.Rat)
	}
	return new(big.Rat).Sub(hi, lo)
}

func TestEventCountMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for iter := 0; iter < 20; iter++ {
		tr := randomTrace(rng, 4)
		withEventsAndVariables(rng, tr)
		n := []int{1, 3, 8, 40}[iter%4]
		start, end := trace.Time(0), trace.Time(1000)
		opt := Options{Slices: n, Metric: EventCount}
		if iter%2 == 1 {
			start, end = 250, 750
			opt.Start, opt.End = &start, &end
		}
		m, err := Build(tr, opt)
		if err != nil {
			t.Fatal(err)
		}
		if len(m.States) != 2 || m.States[0] != "send" || m.States[1] != "recv" || m.Metric != EventCount {
			t.Fatalf("categories %v, metric %q", m.States, m.Metric)
		}
		bounds := slicesOf(start, end, n)
		want := map[[3]int]float64{}
		for _, e := range tr.Events.All() {
			at := big.NewRat(int64(e.Time), 1)
			for k := 0; k < n; k++ {
				// [b_k, b_k+1), the last slice closed.
				if at.Cmp(bounds[k]) >= 0 && (at.Cmp(bounds[k+1]) < 0 || k == n-1 && at.Cmp(bounds[k+1]) == 0) {
					want[[3]int{int(e.Container), k, int(e.Value) - 4}]++
				}
			}
		}
		for leaf, node := range m.Tree.Leaves {
			for k := 0; k < n; k++ {
				for x := range m.States {
					if got, w := m.Value(leaf, k, x), want[[3]int{int(m.Container[node]), k, x}]; got != w {
						t.Fatalf("iter %d: leaf %d slice %d %s: %v events, want %v", iter, leaf, k, m.States[x], got, w)
					}
				}
			}
		}
	}
}

func TestVariableAverageMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for iter := 0; iter < 20; iter++ {
		tr := randomTrace(rng, 4)
		withEventsAndVariables(rng, tr)
		n := []int{1, 3, 7, 30}[iter%4]
		start, end := trace.Time(0), trace.Time(1000)
		opt := Options{Slices: n, Metric: VariableAverage, Types: []string{"mem", "load"}}
		if iter%2 == 1 {
			start, end = 137, 911
			opt.Start, opt.End = &start, &end
		}
		m, err := Build(tr, opt)
		if err != nil {
			t.Fatal(err)
		}
		if len(m.States) != 2 || m.States[0] != "load" || m.States[1] != "mem" {
			t.Fatalf("categories %v", m.States)
		}
		bounds := slicesOf(start, end, n)
		sliceLen := new(big.Rat).Sub(bounds[1], bounds[0])
		want := map[[3]int]*big.Rat{}
		for _, v := range tr.Variables.All() {
			val := new(big.Rat).SetFloat64(v.Value)
			for k := 0; k < n; k++ {
				key := [3]int{int(v.Container), k, int(v.Type) - 4}
				if want[key] == nil {
					want[key] = new(big.Rat)
				}
				want[key].Add(want[key], new(big.Rat).Mul(val, overlapRat(bounds, k, v.Start, v.End)))
			}
		}
		for leaf, node := range m.Tree.Leaves {
			for k := 0; k < n; k++ {
				for x := range m.States {
					w := 0.0
					if r := want[[3]int{int(m.Container[node]), k, x}]; r != nil {
						w, _ = new(big.Rat).Quo(r, sliceLen).Float64()
					}
					if got := m.Value(leaf, k, x); math.Abs(got-w) > 1e-12*math.Max(1, math.Abs(w)) {
						t.Fatalf("iter %d: leaf %d slice %d %s: %v, want %v", iter, leaf, k, m.States[x], got, w)
					}
				}
			}
		}
	}
}

// stays returns, by brute force, the exclusive time (innermost) or the
// time at one depth that each container spends in each value per slice,
// and the number of distinct state intervals contributing to it.
func stays(t *trace.Trace, start, end trace.Time, n, depth int) (map[[3]int64]*big.Rat, map[[3]int64]int) {
	bounds := slicesOf(start, end, n)
	dur := map[[3]int64]*big.Rat{}
	who := map[[3]int64]map[int]bool{}
	add := func(c int32, state int, v int32, a, b trace.Time) {
		for k := 0; k < n; k++ {
			if d := overlapRat(bounds, k, a, b); d.Sign() > 0 {
				key := [3]int64{int64(c), int64(k), int64(v)}
				if dur[key] == nil {
					dur[key], who[key] = new(big.Rat), map[int]bool{}
				}
				dur[key].Add(dur[key], d)
				who[key][state] = true
			}
		}
	}
	byContainer := map[int32][]int{}
	for i, s := range t.States.All() {
		byContainer[s.Container] = append(byContainer[s.Container], i)
	}
	for c, idx := range byContainer {
		if depth >= 0 {
			for _, i := range idx {
				if s := t.States.At(i); s.Depth == int32(depth) {
					add(c, i, s.Value, s.Start, s.End)
				}
			}
			continue
		}
		var pts []trace.Time
		for _, i := range idx {
			pts = append(pts, t.States.At(i).Start, t.States.At(i).End)
		}
		sort.Slice(pts, func(i, j int) bool { return pts[i] < pts[j] })
		for p := 0; p+1 < len(pts); p++ {
			a, b := pts[p], pts[p+1]
			if a == b {
				continue
			}
			best := -1
			for _, i := range idx {
				if s := t.States.At(i); s.Start <= a && b <= s.End && (best < 0 || s.Depth > t.States.At(best).Depth) {
					best = i
				}
			}
			if best >= 0 {
				add(c, best, t.States.At(best).Value, a, b)
			}
		}
	}
	counts := map[[3]int64]int{}
	for k, s := range who {
		counts[k] = len(s)
	}
	return dur, counts
}

func TestStateAverageDurationMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for iter := 0; iter < 30; iter++ {
		tr := randomTrace(rng, 4)
		n := []int{1, 4, 9, 25}[iter%4]
		depth := []int{Innermost, 0, 1}[iter%3]
		m, err := Build(tr, Options{Slices: n, Depth: depth, Metric: StateAverageDuration})
		if err != nil {
			t.Fatal(err)
		}
		dur, counts := stays(tr, 0, 1000, n, depth)
		for leaf, node := range m.Tree.Leaves {
			for k := 0; k < n; k++ {
				for x := range m.States {
					key := [3]int64{int64(m.Container[node]), int64(k), int64(x)}
					w := 0.0
					if d := dur[key]; d != nil {
						// Times are nanoseconds; averages are seconds.
						w, _ = new(big.Rat).Quo(d, big.NewRat(int64(counts[key])*1e9, 1)).Float64()
					}
					if got := m.Value(leaf, k, x); math.Abs(got-w) > 1e-15 {
						t.Fatalf("iter %d depth %d: leaf %d slice %d %s: %v, want %v (%d stays)", iter, depth, leaf, k, m.States[x], got, w, counts[key])
					}
				}
			}
		}
	}
}

func TestMetricBadInput(t *testing.T) {
	tr := randomTrace(rand.New(rand.NewPCG(5, 6)), 2)
	var ae *errs.ArgumentError
	if _, err := Build(tr, Options{Slices: 2, Metric: "heat"}); !errors.As(err, &ae) {
		t.Errorf("unknown metric: %v", err)
	}
	// No event or variable type at all: the data are at fault, not an
	// argument, and the error says what is missing.
	var ee *errs.EmptyError
	for _, metric := range []Metric{EventCount, VariableAverage} {
		_, err := Build(tr, Options{Slices: 2, Metric: metric})
		if want := "the trace has no " + strings.ToLower(metric.entityKind().String()) + "s to model"; !errors.As(err, &ee) || ee.Reason != want {
			t.Errorf("%s without such types: %v, want an EmptyError %q", metric, err, want)
		}
	}
	withEventsAndVariables(rand.New(rand.NewPCG(1, 1)), tr)
	if _, err := Build(tr, Options{Slices: 2, Metric: EventCount, Types: []string{"load"}}); !errors.As(err, &ae) {
		t.Errorf("a variable type named for events: %v", err)
	}
	tr.Variable(trace.Variable{Container: 3, Type: 5, Start: 10, End: 20, Value: math.NaN()})
	if _, err := Build(tr, Options{Slices: 2, Metric: VariableAverage}); !errors.As(err, &ae) {
		t.Errorf("NaN variable: %v", err)
	}
}

// Variables may be negative: the model keeps them (an average is an
// average), and aggregation, which needs non-negative values, refuses
// them (see core/views/aggregate).
func TestNegativeVariablesAreKept(t *testing.T) {
	tr := randomTrace(rand.New(rand.NewPCG(5, 7)), 2)
	withEventsAndVariables(rand.New(rand.NewPCG(2, 2)), tr)
	m, err := Build(tr, Options{Slices: 5, Metric: VariableAverage})
	if err != nil {
		t.Fatal(err)
	}
	negative := false
	for _, v := range m.Dense() {
		negative = negative || v < 0
	}
	if !negative {
		t.Fatal("the random variables should average below zero somewhere")
	}
}
