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
		f := newFolder(t, frontier, todo, results, fold, 4*workers)
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
					f.done(i)
				}
			}()
		}
		for i := range todo {
			f.waitRoom(i)
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

// folder folds the results of postOrder's subtrees solved in parallel
// into their parent's first result as they come, in the children's order,
// as visitSubtree folds the children it solves: the frontier of a wide
// node (a flat trace's thousands of threads under one process) is all of
// its children, whose results (a spatiotemporal solve's T x T tables)
// would otherwise all be held until the parent's visit, 7 GB for 30,000
// threads over 100 slices. The additions are those the parent's visit
// would make, in the same order: the same bits. Subtrees wait to be given
// out while window results are solved but not yet folded, which bounds
// the results held whatever the order the workers finish in.
type folder[R any] struct {
	mu      sync.Mutex
	room    *sync.Cond
	results []R
	// first is, for each entry of todo, the index of its parent's first
	// child among todo, or -1 when the parent has children outside the
	// frontier (their results come later, from the parent's visit): those
	// results wait whole for it, as before.
	first  []int
	ready  []bool
	next   int // results before next are folded
	fold   func(kids []R, i int)
	window int
}

// newFolder prepares the folding of results, those of the subtrees todo
// (the part of frontier not already done). Without fold, nothing is
// folded and nothing waits.
func newFolder[R any](t *hier.Tree, frontier, todo []int32, results []R, fold func([]R, int), window int) *folder[R] {
	f := &folder[R]{results: results, ready: make([]bool, len(todo)), fold: fold, window: window}
	f.room = sync.NewCond(&f.mu)
	if fold == nil {
		return f
	}
	inFrontier := make(map[int32]bool, len(frontier))
	for _, n := range frontier {
		inFrontier[n] = true
	}
	whole := map[int32]bool{} // parents whose children are all in the frontier
	f.first = make([]int, len(todo))
	for i, n := range todo {
		p := t.Parent[n]
		all, known := whole[p]
		if !known {
			all = true
			for _, c := range t.Children[p] {
				all = all && inFrontier[c]
			}
			whole[p] = all
		}
		switch {
		case !all:
			f.first[i] = -1
		case i > 0 && t.Parent[todo[i-1]] == p:
			// A parent's children are contiguous in the frontier (it
			// was expanded in one step, none of them since); the done
			// ones left out of todo hold no table to fold.
			f.first[i] = f.first[i-1]
		default:
			f.first[i] = i
		}
	}
	return f
}

// waitRoom waits until subtree i may be given out: fewer than window
// results are solved or being solved ahead of the folded ones.
func (f *folder[R]) waitRoom(i int) {
	if f.fold == nil {
		return
	}
	f.mu.Lock()
	for i >= f.next+f.window {
		f.room.Wait()
	}
	f.mu.Unlock()
}

// done records that results[i] is known and folds every result from next
// on that is known, in order.
func (f *folder[R]) done(i int) {
	if f.fold == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ready[i] = true
	for f.next < len(f.ready) && f.ready[f.next] {
		if a := f.first[f.next]; a >= 0 {
			f.fold(f.results[a:f.next+1], f.next-a)
		}
		f.next++
	}
	f.room.Broadcast()
}

// visitSubtree visits n's subtree sequentially. done holds the results
// already known. The children's results are gathered in (*bufs)[depth],
// reused from node to node at the same depth below n (visit must not keep
// them): a million-node tree would otherwise make a slice per node.
func visitSubtree[R any](t *hier.Tree, n int32, done map[int32]R, skip func(int32) (R, bool), w *scratch, visit func(int32, []R, *scratch) R, fold func([]R, int), bufs *[][]R, depth int) R {
	if r, ok := done[n]; ok {
		return r
	}
	// The descent is a loop over a stack of frames, not a recursion: a
	// hierarchy may be as deep as it has nodes (a crafted trace nests a
	// million containers), deeper than a goroutine's stack holds.
	type frame struct {
		n    int32
		next int // the next child to solve
		kids []R
	}
	enter := func(n int32, depth int) frame {
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
		return frame{n: n, kids: kids}
	}
	// put gives frame f's next child its result r, folded in.
	put := func(f *frame, r R) {
		f.kids[f.next] = r
		if fold != nil {
			fold(f.kids[:f.next+1], f.next)
		}
		f.next++
	}
	stack := []frame{enter(n, depth)}
	for {
		f := &stack[len(stack)-1]
		if f.next < len(f.kids) {
			c := t.Children[f.n][f.next]
			if r, ok := done[c]; ok {
				put(f, r)
			} else if r, ok := trySkip(skip, c); ok {
				put(f, r)
			} else {
				stack = append(stack, enter(c, depth+len(stack)))
			}
			continue
		}
		r := visit(f.n, f.kids, w)
		clear(f.kids) // drop the children's results (tables, stats) for the GC
		stack = stack[:len(stack)-1]
		if len(stack) == 0 {
			return r
		}
		put(&stack[len(stack)-1], r)
	}
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
