package micro

import (
	"errors"
	"math"
	"runtime"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// nestedStates is a trace of one container whose states nest as given,
// in the order given (the order states end, as readers deliver them).
func nestedStates(states []trace.State, end trace.Time) *trace.Trace {
	tr := trace.New("nested")
	tr.DefineType(trace.Type{Name: "Thread", Kind: trace.KindContainer, Parent: trace.None})
	tr.DefineType(trace.Type{Name: "S", Kind: trace.KindState, Parent: 0})
	tr.DefineValue(trace.Value{Type: 1, Name: "a"})
	tr.DefineValue(trace.Value{Type: 1, Name: "b"})
	tr.CreateContainer(trace.Container{Name: "t", Type: 0, Parent: 0})
	for _, s := range states {
		s.Container, s.Type = 1, 1
		tr.States.Append(s)
	}
	tr.Finish(0, end)
	return tr
}

// TestDeepNesting: a call path of a million frames (an HPCToolkit
// experiment.xml nesting a procedure frame in each of its lines, 32 MB)
// makes a million nested states, the deepest ending first. Each state
// looked at every level below its own for states left without their
// enclosing one: 5 x 10^11 steps, a read that never ended and did not
// stop on Ctrl-C. Here each state's own time is 2 ns, a at even depths
// and b at odd ones, over [0, 2 x 10^6] ns: half the time each.
func TestDeepNesting(t *testing.T) {
	const depth = 1000000
	states := make([]trace.State, depth)
	for k := range states {
		d := depth - 1 - k // the deepest first
		states[k] = trace.State{Value: int32(d % 2), Start: trace.Time(d), End: trace.Time(2*depth - d), Depth: int32(d)}
	}
	m, err := Build(nestedStates(states, 2*depth), Options{Slices: 1, Depth: Innermost})
	if err != nil {
		t.Fatal(err)
	}
	for x, name := range m.States {
		if v := m.Value(0, 0, x); math.Abs(v-0.5) > 1e-12 {
			t.Errorf("%s: %v of the time, want 0.5", name, v)
		}
	}
}

// TestDeepNestingMemory: 20,000 nested states, each spanning the 100
// slices of the model from its start to the end, the deepest first (a
// Pajé trace whose pushes are never popped, closed at its end). Each
// level kept the buffer of its nested states' cover, one piece per
// slice: 50 MB here, 1.6 GB for a million levels. The buffer now goes up
// a level as each state arrives: under 8 MB in all, the own time of each
// state as in Build.
func TestDeepNestingMemory(t *testing.T) {
	const depth, slices = 20000, 100
	states := make([]trace.State, depth)
	for k := range states {
		d := depth - 1 - k
		states[k] = trace.State{Value: int32(d % 2), Start: trace.Time(d), End: depth, Depth: int32(d)}
	}
	tr := nestedStates(states, depth)
	acc, err := NewAccumulator(Options{Slices: slices, Depth: Innermost}, tr.Start, tr.End)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	replay(tr)(acc, trace.ReadOptions{})
	runtime.ReadMemStats(&after)
	m, err := acc.Model()
	if err != nil {
		t.Fatal(err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Errorf("%d MB allocated for %d nested states", alloc>>20, depth)
	}
	// Each state owns [d, d+1): a at even depths, b at odd ones, half of
	// every slice each.
	for x, name := range m.States {
		for k := range slices {
			if v := m.Value(0, k, x); math.Abs(v-0.5) > 1e-12 {
				t.Fatalf("%s in slice %d: %v of the time, want 0.5", name, k, v)
			}
		}
	}
}

// TestStartOrderedChainFallsBack: a chain of 20,000 nested states stored
// outermost first (a Chrome trace of B events never ended, which the
// reader stores in start order), built from the trace in memory: the
// replay in stored order kept every state's cover until its end (2.5 GB
// for a million) before falling back to the exclusive walk. It stops at
// the second state now: under 16 MB allocated in all, and the model is
// the same.
func TestStartOrderedChainFallsBack(t *testing.T) {
	const depth, slices = 20000, 100
	states := make([]trace.State, depth)
	for d := range states {
		states[d] = trace.State{Value: int32(d % 2), Start: trace.Time(d), End: depth, Depth: int32(d)}
	}
	tr := nestedStates(states, depth)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m, err := Build(tr, Options{Slices: slices, Depth: Innermost})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("%d MB allocated for %d nested states", alloc>>20, depth)
	}
	for x, name := range m.States {
		for k := range slices {
			if v := m.Value(0, k, x); math.Abs(v-0.5) > 1e-12 {
				t.Fatalf("%s in slice %d: %v of the time, want 0.5", name, k, v)
			}
		}
	}
}

// TestNestingErrorNamesShallowest: states left without their enclosing
// state at depths 3 and 5 when a state at depth 1 ends: the error names
// depth 3, the shallowest below the state's children's level.
func TestNestingErrorNamesShallowest(t *testing.T) {
	tr := nestedStates([]trace.State{
		{Value: 0, Start: 1, End: 2, Depth: 4},
		{Value: 1, Start: 1, End: 3, Depth: 3},
		{Value: 0, Start: 10, End: 11, Depth: 5},
		{Value: 1, Start: 0, End: 20, Depth: 1},
	}, 20)
	acc, err := NewAccumulator(Options{Slices: 2, Depth: Innermost}, tr.Start, tr.End)
	if err != nil {
		t.Fatal(err)
	}
	replay(tr)(acc, trace.ReadOptions{})
	_, err = acc.Model()
	want := "container 1: a state at depth 3 completed without the state enclosing it"
	if !errors.Is(err, ErrNesting) || err.Error() != ErrNesting.Error()+": "+want {
		t.Errorf("got %v, want ErrNesting: %s", err, want)
	}
}
