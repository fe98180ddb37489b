package kaleido

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// None marks an absent node, procedure or PE.
const None int32 = -1

// Tree is an immutable ordered rooted tree of invocations, numbered in
// depth-first preorder: node 0 is the root, the first child of n (if any)
// is n+1, the next sibling of a child c is End[c], and the subtree of n is
// the range [n, End[n]).
type Tree struct {
	Parent []int32 // None for the root
	Depth  []int32 // 0 for the root
	End    []int32 // one past the last node of each subtree
	Height int     // longest root-to-leaf path + 1

	Procedure  []int32 // index into Procedures, or None
	Procedures []string
	// ProcedureColors, parallel to Procedures, holds the colour the trace
	// gives each procedure (its state value's, as the file wrote it:
	// Pajé's "r g b"), "" where it gives none; nil for a tree built from
	// a table, which has no colours.
	ProcedureColors []string
	PE              []int32 // index into PEs, or None
	PEs             []string
	Start           []trace.Time // nil when the tree has no times
	// Origin is the first instant of the trace the tree was built from:
	// the times shown count from it (0 for a tree built from a table).
	Origin trace.Time

	// Row is the input row of each node: the table row for FromIntTable
	// and FromStringTable, the index in Trace.States for FromTrace (None
	// for the synthetic root).
	Row []int32
	// IntKeys or StrKeys, one of them for a tree built from a table,
	// give the id of each row. A tree built from a trace has neither: its
	// nodes are known by their preorder number.
	IntKeys []int64
	StrKeys []string
}

// Len returns the number of nodes.
func (t *Tree) Len() int { return len(t.Parent) }

// Children calls yield for each child of n, in order.
func (t *Tree) Children(n int32, yield func(c int32) bool) {
	for c := n + 1; c < t.End[n]; c = t.End[c] {
		if !yield(c) {
			return
		}
	}
}

// NumChildren returns the number of children of n.
func (t *Tree) NumChildren(n int32) int {
	k := 0
	for c := n + 1; c < t.End[n]; c = t.End[c] {
		k++
	}
	return k
}

// HasStart reports whether the nodes have start times.
func (t *Tree) HasStart() bool { return t.Start != nil }

// shape is the preorder numbering of a tree given as parent rows.
type shape struct {
	row    []int32 // preorder node -> row
	parent []int32 // preorder parents
	depth  []int32
	end    []int32
	height int
}

// preorder numbers the tree given by parent rows (parent[r] is the row of
// r's parent, None for root) in depth-first preorder from root, children in
// row order, or by compare when it is not nil (ties in row order). It
// returns ok = false, with the rows it could not reach, when some rows are
// not descendants of root: they hang from cycles of parents. The sorts by
// compare stop once look does (nil: never), with look's error.
func preorder(parent []int32, root int32, compare func(a, b int32) int, look *trace.Looker) (s shape, unreached []int32, err error) {
	n := len(parent)
	// Children of each row, in CSR form, in row order.
	off := make([]int32, n+1)
	for r, p := range parent {
		if p != None && int32(r) != root {
			off[p+1]++
		}
	}
	for r := range n {
		off[r+1] += off[r]
	}
	kids := make([]int32, off[n])
	fill := slices.Clone(off[:n])
	for r, p := range parent {
		if p != None && int32(r) != root {
			kids[fill[p]] = int32(r)
			fill[p]++
		}
	}
	if compare != nil {
		for r := range n {
			if seg := kids[off[r]:off[r+1]]; len(seg) > 1 {
				if err := trace.SortStableFunc(seg, compare, look); err != nil {
					return shape{}, nil, err
				}
			}
		}
	}

	s.row = make([]int32, 0, n)
	s.parent = make([]int32, 0, n)
	s.depth = make([]int32, 0, n)
	// Every row but the root is in exactly one list of children, so the
	// walk reaches each row at most once; rows on or below a cycle of
	// parents are never reached.
	type frame struct{ row, parent, depth int32 }
	stack := []frame{{root, None, 0}}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		node := int32(len(s.row))
		s.row = append(s.row, f.row)
		s.parent = append(s.parent, f.parent)
		s.depth = append(s.depth, f.depth)
		s.height = max(s.height, int(f.depth)+1)
		seg := kids[off[f.row]:off[f.row+1]]
		for i := len(seg) - 1; i >= 0; i-- {
			stack = append(stack, frame{seg[i], node, f.depth + 1})
		}
	}
	if len(s.row) < n {
		seen := make([]bool, n)
		for _, r := range s.row {
			seen[r] = true
		}
		for r := range n {
			if !seen[r] {
				unreached = append(unreached, int32(r))
			}
		}
		return s, unreached, nil
	}
	s.end = make([]int32, n)
	for v := n - 1; v >= 0; v-- {
		if s.end[v] == 0 {
			s.end[v] = int32(v + 1)
		}
		if p := s.parent[v]; p != None {
			s.end[p] = max(s.end[p], s.end[v])
		}
	}
	return s, nil, nil
}

// byStart orders rows by start time.
func byStart(start []trace.Time) func(a, b int32) int {
	return func(a, b int32) int { return cmp.Compare(start[a], start[b]) }
}

// permute returns v reordered by node: out[node] = v[row[node]].
func permute[T any](v []T, row []int32) []T {
	if v == nil {
		return nil
	}
	out := make([]T, len(row))
	for node, r := range row {
		out[node] = v[r]
	}
	return out
}

// Key returns the id of node v as the user knows it: the table's id, or
// the node number for a tree built from a trace.
func (t *Tree) Key(v int32) string {
	switch {
	case t.IntKeys != nil:
		return strconv.FormatInt(t.IntKeys[t.Row[v]], 10)
	case t.StrKeys != nil:
		return t.StrKeys[t.Row[v]]
	}
	return strconv.Itoa(int(v))
}
