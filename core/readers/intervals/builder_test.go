package intervals

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

type in struct {
	path, typ, state string
	start, end       trace.Time
}

func build(t *testing.T, opt Options, rows ...in) (*trace.Trace, error) {
	t.Helper()
	b := NewBuilder(opt)
	for _, r := range rows {
		if err := b.Add(r.path, r.typ, r.state, r.start, r.end); err != nil {
			return nil, err
		}
	}
	tr := trace.New("table")
	return tr, b.Finish(tr)
}

func TestHierarchyAndStates(t *testing.T) {
	tr, err := build(t, Options{Levels: []string{"site", "host", "core"}},
		in{"s1/h1/c0", "", "compute", 10, 30},
		in{"s1/h1/c1", "", "idle", 5, 20},
		in{"s1/h2", "", "compute", 0, 40},
		in{"s1/h1/c0", "", "idle", 30, 35},
	)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := 1; i < len(tr.Containers); i++ {
		c := tr.Containers[i]
		got = append(got, tr.ContainerPath(int32(i), "/")+":"+tr.TypeName(c.Type)+":"+c.Alias+":"+c.Start.String()+"-"+c.End.String())
	}
	want := []string{
		"s1:site:s1:0.000000000-0.000000040",
		"s1/h1:host:s1/h1:0.000000000-0.000000040",
		"s1/h1/c0:core:s1/h1/c0:0.000000000-0.000000040",
		"s1/h1/c1:core:s1/h1/c1:0.000000000-0.000000040",
		"s1/h2:host:s1/h2:0.000000000-0.000000040",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("containers:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// One state type per level that holds states: cores and hosts.
	var types []string
	for _, ty := range tr.Types {
		parent := "-"
		if ty.Parent != trace.None {
			parent = tr.Types[ty.Parent].Name
		}
		types = append(types, ty.Kind.String()+" "+ty.Name+" in "+parent)
	}
	wantTypes := "Container site in -|Container host in site|Container core in host|State State in core|State State in host"
	if strings.Join(types, "|") != wantTypes {
		t.Errorf("types %s, want %s", strings.Join(types, "|"), wantTypes)
	}
	if tr.Start != 0 || tr.End != 40 || tr.States.Len() != 4 {
		t.Fatalf("span %v-%v, %d states", tr.Start, tr.End, tr.States.Len())
	}
	s := tr.States.At(3)
	if tr.ContainerPath(s.Container, "/") != "s1/h1/c0" || tr.ValueName(s.Value) != "idle" || s.Start != 30 || s.End != 35 || s.Order != 1 || s.Depth != 0 {
		t.Errorf("row 3 became %+v (%s)", s, tr.ValueName(s.Value))
	}
	if v := tr.Values[tr.States.At(2).Value]; v.Name != "compute" || tr.Types[v.Type].Parent != 1 {
		t.Errorf("row 2's value %+v is not a host state", v)
	}
}

func TestNesting(t *testing.T) {
	tr, err := build(t, Options{},
		in{"p", "", "main", 0, 10},
		in{"p", "", "b", 5, 8},
		in{"p", "", "a", 2, 5},
		in{"p", "", "a.1", 3, 4},
		in{"p", "", "mark", 10, 10},
		in{"p", "", "after", 10, 12},
		in{"p", "", "same", 2, 5},
		in{"p", "Other", "x", 1, 11}, // another type: its own stack
	)
	if err != nil {
		t.Fatal(err)
	}
	var depth, order []int32
	for _, s := range tr.States.All() {
		depth = append(depth, s.Depth)
		order = append(order, s.Order)
	}
	// "same" (row 6) has the span of "a" (row 2) and comes later: it nests
	// in it. Zero-length "mark" at 10 starts when "main" ends, so it is not
	// inside "main", but where "after" starts, so it is inside "after".
	if got, want := depth, []int32{0, 1, 1, 3, 1, 0, 2, 0}; !equal(got, want) {
		t.Errorf("depths %v, want %v", got, want)
	}
	if got, want := order, []int32{0, 4, 1, 3, 5, 6, 2, 0}; !equal(got, want) {
		t.Errorf("orders %v, want %v", got, want)
	}
}

func equal(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestBadRows(t *testing.T) {
	cases := []struct {
		name  string
		opt   Options
		rows  []in
		param string
		text  string
	}{
		{"end before start", Options{}, []in{{"a", "", "s", 0, 1}, {"a", "", "s", 5, 4}}, "end", "row 1: the state ends at 0.000000004 s, before it starts at 0.000000005 s"},
		{"empty path", Options{}, []in{{"", "", "s", 0, 1}}, "resource", "row 0: the resource path is empty"},
		{"empty name", Options{}, []in{{"a", "", "s", 0, 1}, {"a//b", "", "s", 0, 1}}, "resource", `row 1: resource path "a//b" has an empty name`},
		{"too deep", Options{Levels: []string{"host"}}, []in{{"h/c", "", "s", 0, 1}}, "levels", `row 0: resource path "h/c" is 2 deep, but only 1 level names are given`},
		// A path nesting a resource in each of its names, deeper than any
		// trace's hierarchy: the views' recursive walks would overflow a
		// goroutine's stack (a fatal error) on a million of them.
		{"deeper than any trace", Options{}, []in{{"a" + strings.Repeat("/a", trace.MaxDepth), "", "s", 0, 1}}, "resource",
			fmt.Sprintf(`row 0: resource path "a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/"... (20001 bytes) is %d names deep, more than %d`, trace.MaxDepth+1, trace.MaxDepth)},
		{"overlap", Options{}, []in{{"a", "", "x", 0, 5}, {"b", "", "x", 0, 9}, {"a", "", "y", 3, 8}}, "start", `rows 0 and 2: states of type "State" on resource "a" overlap without nesting`},
		{"empty table", Options{}, nil, "table", "the table has no rows"},
	}
	for _, c := range cases {
		_, err := build(t, c.opt, c.rows...)
		var ae *errs.ArgumentError
		if !errors.As(err, &ae) || ae.Name != c.param || !strings.Contains(ae.Reason, c.text) {
			t.Errorf("%s: error %v, want an ArgumentError on %s containing %q", c.name, err, c.param, c.text)
		}
	}
}

func TestSeparator(t *testing.T) {
	tr, err := build(t, Options{Sep: "."}, in{"n0.cpu1", "", "run", 0, 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Containers) != 3 || tr.ContainerPath(2, "/") != "n0/cpu1" || tr.Containers[2].Alias != "n0.cpu1" {
		t.Errorf("containers %+v", tr.Containers)
	}
}

// FuzzBuilder feeds rows decoded from arbitrary bytes: the builder either
// builds a trace whose states all lie in its span, or reports an
// ArgumentError.
func FuzzBuilder(f *testing.F) {
	readertest.BoundMinimization(f)
	f.Add([]byte("a/b\x00s\x03\x09a/c\x00t\x01\x02a/b\x00s\x04\x05"))
	f.Add([]byte("x\x00\x00\x00\x05x\x00\x00\x02\x07"))
	f.Fuzz(func(t *testing.T, data []byte) {
		b := NewBuilder(Options{})
		for len(data) >= 4 {
			cut := strings.IndexByte(string(data), 0)
			if cut < 0 || len(data) < cut+4 {
				break
			}
			path, state := string(data[:cut]), string(data[cut+1:cut+2])
			start, end := trace.Time(data[cut+2]), trace.Time(data[cut+3])
			data = data[cut+4:]
			if err := b.Add(path, "", state, start, end); err != nil {
				var ae *errs.ArgumentError
				if !errors.As(err, &ae) {
					t.Fatalf("error %v is not an ArgumentError", err)
				}
				return
			}
		}
		tr := trace.New()
		if err := b.Finish(tr); err != nil {
			var ae *errs.ArgumentError
			if !errors.As(err, &ae) {
				t.Fatalf("error %v is not an ArgumentError", err)
			}
			return
		}
		for _, s := range tr.States.All() {
			if s.Start < tr.Start || s.End > tr.End || s.Container <= 0 || int(s.Container) >= len(tr.Containers) {
				t.Fatalf("state %+v outside the trace", s)
			}
		}
	})
}

// TestDeepPathCopiedOnce: the containers of a path of trace.MaxDepth
// names keep parts of one copy of it, not a copy of each prefix (the
// prefixes of 10,000 one-letter names are 100 MB; 214 MB were allocated,
// joined then copied), and are the path's prefixes.
func TestDeepPathCopiedOnce(t *testing.T) {
	path := "a" + strings.Repeat("/a", trace.MaxDepth-1)
	b := NewBuilder(Options{})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := b.Add(path, "", "s", 0, 1); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 8<<20 {
		t.Errorf("%d bytes allocated for a path of %d bytes", got, len(path))
	}
	if n := len(b.containers); n != trace.MaxDepth+1 {
		t.Fatalf("%d containers, want %d and the root", n, trace.MaxDepth)
	}
	for d := 1; d <= trace.MaxDepth; d++ {
		if c := b.containers[d]; c.name != "a" || c.path != path[:2*d-1] || c.depth != d || c.parent != int32(d-1) {
			t.Fatalf("container %d: %q at %q, depth %d, parent %d", d, c.name, c.path, c.depth, c.parent)
		}
	}
}

// TestDeclareAndCover: declared resources come first, in their order,
// whatever the rows' order; one no row uses is a container without
// states; Cover widens the trace's extent, never narrows it; a bad
// declared path is refused as a declared resource, not as a row.
func TestDeclareAndCover(t *testing.T) {
	b := NewBuilder(Options{})
	for _, p := range []string{"n/b", "n/a", "n/idle"} {
		if err := b.Declare(p); err != nil {
			t.Fatal(err)
		}
	}
	b.Cover(5, 50)
	for _, r := range []struct {
		path       string
		start, end trace.Time
	}{{"n/a", 10, 20}, {"n/b", 0, 30}, {"m", 15, 40}} {
		if err := b.Add(r.path, "", "x", r.start, r.end); err != nil {
			t.Fatal(err)
		}
	}
	tr := trace.New()
	if err := b.Finish(tr); err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := 1; i < len(tr.Containers); i++ {
		got = append(got, tr.ContainerPath(int32(i), "/"))
	}
	if want := "n n/b n/a n/idle m"; strings.Join(got, " ") != want {
		t.Errorf("containers %q, want %q", got, want)
	}
	if tr.Start != 0 || tr.End != 50 {
		t.Errorf("extent [%v, %v], want [0, 50]", tr.Start, tr.End)
	}
	var ae *errs.ArgumentError
	if err := NewBuilder(Options{}).Declare("n//a"); !errors.As(err, &ae) || !strings.HasPrefix(ae.Reason, "declared resource: ") {
		t.Errorf("bad declared path: %v", err)
	}
}

// TestDeclareValue: the values rows use are defined in the order of their
// declarations, across types, then the others in the order of use; a
// declared value no row uses is defined on the types of its type's name
// (not on a type no row makes), and one of another role is another value.
func TestDeclareValue(t *testing.T) {
	b := NewBuilder(Options{})
	b.DeclareValue("B", "late", "", trace.RoleNone)
	b.DeclareValue("A", "step", "", trace.RoleStep)
	b.DeclareValue("A", "unused", "", trace.RoleNone)
	b.DeclareValue("A", "early", "", trace.RoleNone)
	b.DeclareValue("C", "none", "", trace.RoleNone)
	for _, r := range []struct{ typ, value string }{{"A", "early"}, {"A", "other"}, {"A", "step"}, {"B", "late"}} {
		if err := b.AddValue("r", r.typ, r.value, "", map[bool]trace.Role{true: trace.RoleStep}[r.value == "step"], 0, 1); err != nil {
			t.Fatal(err)
		}
	}
	tr := trace.New()
	if err := b.Finish(tr); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range tr.Values {
		got = append(got, tr.TypeName(v.Type)+":"+v.Name+":"+v.Role.String())
	}
	if want := "B:late: A:step:step A:unused: A:early: A:other:"; strings.Join(got, " ") != want {
		t.Errorf("values %q, want %q", got, want)
	}
	for i := range tr.States.Len() {
		if s := tr.States.At(i); tr.Values[s.Value].Type != s.Type {
			t.Errorf("state %d: value %d of another type", i, s.Value)
		}
	}
	var names []string
	for i := range tr.States.Len() {
		names = append(names, tr.Values[tr.States.At(i).Value].Name)
	}
	slices.Sort(names)
	if strings.Join(names, " ") != "early late other step" {
		t.Errorf("states' values %v", names)
	}
}
