package aggregate

import (
	"errors"
	"fmt"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/hier"
)

// At p = 0 the Fig. 3 model (12 resources x 20 slices) is shown cell by
// cell by default; lpaggreg's tie rule merges every block of identical
// cells instead.
func TestTiesAtZero(t *testing.T) {
	in := figure3()
	for _, tc := range []struct {
		kind  Kind
		ties  TieRule
		parts int
	}{
		{KindSpatiotemporal, "", 240},
		{KindSpatiotemporal, TiesFinest, 240},
		{KindSpatiotemporal, TiesLpaggreg, 35},
		{KindTemporal, "", 240},
		// Time blocks identical on every resource: 0-1, 2-4, 5-6, 7, 8-11,
		// 12-13, 14-15 and 16-19, for 12 resources.
		{KindTemporal, TiesLpaggreg, 96},
		// The finest spatial partition is every resource over the window.
		{KindSpatial, "", 12},
		{KindSpatial, TiesLpaggreg, 12},
	} {
		for _, normalize := range []bool{true, false} {
			solve := func(ties TieRule, p float64) *Partition {
				e, err := New(tc.kind, in, Options{Normalize: normalize, Ties: ties})
				if err != nil {
					t.Fatal(err)
				}
				part, err := e.Solve(p)
				if err != nil {
					t.Fatal(err)
				}
				return part
			}
			part := solve(tc.ties, 0)
			if part.NumParts != tc.parts || len(part.Parts) != tc.parts {
				t.Errorf("%s, ties %q: %d aggregates at p = 0, want %d", tc.kind, tc.ties, part.NumParts, tc.parts)
			}
			// The two rules tie at p = 0: the value is minus the loss,
			// the smallest there is.
			other := solve(map[TieRule]TieRule{"": TiesLpaggreg, TiesFinest: TiesLpaggreg, TiesLpaggreg: TiesFinest}[tc.ties], 0)
			if part.Value != -part.Loss || !nearlyEqual(part.Value, other.Value) {
				t.Errorf("%s, ties %q: pIC %v, loss %v, the other rule's pIC %v", tc.kind, tc.ties, part.Value, part.Loss, other.Value)
			}
			if tc.kind != KindSpatial && tc.ties != TiesLpaggreg && (part.Gain != 0 || part.Loss != 0) {
				t.Errorf("%s: the finest partition gains %v and loses %v", tc.kind, part.Gain, part.Loss)
			}
			// Just above 0, the finest partition no longer wins.
			if tc.kind == KindSpatiotemporal {
				if above := solve(tc.ties, 1e-9); above.NumParts != 35 {
					t.Errorf("ties %q: %d aggregates at p = 1e-9, want 35", tc.ties, above.NumParts)
				}
			}
		}
	}
	if _, err := New(KindSpatiotemporal, in, Options{Ties: "nearest"}); !errors.As(err, new(*errs.ArgumentError)) {
		t.Errorf("an unknown tie rule gives %v", err)
	}
}

// The significant-p sweeps start with the microscopic level, optimal at
// p = 0 only, and go on with lpaggreg's p = 0 partition.
func TestTiesSweep(t *testing.T) {
	in := figure3()
	for _, ties := range []TieRule{TiesFinest, TiesLpaggreg} {
		st, err := NewSpatiotemporal(in, Options{Normalize: true, Ties: ties})
		if err != nil {
			t.Fatal(err)
		}
		for name, sweep := range map[string]func() ([]Level, error){
			"exact":     func() ([]Level, error) { return SignificantExact(st, 0) },
			"compact":   func() ([]Level, error) { return SignificantCompact(st, 1e-3) },
			"dichotomy": func() ([]Level, error) { return SignificantDichotomy(st, 1e-3) },
		} {
			levels, err := sweep()
			if err != nil {
				t.Fatal(err)
			}
			first := levels[0]
			if first.PLow != 0 || first.Partition.P != 0 {
				t.Errorf("%s, %s: the first level starts at %v", ties, name, first.PLow)
			}
			want := 35
			if ties == TiesFinest {
				want = 240
				next := levels[1]
				if name != "dichotomy" && (first.PHigh != 0 || next.PLow != 0) {
					t.Errorf("%s: the microscopic level spans [%v, %v], the next starts at %v", name, first.PLow, first.PHigh, next.PLow)
				}
				if next.Partition.NumParts != 35 {
					t.Errorf("%s: %d aggregates after the microscopic level, want 35", name, next.Partition.NumParts)
				}
			}
			if first.Partition.NumParts != want {
				t.Errorf("%s, %s: the first level has %d aggregates, want %d", ties, name, first.Partition.NumParts, want)
			}
		}
	}
}

// A resource alone in its parent (a host with one process) covers the
// same cells as the parent: at p = 0 the part is the parent, as for any
// p > 0 where they tie.
func TestFinestPartitionTakesSingleLeafParents(t *testing.T) {
	b := hier.NewBuilder("root")
	h1 := b.Add(0, "h1")
	b.Add(h1, "p1")
	h2 := b.Add(0, "h2")
	b.Add(h2, "p2")
	b.Add(h2, "p3")
	tree, _ := b.Build()
	in := Input{Tree: tree, Slices: 2, States: 1, Values: []float64{1, 0.5, 1, 1, 0, 1}}
	names := func(p *Partition) string {
		s := ""
		for _, pt := range p.Parts {
			s += fmt.Sprintf("%s:%d-%d ", tree.Names[pt.Node], pt.First, pt.Last)
		}
		return s
	}
	for kind, want := range map[Kind]string{
		KindSpatiotemporal: "h1:0-0 h1:1-1 p2:0-0 p2:1-1 p3:0-0 p3:1-1 ",
		// The temporal kind never merges resources.
		KindTemporal: "p1:0-0 p1:1-1 p2:0-0 p2:1-1 p3:0-0 p3:1-1 ",
		KindSpatial:  "h1:0-1 p2:0-1 p3:0-1 ",
	} {
		e, err := New(kind, in, Options{})
		if err != nil {
			t.Fatal(err)
		}
		part, err := e.Solve(0)
		if err != nil {
			t.Fatal(err)
		}
		if got := names(part); got != want {
			t.Errorf("%s: %s, want %s", kind, got, want)
		}
	}
}
