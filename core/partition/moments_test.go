package partition

import (
	"fmt"
	"math"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/moments"
)

// momentsOf computes the moments of a plan's parts apart, on the window of
// their extents, and merges them in a tree, as a cluster does.
func momentsOf(t *testing.T, plan *Plan) []moments.Row {
	t.Helper()
	start, end := trace.Time(math.MaxInt64), trace.Time(math.MinInt64)
	for _, p := range plan.Parts {
		s, e, err := Extent(p, false, trace.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		start, end = min(start, s), max(end, e)
	}
	var results []*moments.Result
	for _, p := range plan.Parts {
		r, err := Moments(p, moments.Options{}, start, end, trace.ReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", p.Label, err)
		}
		data, err := r.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if r, err = moments.UnmarshalResult(data); err != nil {
			t.Fatal(err)
		}
		results = append(results, r)
	}
	for len(results) > 1 {
		var next []*moments.Result
		for i := 0; i+1 < len(results); i += 2 {
			m, err := moments.Merge(results[i], results[i+1])
			if err != nil {
				t.Fatal(err)
			}
			next = append(next, m)
		}
		if len(results)%2 == 1 {
			next = append(next, results[len(results)-1])
		}
		results = next
	}
	rows, err := results[0].Rows(moments.ByResource)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func wholeMoments(t *testing.T, src *ingest.Source) []moments.Row {
	t.Helper()
	acc, err := moments.New(moments.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Read(acc, trace.ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	r, err := acc.Result()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := r.Rows(moments.ByResource)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func sameRows(t *testing.T, got, want []moments.Row) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	busy := 0
	for i := range want {
		g, w := got[i], want[i]
		if g.Path != w.Path || g.Start != w.Start || g.End != w.End || g.Resources != w.Resources {
			t.Fatalf("row %d: %s [%d, %d], want %s [%d, %d]", i, g.Path, g.Start, g.End, w.Path, w.Start, w.End)
		}
		gm, wm := g.Sums.Moments(), w.Sums.Moments()
		// Printed, so that the NaN moments of a resource without states
		// compare equal.
		if fmt.Sprintf("%+v", gm) != fmt.Sprintf("%+v", wm) {
			t.Fatalf("row %d (%s): moments %+v, want %+v", i, w.Path, gm, wm)
		}
		for k := range 4 {
			if math.Float64bits(g.Sums.Power(k)) != math.Float64bits(w.Sums.Power(k)) {
				t.Fatalf("row %d (%s): P%d = %v, want %v", i, w.Path, k, g.Sums.Power(k), w.Sums.Power(k))
			}
		}
		if !w.Sums.Empty() {
			busy++
		}
	}
	if busy == 0 {
		t.Fatal("no resource is busy: nothing compared")
	}
}

func TestMomentsOTF2LocationGroups(t *testing.T) {
	path := corpus(t, "tracer-stencil4d", "stencil4d-otf", "traces-64", "traces.otf2")
	plan, err := PlanFile(path, "", nil, 7)
	if err != nil {
		t.Fatal(err)
	}
	src, _, err := formats.Open(path, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	sameRows(t, momentsOf(t, plan), wholeMoments(t, src))
}

func TestMomentsRuns(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for rank := range 3 {
		paths = append(paths, writeKineto(t, dir, rank))
	}
	plan, err := PlanRuns(paths, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	src, err := Runs(plan)
	if err != nil {
		t.Fatal(err)
	}
	sameRows(t, momentsOf(t, plan), wholeMoments(t, src))
}
