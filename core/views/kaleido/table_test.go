package kaleido

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

func TestFromTablePreorder(t *testing.T) {
	// Rows in any order; children keep row order, or start order.
	ids := []int64{30, 10, 20, 40, 50}
	parents := []int64{10, 0, 10, 20, 10}
	has := []bool{true, false, true, true, true}
	start := []trace.Time{5, 0, 9, 10, 1}
	tree, err := FromIntTable(ids, parents, has, Attributes{Start: start})
	if err != nil {
		t.Fatal(err)
	}
	keys := func(tr *Tree) []int64 {
		var out []int64
		for _, r := range tr.Row {
			out = append(out, tr.IntKeys[r])
		}
		return out
	}
	if got := keys(tree); !slices.Equal(got, []int64{10, 30, 20, 40, 50}) {
		t.Errorf("row order: preorder %v", got)
	}
	if !slices.Equal(tree.Depth, []int32{0, 1, 1, 2, 1}) || !slices.Equal(tree.End, []int32{5, 2, 4, 4, 5}) || tree.Height != 3 {
		t.Errorf("depth %v end %v height %d", tree.Depth, tree.End, tree.Height)
	}
	if !slices.Equal(tree.Start, []trace.Time{0, 5, 9, 10, 1}) || tree.NumChildren(0) != 3 {
		t.Errorf("start by node %v", tree.Start)
	}
	tree, err = FromIntTable(ids, parents, has, Attributes{Start: start, OrderByStart: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := keys(tree); !slices.Equal(got, []int64{10, 50, 30, 20, 40}) {
		t.Errorf("start order: preorder %v", got)
	}
	if !slices.Equal(tree.Parent, []int32{None, 0, 0, 0, 3}) {
		t.Errorf("parents %v", tree.Parent)
	}
}

func TestFromTableErrors(t *testing.T) {
	for _, c := range []struct {
		name    string
		ids     []string
		parents []string // "" for none
		param   string
		want    string
	}{
		{"empty", nil, nil, "id", "no rows"},
		{"duplicate id", []string{"a", "b", "a"}, []string{"", "a", "b"}, "id", "row 2: id a is already the id of row 0"},
		{"unknown parent", []string{"a", "b", "c"}, []string{"", "a", "zz"}, "parent", "row 2 (id c): parent zz is not the id of any row"},
		{"two roots", []string{"a", "b", "c"}, []string{"", "a", ""}, "parent", "2 roots (rows without parent), a tree has one: row 0 (id a), row 2 (id c)"},
		{"no root", []string{"a", "b"}, []string{"b", "a"}, "parent", "no root (a row without parent): row 0 (id a) is on a cycle of parents: rows 0, 1; following parents, ids a -> b -> a"},
		{"cycle beside the root", []string{"r", "x", "y", "z", "w"}, []string{"", "r", "w", "y", "z"}, "parent",
			"row 2 (id y) is on a cycle of parents: rows 2, 4, 3; following parents, ids y -> w -> z -> y"},
		{"own parent", []string{"r", "s"}, []string{"", "s"}, "parent", "row 1 (id s) is on a cycle of parents: rows 1; following parents, ids s -> s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			has := make([]bool, len(c.ids))
			for i, p := range c.parents {
				has[i] = p != ""
			}
			_, err := FromStringTable(c.ids, c.parents, has, Attributes{})
			var ae *errs.ArgumentError
			if !errors.As(err, &ae) || ae.Name != c.param || !strings.Contains(ae.Reason, c.want) {
				t.Errorf("got %v, want an argument error on %s containing %q", err, c.param, c.want)
			}
		})
	}
	// Columns of the wrong length, indices out of range.
	ids, parents, has := []int64{1, 2}, []int64{0, 1}, []bool{false, true}
	for _, attr := range []Attributes{
		{Start: []trace.Time{1}},
		{Procedure: []int32{0, 1}, Procedures: []string{"p"}},
		{PE: []int32{-2, 0}, PEs: []string{"x"}},
	} {
		if _, err := FromIntTable(ids, parents, has, attr); err == nil {
			t.Errorf("%+v accepted", attr)
		}
	}
	if _, err := FromIntTable(ids, parents[:1], has, Attributes{}); err == nil {
		t.Error("short parent column accepted")
	}
}

// FuzzFromIntTable builds trees from arbitrary parent columns: either a
// tree or an *errs.ArgumentError, never a panic; every tree is a valid
// preorder numbering.
func FuzzFromIntTable(f *testing.F) {
	readertest.BoundMinimization(f)
	f.Add([]byte{0, 1, 1, 2, 2})
	f.Add([]byte{3, 0, 1, 2})
	f.Add([]byte{0, 0, 0})
	f.Add([]byte{1, 2, 3, 0, 9})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<12 {
			return
		}
		n := len(data)
		ids := make([]int64, n)
		parents := make([]int64, n)
		has := make([]bool, n)
		for i, b := range data {
			ids[i] = int64(i)
			// 0 is "no parent"; b-1 a row, possibly out of range.
			parents[i], has[i] = int64(b)-1, b != 0
		}
		tree, err := FromIntTable(ids, parents, has, Attributes{})
		if err != nil {
			var ae *errs.ArgumentError
			if !errors.As(err, &ae) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if tree.Len() != n || tree.Parent[0] != None {
			t.Fatalf("%d nodes for %d rows", tree.Len(), n)
		}
		for v := 1; v < n; v++ {
			p := tree.Parent[v]
			if p < 0 || p >= int32(v) || tree.Depth[v] != tree.Depth[p]+1 || tree.End[v] > tree.End[p] {
				t.Fatalf("node %d: parent %d", v, p)
			}
			if parents[tree.Row[v]] != int64(tree.Row[p]) {
				t.Fatalf("node %d: row %d has parent row %d, not %d", v, tree.Row[v], parents[tree.Row[v]], tree.Row[p])
			}
		}
		checkInvariants(t, mustLayout(t, tree, Options{Width: 300, LevelSpacing: 7}))
	})
}
