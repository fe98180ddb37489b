package hpctoolkit

import (
	"testing"

	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/views/kaleido"
)

// The nested states build the calling-context tree of every line: each
// state is a node whose parent is the state of the enclosing frame, and
// the microscopic model takes them at any depth.
func TestCallTreeAndModel(t *testing.T) {
	dir := corpus(t, sparseDBs["ping-pong"]...)
	tr, _ := readStats(t, dir, options{})
	tree, err := kaleido.FromTrace(tr, kaleido.TraceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tree.Parent) != tr.States.Len()+1 {
		t.Fatalf("%d nodes for %d states", len(tree.Parent), tr.States.Len())
	}
	maxDepth := int32(0)
	for v := 1; v < len(tree.Parent); v++ {
		s := tr.States.At(int(tree.Row[v]))
		maxDepth = max(maxDepth, s.Depth)
		p := tree.Parent[v]
		if s.Depth == 0 {
			if p != 0 {
				t.Fatalf("outermost state %s under node %d", stateLine(tr, s), p)
			}
			continue
		}
		ps := tr.States.At(int(tree.Row[p]))
		if ps.Depth != s.Depth-1 || ps.Container != s.Container || ps.Start > s.Start || ps.End < s.End {
			t.Fatalf("%s hangs from %s", stateLine(tr, s), stateLine(tr, ps))
		}
	}
	if tree.Height != int(maxDepth)+2 {
		t.Errorf("tree height %d, want %d", tree.Height, maxDepth+2)
	}
	for _, d := range []int{micro.Innermost, 0, 3} {
		if _, err := micro.Build(tr, micro.Options{Slices: 20, Depth: d}); err != nil {
			t.Errorf("model at depth %d: %v", d, err)
		}
	}
}
