package profile

import (
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestStatesOfTheRoot: states on the root container (a pj_dump file's
// container "0") count for the root as a process of its own; the root was
// given process index 0 before any process existed, and the result
// indexed past its processes (a panic).
func TestStatesOfTheRoot(t *testing.T) {
	tr := trace.New()
	tr.DefineType(trace.Type{Name: "Process", Kind: trace.KindContainer, Parent: trace.None})
	tr.DefineType(trace.Type{Name: "S", Kind: trace.KindState, Parent: trace.None})
	tr.DefineValue(trace.Value{Type: 1, Name: "a"})
	tr.CreateContainer(trace.Container{Name: "p1", Type: 0, Parent: 0, End: trace.Unset})
	tr.State(trace.State{Container: 0, Type: 1, Value: 0, Start: 0, End: trace.Second})
	tr.State(trace.State{Container: 1, Type: 1, Value: 0, Start: 0, End: 3 * trace.Second})
	tr.Finish(0, 3*trace.Second)
	r, err := Compute(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Processes) != 2 || len(r.Sums) != 1 {
		t.Fatalf("processes %q, %d names; want the root and p1, one name", r.Processes, len(r.Sums))
	}
	for i, want := range []trace.Time{trace.Second, 3 * trace.Second} {
		if got := r.Sums[0][int32(i)]; got.Count != 1 || got.Inclusive != want || got.Exclusive != want {
			t.Errorf("process %q: %+v, want one state of %s", r.Processes[i], got, want)
		}
	}
}
