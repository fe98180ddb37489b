package aggregate

import (
	"sync"
	"sync/atomic"

	"github.com/macroscope-hpc/macroscope/core/hier"
)

// scratch is per-goroutine working memory.
type scratch struct {
	frozen  []bool    // one flag per interval of a node
	lines   []line    // one line per interval of a node
	logSize []float64 // one value per length of interval, and 0
	pos     []int     // one value per slice
	cells   []float64 // one value per slice and state
	iq      intervalScratch
	// Buffers of node stats no longer needed, to reuse.
	freeV, freeEnt [][]float64
	kidStats       []nodeStats
}

// buffer returns a buffer of n values from free, or a new one.
func (w *scratch) buffer(free *[][]float64, n int) []float64 {
	if k := len(*free); k > 0 {
		b := (*free)[k-1]
		*free = (*free)[:k-1]
		return b
	}
	return make([]float64, n)
}

// recycle hands the buffers of consumed stats back for reuse.
func (w *scratch) recycle(st nodeStats) {
	if st.sparse {
		w.iq.sp.recycle(st)
		if st.ent != nil {
			w.freeEnt = append(w.freeEnt, st.ent)
		}
		return
	}
	if st.ownV {
		w.freeV = append(w.freeV, st.v)
	}
	if st.ent != nil {
		w.freeEnt = append(w.freeEnt, st.ent)
	}
}

// postOrder calls visit for every node after its children, passing the
// children's results, in parallel over disjoint subtrees, and returns the
// root's result. skip, if not nil, may stand in for a whole subtree: when
// skip(n) reports true, n's subtree is not visited and the value skip
// returned is n's result. skip and visit must be safe for concurrent use
// on disjoint subtrees.
//
// fold, if not nil, is called with the children's results gathered so
// far as soon as the i-th is known, children in order, by the goroutine
// that then visits their parent: it may fold kids[i] into an earlier
// result while kids[i] is fresh in cache (see run.fold).
//
// Each goroutine takes its scratch from scratches and puts it back when
// done: a sweep solves hundreds of times, and the scratch of a node's
// intervals is large.
func postOrder[R any](t *hier.Tree, workers int, skip func(n int32) (R, bool), scratches *sync.Pool, visit func(n int32, kids []R, w *scratch) R, fold func(kids []R, i int)) R {
	done := map[int32]R{}
	skipped := func(n int32) bool {
		if skip == nil {
			return false
		}
		r, ok := skip(n)
		if ok {
			done[n] = r
		}
		return ok
	}
	if skipped(0) {
		return done[0]
	}
	// Split the tree into enough disjoint subtrees to keep workers busy.
	frontier := []int32{0}
	for len(frontier) < 8*workers {
		var next []int32
		grew := false
		for _, n := range frontier {
			if _, ok := done[n]; ok || t.IsLeaf(n) {
				next = append(next, n)
				continue
			}
			for _, c := range t.Children[n] {
				skipped(c)
				next = append(next, c)
			}
			grew = true
		}
		if !grew {
			break
		}
		frontier = next
	}
	var todo []int32
	for _, n := range frontier {
		if _, ok := done[n]; !ok {
			todo = append(todo, n)
		}
	}
	if len(todo) > 1 && workers > 1 {
		results := make([]R, len(todo))
		jobs := make(chan int)
		var wg sync.WaitGroup
		for k := 0; k < min(workers, len(todo)); k++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				w := scratches.Get().(*scratch)
				defer scratches.Put(w)
				var bufs [][]R
				for i := range jobs {
					results[i] = visitSubtree(t, todo[i], nil, skip, w, visit, fold, &bufs, 0)
				}
			}()
		}
		for i := range todo {
			jobs <- i
		}
		close(jobs)
		wg.Wait()
		for i, n := range todo {
			done[n] = results[i]
		}
	}
	var bufs [][]R
	w := scratches.Get().(*scratch)
	defer scratches.Put(w)
	return visitSubtree(t, 0, done, skip, w, visit, fold, &bufs, 0)
}

// visitSubtree visits n's subtree sequentially. done holds the results
// already known. The children's results are gathered in (*bufs)[depth],
// reused from node to node at the same depth below n (visit must not keep
// them): a million-node tree would otherwise make a slice per node.
func visitSubtree[R any](t *hier.Tree, n int32, done map[int32]R, skip func(int32) (R, bool), w *scratch, visit func(int32, []R, *scratch) R, fold func([]R, int), bufs *[][]R, depth int) R {
	if r, ok := done[n]; ok {
		return r
	}
	for len(*bufs) <= depth {
		*bufs = append(*bufs, nil)
	}
	kids := (*bufs)[depth]
	if k := len(t.Children[n]); cap(kids) < k {
		kids = make([]R, k)
		(*bufs)[depth] = kids
	} else {
		kids = kids[:k]
	}
	for i, c := range t.Children[n] {
		if r, ok := done[c]; ok {
			kids[i] = r
		} else if r, ok := trySkip(skip, c); ok {
			kids[i] = r
		} else {
			kids[i] = visitSubtree(t, c, done, skip, w, visit, fold, bufs, depth+1)
		}
		if fold != nil {
			fold(kids[:i+1], i)
		}
	}
	r := visit(n, kids, w)
	clear(kids) // drop the children's results (tables, stats) for the GC
	return r
}

// trySkip is skip(n), false when skip is nil.
func trySkip[R any](skip func(int32) (R, bool), n int32) (R, bool) {
	if skip == nil {
		var zero R
		return zero, false
	}
	return skip(n)
}

// forChunks calls do(c) for every c in [0, n) on up to workers goroutines,
// each taking the next c not yet taken, and returns when all are done.
func forChunks(n, workers int, do func(c int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(max(workers, 1), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := int(next.Add(1) - 1); c < n; c = int(next.Add(1) - 1) {
				do(c)
			}
		}()
	}
	wg.Wait()
}
