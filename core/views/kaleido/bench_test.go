package kaleido

import (
	"fmt"
	"testing"
)

// BenchmarkLayout lays out random trees of 1e5 and 1e6 nodes: a shallow
// one (each node hangs from any earlier node: height about 2 ln n) and a
// deep one (from one of the 50 previous: height in the thousands, so the
// whole tree is level-condensed).
func BenchmarkLayout(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		for _, c := range []struct {
			name  string
			reach int
		}{{"shallow", n}, {"deep", 50}} {
			tree := randomTree(n, c.reach, 1)
			b.Run(fmt.Sprintf("%s-%d", c.name, n), func(b *testing.B) {
				var l *Layout
				for b.Loop() {
					l = mustLayout(b, tree, Options{Width: 850, LevelSpacing: 4})
				}
				b.ReportMetric(float64(tree.Height), "height")
				b.ReportMetric(float64(l.NumDrawn), "drawn")
			})
		}
	}
}

// BenchmarkFromIntTable times the builder alone on a shuffled table.
func BenchmarkFromIntTable(b *testing.B) {
	tree := randomTree(1_000_000, 1000, 1)
	n := tree.Len()
	ids, parents, has := make([]int64, n), make([]int64, n), make([]bool, n)
	for v := range n {
		r := tree.Row[v]
		ids[r] = tree.IntKeys[r]
		if p := tree.Parent[v]; p != None {
			parents[r], has[r] = tree.IntKeys[tree.Row[p]], true
		}
	}
	for b.Loop() {
		if _, err := FromIntTable(ids, parents, has, Attributes{}); err != nil {
			b.Fatal(err)
		}
	}
}
