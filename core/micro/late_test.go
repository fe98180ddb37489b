package micro

import (
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// latePart streams a part that defines a state type of its own, then,
// after Defer, a container and a link type that the whole trace's reader
// defines at its end.
func latePart(t *testing.T, state string, late bool) *Partial {
	t.Helper()
	a, err := NewPartialAccumulator(Options{Slices: 4, Depth: Innermost}, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	a.DefineType(trace.Type{Name: "P", Kind: trace.KindContainer, Parent: trace.None, Start: trace.None, End: trace.None})
	a.CreateContainer(trace.Container{Name: "p0", Type: 0, Parent: 0})
	a.DefineType(trace.Type{Name: state, Kind: trace.KindState, Parent: 0, Start: trace.None, End: trace.None})
	a.DefineValue(trace.Value{Type: 1, Name: "run"})
	a.State(trace.State{Container: 1, Type: 1, Value: 0, Start: 10, End: 20})
	if late {
		a.Defer()
		a.CreateContainer(trace.Container{Name: "p9", Type: 0, Parent: 0})
		a.DefineType(trace.Type{Name: "L", Kind: trace.KindLink, Parent: trace.None, Start: 0, End: 0})
		a.DefineValue(trace.Value{Type: 2, Name: "msg"})
		a.Link(trace.Link{Container: 0, Type: 2, Value: 0, From: 1, To: 2, Start: 10, End: 30})
	}
	a.Finish(0, 100)
	p, err := a.Partial()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Late definitions go after those of every part, in a merge of all the
// parts as in a tree of merges; the definitions no part made in its place
// stay late in the merged partial.
func TestMergeLateDefinitions(t *testing.T) {
	a, b, c := latePart(t, "S1", true), latePart(t, "S2", false), latePart(t, "S3", true)
	if a.LateTypes != 1 || a.LateValues != 1 || a.LateContainers != 1 || b.LateTypes != 0 {
		t.Fatalf("late counts %d %d %d", a.LateTypes, a.LateValues, a.LateContainers)
	}
	ab, err := Merge(ByPart, a, b)
	if err != nil {
		t.Fatal(err)
	}
	flat, err := Merge(ByPart, a, b, c)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := Merge(ByPart, ab, c)
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string]*Partial{"flat": flat, "tree": tree} {
		var types []string
		for _, ty := range m.Types {
			types = append(types, ty.Name)
		}
		var conts []string
		for _, c := range m.Containers[1:] {
			conts = append(conts, c.Name)
		}
		if got := strings.Join(types, " "); got != "P S1 S2 S3 L" {
			t.Errorf("%s: types %s", name, got)
		}
		if got := strings.Join(conts, " "); got != "p0 p9" {
			t.Errorf("%s: containers %s", name, got)
		}
		if m.LateTypes != 1 || m.LateValues != 1 || m.LateContainers != 1 || m.Counts.Links != 2 {
			t.Errorf("%s: late %d %d %d, links %d", name, m.LateTypes, m.LateValues, m.LateContainers, m.Counts.Links)
		}
	}
	// A late container that a later part makes in its place is not late.
	d := latePart(t, "S4", false)
	d.Containers = append(d.Containers, trace.Container{Name: "p9", Type: 0, Parent: 0})
	d.HasData = append(d.HasData, false)
	m, err := Merge(ByPart, a, d)
	if err != nil {
		t.Fatal(err)
	}
	if m.LateContainers != 0 || len(m.Containers) != 3 {
		t.Errorf("late containers %d of %d", m.LateContainers, len(m.Containers)-1)
	}
	// Counts that do not fit are refused (a partial from another process).
	a.LateContainers = len(a.Containers)
	if _, err := Merge(ByPart, a); err == nil {
		t.Error("a partial with more late containers than containers merged")
	}
}
