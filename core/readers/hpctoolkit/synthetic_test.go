package hpctoolkit

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// stateLine formats a state for comparisons: container, value, interval,
// depth and order.
func stateLine(tr *trace.Trace, s trace.State) string {
	return fmt.Sprintf("%s %s [%d,%d) d%d o%d", containerPath(tr, s.Container), tr.Values[s.Value].Name, s.Start, s.End, s.Depth, s.Order)
}

// containerPath names a container by the names from the root down.
func containerPath(tr *trace.Trace, c int32) string {
	var parts []string
	for ; c > 0; c = tr.Containers[c].Parent {
		parts = append(parts, tr.Containers[c].Name)
	}
	slices.Reverse(parts)
	return strings.Join(parts, "/")
}

// checkNesting checks that the states of each container and type nest
// properly: a state at depth d > 0 lies within the latest state at depth
// d-1 begun before it, and states of one depth do not overlap; Order ranks
// them by start.
func checkNesting(t *testing.T, tr *trace.Trace) {
	t.Helper()
	type key struct{ c, typ int32 }
	groups := map[key][]trace.State{}
	for _, s := range tr.States.All() {
		if s.End < s.Start {
			t.Fatalf("state ends before it starts: %s", stateLine(tr, s))
		}
		k := key{s.Container, s.Type}
		groups[k] = append(groups[k], s)
	}
	for _, g := range groups {
		slices.SortFunc(g, func(a, b trace.State) int { return cmp.Compare(a.Order, b.Order) })
		var last []trace.State
		for i, s := range g {
			if s.Order != int32(i) {
				t.Fatalf("orders of %s are not 0, 1, 2...: %d at rank %d", containerPath(tr, s.Container), s.Order, i)
			}
			if i > 0 && (g[i-1].Start > s.Start || g[i-1].Start == s.Start && g[i-1].Depth >= s.Depth && g[i-1].End > g[i-1].Start) {
				t.Fatalf("order does not follow starts: %s then %s", stateLine(tr, g[i-1]), stateLine(tr, s))
			}
			d := int(s.Depth)
			if d > len(last) {
				t.Fatalf("state at depth %d without a parent: %s", d, stateLine(tr, s))
			}
			if d > 0 {
				p := last[d-1]
				if s.Start < p.Start || s.End > p.End {
					t.Fatalf("%s is not within its parent %s", stateLine(tr, s), stateLine(tr, p))
				}
			}
			if d < len(last) && last[d].End > s.Start {
				t.Fatalf("%s overlaps %s", stateLine(tr, s), stateLine(tr, last[d]))
			}
			last = append(last[:d], s)
		}
	}
}

func TestSyntheticSparse(t *testing.T) {
	dir := sample().write(t)
	for _, loops := range []bool{false, true} {
		tr := trace.New()
		notes := &trace.Notes{}
		if err := readWith(dir, options{Loops: loops}, tr, trace.ReadOptions{Notes: notes}); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range tr.States.All() {
			got = append(got, stateLine(tr, s))
		}
		const th = "Node 0xabc/Rank 0/Thread 0"
		want := []string{
			th + " foo [0,200) d2 o2",
			th + " bar [200,300) d2 o3",
			th + " main [0,300) d1 o1",
			th + " main thread [0,300) d0 o0",
			th + " baz [400,500) d2 o6",
			th + " <unknown procedure> 0x1040 [libsynth.so] [600,700) d2 o7",
			th + " main [400,900) d1 o5",
			th + " main thread [400,900) d0 o4",
		}
		if loops {
			want = slices.Concat(want[:4], []string{
				th + " baz [400,500) d3 o7",
				th + " loop at loop.c: 12 [400,500) d2 o6",
				th + " <unknown procedure> 0x1040 [libsynth.so] [600,700) d2 o8",
			}, want[6:])
		}
		if !slices.Equal(got, want) {
			t.Errorf("loops=%v: states\n%s\nwant\n%s", loops, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		var conts []string
		for i := range tr.Containers[1:] {
			conts = append(conts, containerPath(tr, int32(i+1)))
		}
		wantConts := []string{"Node 0xabc", "Node 0xabc/Rank 0", "Node 0xabc/Rank 0/Thread 0", "Node 0xabc/Rank 0/Thread 1"}
		if !slices.Equal(conts, wantConts) {
			t.Errorf("containers %q, want %q", conts, wantConts)
		}
		if tr.Start != 0 || tr.End != 900 {
			t.Errorf("trace spans [%d, %d], want [0, 900]", tr.Start, tr.End)
		}
		checkNesting(t, tr)
		if len(notes.Skipped()) != 0 {
			t.Errorf("skipped %v", notes.Skipped())
		}
	}
}

// A sample in a context meta.db does not list is counted and taken as
// idle.
func TestUnknownContext(t *testing.T) {
	s := sample()
	s.lines[1].records = [][2]uint64{{100, 4}, {200, 99}, {300, 4}}
	dir := s.write(t)
	tr := trace.New()
	notes := &trace.Notes{}
	if err := Read(dir, tr, trace.ReadOptions{Notes: notes}); err != nil {
		t.Fatal(err)
	}
	if n := notes.Skipped()["samples in a context meta.db does not list (taken as idle)"]; n != 1 {
		t.Errorf("skipped %v, want one unknown sample", notes.Skipped())
	}
	if tr.States.Len() != 6 {
		t.Errorf("%d states, want 6 (two runs of main thread > main > foo)", tr.States.Len())
	}
	checkNesting(t, tr)
}

// Timestamps going backwards in a trace line are an error.
func TestUnsortedTimestamps(t *testing.T) {
	s := sample()
	s.lines[1].records = [][2]uint64{{300, 4}, {200, 4}}
	err := Read(s.write(t), trace.New(), trace.ReadOptions{})
	wantFormatError(t, err, "comes before the previous one")
}

// TestLongIdentifierTuple: a profile's identifier tuple, a level of the
// hierarchy per identifier, holds at most maxTuple identifiers; a longer
// one is refused at its offset in profile.db. Before, a tuple of 65,535
// (its count is 16 bits) made a hierarchy as deep, past trace.MaxDepth.
func TestLongIdentifierTuple(t *testing.T) {
	for _, n := range []int{maxTuple, maxTuple + 1, 65535} {
		s := sample()
		long := make([]ident, n)
		for i := range long {
			long[i] = ident{kind: 3, logical: uint32(i)}
		}
		s.tuples[2] = long
		dir := s.write(t)
		tr := trace.New()
		err := readWith(dir, options{}, tr, trace.ReadOptions{})
		if n <= maxTuple {
			if err != nil {
				t.Fatalf("a tuple of %d: %v", n, err)
			}
			continue
		}
		var fe *errs.FormatError
		if !errors.As(err, &fe) || fe.File != filepath.Join(dir, "profile.db") || !fe.AtOffset || fe.Offset == 0 ||
			!strings.Contains(err.Error(), fmt.Sprintf("an identifier tuple of %d identifiers, more than %d", n, maxTuple)) {
			t.Errorf("a tuple of %d: %v", n, err)
		}
	}
}
