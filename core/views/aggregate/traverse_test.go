package aggregate

import (
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/hier"
)

// sumResult is a node's result in the traversal tests: a value standing
// for a solve's table, handed back (live counts it) when folded into its
// first sibling's, as run.fold does.
type sumResult struct{ v *float64 }

// TestPostOrderFoldsWideNode: the children of a wide node solved in
// parallel are folded as they come, in their order, so that only a few of
// their results are held at once (a flat trace's 30,000 threads over 100
// slices held 7 GB of tables until the root's visit: 15 GB at the peak),
// and the sums are those of the children added in order, bit for bit.
func TestPostOrderFoldsWideNode(t *testing.T) {
	const leaves = 20000
	b := hier.NewBuilder("root")
	for i := range leaves {
		b.Add(0, "r"+strconv.Itoa(i))
	}
	tree, _ := b.Build()
	value := func(n int32) float64 { return 1 / float64(3*n+1) } // sums that depend on the order
	want := 0.0
	for _, c := range tree.Children[0] {
		want += value(c)
	}
	for _, workers := range []int{1, 2, 8, 32} {
		var live, peak atomic.Int64
		scratches := &sync.Pool{New: func() any { return &scratch{} }}
		visit := func(n int32, kids []sumResult, _ *scratch) sumResult {
			if len(kids) == 0 {
				v := value(n)
				for l, m := live.Add(1), peak.Load(); l > m && !peak.CompareAndSwap(m, l); m = peak.Load() {
				}
				return sumResult{&v}
			}
			return kids[0] // the first child holds the sum of all
		}
		fold := func(kids []sumResult, i int) {
			if kids[i].v == nil { // folded already
				return
			}
			for j := i - 1; j >= 0; j-- {
				if kids[j].v != nil {
					*kids[j].v += *kids[i].v
					kids[i].v = nil
					live.Add(-1)
					return
				}
			}
		}
		root := postOrder(tree, workers, nil, scratches, visit, fold)
		if got := *root.v; got != want {
			t.Errorf("workers=%d: the root's sum is %v, want %v (the children added in order)", workers, got, want)
		}
		// The results ahead of the folded ones (4 per worker), those being
		// solved and the first child's, which holds the sum.
		if max := int64(5*workers + 2); peak.Load() > max {
			t.Errorf("workers=%d: %d leaves' results held at once, want at most %d", workers, peak.Load(), max)
		}
	}
}

// TestPostOrderDeepChain: a hierarchy as deep as it has nodes (a crafted
// Pajé trace nests a million containers in 61 MB) is visited without a
// goroutine stack as deep as the tree: the recursive descent overflowed
// the stack's limit, a fatal error no recover stops. The limit is lowered
// here so that a recursive descent would overflow it on this chain.
func TestPostOrderDeepChain(t *testing.T) {
	defer debug.SetMaxStack(debug.SetMaxStack(16 << 20))
	const depth = 200000
	b := hier.NewBuilder("root")
	for i := 1; i < depth; i++ {
		b.Add(i-1, "n"+strconv.Itoa(i))
	}
	tree, _ := b.Build()
	for _, workers := range []int{1, 2, 8} {
		scratches := &sync.Pool{New: func() any { return &scratch{} }}
		var order []int32
		visit := func(n int32, kids []int32, _ *scratch) int32 {
			order = append(order, n)
			if len(kids) == 0 {
				return 1
			}
			return kids[0] + 1 // the height of n's subtree
		}
		if got := postOrder(tree, workers, nil, scratches, visit, nil); got != depth {
			t.Errorf("workers=%d: the root's height is %d, want %d", workers, got, depth)
		}
		for i, n := range order { // the deepest first, the root last
			if want := int32(depth - 1 - i); n != want {
				t.Fatalf("workers=%d: visit %d is node %d, want %d", workers, i, n, want)
			}
		}
	}
}
