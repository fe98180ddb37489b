// Package hier holds the resource hierarchy the aggregation algorithms work
// on: a rooted tree whose leaves are the rows of a microscopic model.
//
// Nodes are numbered in depth-first preorder, so every subtree is a
// contiguous range of node ids and its leaves a contiguous range of leaf
// indices. That makes "the leaves under n" a slice, and lets results be
// sorted in the order a Gantt chart shows rows.
package hier

import (
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// Tree is an immutable rooted tree in preorder. Node 0 is the root.
type Tree struct {
	Names    []string  // name of each node
	Parent   []int32   // parent of each node; -1 for the root
	Children [][]int32 // children of each node, in order
	Depth    []int32   // 0 for the root
	LeafLo   []int32   // first leaf index under each node
	LeafHi   []int32   // one past the last leaf index under each node
	Leaves   []int32   // node id of each leaf, in order
	End      []int32   // one past the last node id of each subtree
}

// Builder assembles a tree from nodes given in any order, children kept in
// the order they are added.
type Builder struct {
	names    []string
	children [][]int32
}

// NewBuilder starts a tree with a root called rootName.
func NewBuilder(rootName string) *Builder {
	return &Builder{names: []string{rootName}, children: [][]int32{nil}}
}

// Add appends a child named name under parent and returns its id, which
// is only valid for later Add calls on this builder.
func (b *Builder) Add(parent int, name string) int {
	id := len(b.names)
	b.names = append(b.names, name)
	b.children = append(b.children, nil)
	b.children[parent] = append(b.children[parent], int32(id))
	return id
}

// Build numbers the nodes in preorder. It returns the tree and, for each
// builder id, its node id in the tree.
func (b *Builder) Build() (*Tree, []int32) {
	n := len(b.names)
	t := &Tree{
		Names:    make([]string, 0, n),
		Parent:   make([]int32, 0, n),
		Children: make([][]int32, n),
		Depth:    make([]int32, 0, n),
		LeafLo:   make([]int32, n),
		LeafHi:   make([]int32, n),
		End:      make([]int32, n),
	}
	newID := make([]int32, n)
	type frame struct {
		old    int32
		parent int32
		depth  int32
	}
	stack := []frame{{0, -1, 0}}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		id := int32(len(t.Names))
		newID[f.old] = id
		t.Names = append(t.Names, b.names[f.old])
		t.Parent = append(t.Parent, f.parent)
		t.Depth = append(t.Depth, f.depth)
		if f.parent >= 0 {
			t.Children[f.parent] = append(t.Children[f.parent], id)
		}
		kids := b.children[f.old]
		for i := len(kids) - 1; i >= 0; i-- {
			stack = append(stack, frame{kids[i], id, f.depth + 1})
		}
	}
	// Subtree ends and leaf ranges, children before parents.
	for id := int32(n - 1); id >= 0; id-- {
		if len(t.Children[id]) == 0 {
			t.End[id] = id + 1
			continue
		}
		t.End[id] = t.End[t.Children[id][len(t.Children[id])-1]]
	}
	for id := int32(0); id < int32(n); id++ {
		if len(t.Children[id]) == 0 {
			t.LeafLo[id] = int32(len(t.Leaves))
			t.Leaves = append(t.Leaves, id)
			t.LeafHi[id] = int32(len(t.Leaves))
		}
	}
	for id := int32(n - 1); id >= 0; id-- {
		if kids := t.Children[id]; len(kids) > 0 {
			t.LeafLo[id] = t.LeafLo[kids[0]]
			t.LeafHi[id] = t.LeafHi[kids[len(kids)-1]]
		}
	}
	return t, newID
}

// Len returns the number of nodes.
func (t *Tree) Len() int { return len(t.Names) }

// IsLeaf reports whether node id has no children.
func (t *Tree) IsLeaf(id int32) bool { return len(t.Children[id]) == 0 }

// NumLeaves returns the number of leaves under node id.
func (t *Tree) NumLeaves(id int32) int { return int(t.LeafHi[id] - t.LeafLo[id]) }

// Path returns the names from the root's child down to id, joined by sep;
// the root's path is its own name.
func (t *Tree) Path(id int32, sep string) string {
	if id == 0 {
		return t.Names[0]
	}
	var parts []string
	for n := id; n > 0; n = t.Parent[n] {
		parts = append(parts, t.Names[n])
	}
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, sep)
}

// PostOrder returns node ids with every node after all its descendants.
func (t *Tree) PostOrder() []int32 {
	order := make([]int32, 0, t.Len())
	var visit func(int32)
	visit = func(n int32) {
		for _, c := range t.Children[n] {
			visit(c)
		}
		order = append(order, n)
	}
	visit(0)
	return order
}

// Validate checks the invariants a hand-made Tree must satisfy.
func (t *Tree) Validate() error {
	if t.Len() == 0 {
		return errs.Argument("hierarchy", "the hierarchy is empty")
	}
	if len(t.Leaves) == 0 {
		return errs.Argument("hierarchy", "the hierarchy has no leaves")
	}
	return nil
}
