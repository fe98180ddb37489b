package kaleido

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// spawnTrace builds a trace of containers "a".."f" under a host "h" and
// spawn links given as (from, to, start) with container letters; each
// link's value is "run " + the child's letter.
func spawnTrace(links ...struct {
	from, to byte
	at       trace.Time
}) *trace.Trace {
	tr := trace.New("spawn")
	tr.DefineType(trace.Type{Name: "Host", Kind: trace.KindContainer, Parent: trace.None})
	tr.DefineType(trace.Type{Name: "Task", Kind: trace.KindContainer, Parent: 0})
	tr.DefineType(trace.Type{Name: "spawn", Kind: trace.KindLink, Parent: 0, Start: 1, End: 1})
	tr.DefineType(trace.Type{Name: "other", Kind: trace.KindLink, Parent: 0, Start: 1, End: 1})
	tr.CreateContainer(trace.Container{Name: "h", Type: 0, Parent: 0})
	for i := range 6 {
		tr.CreateContainer(trace.Container{Name: string(rune('a' + i)), Type: 1, Parent: 1, Start: trace.Time(i)})
	}
	values := map[byte]int32{}
	for _, l := range links {
		v, ok := values[l.to]
		if !ok {
			v = int32(len(tr.Values))
			values[l.to] = v
			tr.DefineValue(trace.Value{Type: 2, Name: "run " + string(l.to)})
		}
		tr.Link(trace.Link{Container: 1, Type: 2, Value: v, Start: l.at, End: l.at,
			From: int32(l.from-'a') + 2, To: int32(l.to-'a') + 2, Size: math.NaN()})
	}
	// A link of another type never enters the tree.
	tr.Link(trace.Link{Container: 1, Type: 3, Value: trace.None, From: 7, To: 2})
	tr.Finish(0, 100)
	return tr
}

type spawn = struct {
	from, to byte
	at       trace.Time
}

func TestFromSpawnLinks(t *testing.T) {
	// a spawns c (at 20) then b (at 10, listed later), c spawns d; e
	// spawns f; so the roots are a (start 0) and e (start 4).
	tr := spawnTrace(spawn{'a', 'c', 20}, spawn{'c', 'd', 30}, spawn{'a', 'b', 10}, spawn{'e', 'f', 5})
	tree, err := FromSpawnLinks(tr, "spawn")
	if err != nil {
		t.Fatal(err)
	}
	// Preorder, siblings by creation time: program, a, b, c, d, e, f.
	name := func(v int32) string { return tree.Procedures[tree.Procedure[v]] }
	var got []string
	for v := range int32(tree.Len()) {
		got = append(got, name(v))
	}
	if want := []string{"program", "a", "run b", "run c", "run d", "e", "run f"}; !slices.Equal(got, want) {
		t.Fatalf("procedures in preorder %v, want %v", got, want)
	}
	if want := []int32{None, 0, 1, 1, 3, 0, 5}; !slices.Equal(tree.Parent, want) {
		t.Errorf("parents %v, want %v", tree.Parent, want)
	}
	if want := []int32{0, 1, 2, 2, 3, 1, 2}; !slices.Equal(tree.Depth, want) {
		t.Errorf("depths %v, want %v", tree.Depth, want)
	}
	if tree.Height != 4 {
		t.Errorf("height %d, want 4", tree.Height)
	}
	if want := []trace.Time{0, 0, 10, 20, 30, 4, 5}; !slices.Equal(tree.Start, want) {
		t.Errorf("starts %v, want %v", tree.Start, want)
	}
	// Rows: the creating links (b by link 2, c by 0, d by 1, f by 3).
	if want := []int32{None, None, 2, 0, 1, None, 3}; !slices.Equal(tree.Row, want) {
		t.Errorf("rows %v, want %v", tree.Row, want)
	}
	var pes []string
	for v := range int32(tree.Len()) {
		if tree.PE[v] == None {
			pes = append(pes, "")
		} else {
			pes = append(pes, tree.PEs[tree.PE[v]])
		}
	}
	if want := []string{"", "h/a", "h/b", "h/c", "h/d", "h/e", "h/f"}; !slices.Equal(pes, want) {
		t.Errorf("PEs %q, want %q", pes, want)
	}
}

func TestFromSpawnLinksErrors(t *testing.T) {
	var arg *errs.ArgumentError
	var format *errs.FormatError
	if _, err := FromSpawnLinks(spawnTrace(spawn{'a', 'b', 1}), "fork"); !errors.As(err, &arg) {
		t.Errorf("unknown link type: %v, want an ArgumentError", err)
	}
	if _, err := FromSpawnLinks(spawnTrace(), "spawn"); !errors.As(err, &arg) {
		t.Errorf("no links: %v, want an ArgumentError", err)
	}
	if _, err := FromSpawnLinks(spawnTrace(spawn{'a', 'b', 1}, spawn{'c', 'b', 2}), "spawn"); !errors.As(err, &format) {
		t.Errorf("b created twice: %v, want a FormatError", err)
	}
	if _, err := FromSpawnLinks(spawnTrace(spawn{'a', 'b', 1}, spawn{'b', 'c', 2}, spawn{'c', 'a', 3}), "spawn"); !errors.As(err, &format) {
		t.Errorf("cycle: %v, want a FormatError", err)
	}
}
