package aggregate

import (
	"errors"
	"math"
	"reflect"
	"testing"
)

// A controlled search reports its solves and reaches full coverage, and
// finds the same levels as an uncontrolled one.
func TestControlProgressCoversP(t *testing.T) {
	in := lcgModel(4, 3, 30)
	st, err := NewSpatiotemporal(in, Options{Normalize: true})
	if err != nil {
		t.Fatal(err)
	}
	want, err := SignificantCompact(st, 1e-3)
	if err != nil {
		t.Fatal(err)
	}
	var solves int
	var covered []float64
	got, err := SignificantCompactControl(st, 1e-3, &Control{Progress: func(n int, c float64) {
		solves = n
		covered = append(covered, c)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d levels with control, %d without", len(got), len(want))
	}
	for i := range got {
		if got[i].PLow != want[i].PLow || got[i].PHigh != want[i].PHigh || !reflect.DeepEqual(got[i].Partition.NumParts, want[i].Partition.NumParts) {
			t.Errorf("level %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	// Two solves at p = 0 and 1, then one per search between two levels.
	if solves < len(want) {
		t.Errorf("%d solves reported for %d levels", solves, len(want))
	}
	for i := 1; i < len(covered); i++ {
		if covered[i] < covered[i-1] {
			t.Fatalf("coverage went back: %v", covered)
		}
	}
	if last := covered[len(covered)-1]; math.Abs(last-1) > 1e-9 {
		t.Errorf("final coverage %v, want 1", last)
	}
	if _, err := SignificantDichotomyControl(st, 1e-2, &Control{Progress: func(n int, c float64) { covered = append(covered, c) }}); err != nil {
		t.Fatal(err)
	}
	if last := covered[len(covered)-1]; math.Abs(last-1) > 1e-9 {
		t.Errorf("dichotomy's final coverage %v, want 1", last)
	}
}

// Closing Cancel stops the search at its next solve: ErrCanceled and no
// levels, on a model large enough that the search takes hundreds of
// solves.
func TestControlCancelStopsTheSearch(t *testing.T) {
	in := lcgModel(10, 3, 40)
	st, err := NewSpatiotemporal(in, Options{Normalize: true})
	if err != nil {
		t.Fatal(err)
	}
	cancel := make(chan struct{})
	solves := 0
	levels, err := SignificantCompactControl(st, 0, &Control{Cancel: cancel, Progress: func(n int, _ float64) {
		solves = n
		if n == 3 {
			close(cancel)
		}
	}})
	if !errors.Is(err, ErrCanceled) || levels != nil {
		t.Fatalf("got %d levels, %v; want ErrCanceled and none", len(levels), err)
	}
	// Solves under way when the flag went up may finish (one per core).
	if solves > 3+8 {
		t.Errorf("%d solves after the cancel at 3", solves)
	}
}
