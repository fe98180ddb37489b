package aggregate

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"math"
	"reflect"
	"sync"
	"testing"
	"time"
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

// A single solve of a large model stops soon after Cancel is closed,
// whether during the dynamic program or during the listing of its parts,
// and the engine solves normally afterwards (the same partition as an
// engine that was never interrupted).
func TestControlCancelStopsASolve(t *testing.T) {
	in := lcgModel(10, 4, 24) // 11,111 nodes
	st, err := NewSpatiotemporal(in, Options{Normalize: true, CacheBytes: 1})
	if err != nil {
		t.Fatal(err)
	}
	closed := make(chan struct{})
	close(closed)
	if part, err := st.SolveControl(0.5, &Control{Cancel: closed}); !errors.Is(err, ErrCanceled) || part != nil {
		t.Fatalf("canceled before the start: %v, %v", part, err)
	}
	for _, at := range []float64{0.2, 0.9, 1} { // 1: the cancel comes as the parts are listed, or after
		cancel := make(chan struct{})
		var once sync.Once
		var canceledAt time.Time
		var covered []float64
		part, err := st.SolveControl(0.5, &Control{Cancel: cancel, Progress: func(solves int, c float64) {
			covered = append(covered, c)
			if c >= at {
				once.Do(func() { canceledAt = time.Now(); close(cancel) })
			}
		}})
		if canceledAt.IsZero() { // solved before the first report: too fast to cancel here
			continue
		}
		if !errors.Is(err, ErrCanceled) || part != nil {
			t.Fatalf("canceled at %v of the nodes: %v, %v", at, part, err)
		}
		if d := time.Since(canceledAt); d > 2*time.Second {
			t.Errorf("the solve stopped %v after the cancel", d)
		}
		for k := 1; k < len(covered); k++ {
			if covered[k] < covered[k-1] || covered[k] > 1 {
				t.Fatalf("progress %v", covered)
			}
		}
	}
	got, err := st.Solve(0.5)
	if err != nil {
		t.Fatal(err)
	}
	fresh, _ := NewSpatiotemporal(in, Options{Normalize: true, CacheBytes: 1})
	want, _ := fresh.Solve(0.5)
	h1, h2 := sha256.New(), sha256.New()
	hashPartition(h1, got)
	hashPartition(h2, want)
	if !bytes.Equal(h1.Sum(nil), h2.Sum(nil)) {
		t.Error("a solve after a canceled one differs from a fresh engine's")
	}
}

// The listing of the parts stops too: canceled once the decisions are
// taken, listParts returns ErrCanceled.
func TestControlCancelStopsTheListing(t *testing.T) {
	in := lcgModel(10, 3, 20)
	st, err := NewSpatiotemporal(in, Options{Normalize: true})
	if err != nil {
		t.Fatal(err)
	}
	part, err := st.solve(0.5, nil, true, false, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	closed := make(chan struct{})
	close(closed)
	if parts, err := st.listParts(part.kept.dec, 2, &Control{Cancel: closed}, nil); !errors.Is(err, ErrCanceled) || parts != nil {
		t.Fatalf("got %d parts, %v", len(parts), err)
	}
}
