package aggregate

import (
	"runtime"
	"sort"
	"sync"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/hier"
)

// Part is one aggregate of a partition: node Node of the hierarchy over
// slices First..Last (inclusive).
type Part struct {
	Node        int32
	First, Last int32
	Gain, Loss  float64
}

// Partition is an optimal partition for one value of p.
type Partition struct {
	P          float64
	Parts      []Part // sorted by node (preorder), then time
	Gain, Loss float64
	Value      float64 // pIC = sum over parts of p*gain - (1-p)*loss
}

// Options tune the measures.
type Options struct {
	// Normalize divides gains by the gain of aggregating the whole model
	// into one part, and losses by its loss, so that both lie in [0, 1].
	// That is what lpaggreg's R binding does; it changes which partition is
	// optimal for a given p (not the set of optimal partitions).
	Normalize bool
	// CacheBytes bounds the memory used to keep the gain and loss of every
	// (node, interval) between solves; 0 means 2 GiB. Larger models
	// recompute them on every solve.
	CacheBytes int64
	// Workers is the number of goroutines; 0 means GOMAXPROCS.
	Workers int
}

// Spatiotemporal finds optimal partitions of (hierarchy x ordered time) by
// the dynamic program of seed 000 (Algorithm 1), in its exact form: at every
// node and time interval, keep the block whole, split it into the node's
// children, or cut it in time. Unlike lpaggreg's DLP, the first time block
// of a node may also be split by its children.
//
// Ties follow lpaggreg: values are compared first, then the larger gain,
// then the smaller loss; an exact tie between aggregating and splitting
// into children aggregates; a time cut replaces the best so far only if it
// is strictly better, so earlier cuts win ties.
//
// A Spatiotemporal is safe for concurrent use.
type Spatiotemporal struct {
	in           Input
	opt          Options
	gain0, loss0 float64 // normalisation constants (1 when off)
	tri          int     // intervals per node
	// cache holds gain and loss of every (node, interval), or is nil.
	cache []cachedGL
}

// cachedGL is a cached gain and loss. float32 would halve the cache, but
// exact ties need full precision.
type cachedGL = [2]float64

// NewSpatiotemporal prepares the aggregation of in.
func NewSpatiotemporal(in Input, opt Options) (*Spatiotemporal, error) {
	if err := in.validate(); err != nil {
		return nil, err
	}
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	if opt.CacheBytes == 0 {
		opt.CacheBytes = 2 << 30
	}
	s := &Spatiotemporal{in: in, opt: opt, gain0: 1, loss0: 1, tri: in.Slices * (in.Slices + 1) / 2}
	if opt.Normalize {
		g, l := rootQuality(in)
		if g > 0 {
			s.gain0 = g
		}
		if l > 0 {
			s.loss0 = l
		}
	}
	if need := int64(in.Tree.Len()) * int64(s.tri) * 16; need <= opt.CacheBytes {
		s.cache = make([]cachedGL, int64(in.Tree.Len())*int64(s.tri))
		s.fillCache()
	}
	return s, nil
}

// rootQuality returns the gain and loss of aggregating everything.
func rootQuality(in Input) (gain, loss float64) {
	sums := make([]float64, in.States)
	ent := 0.0
	for i, v := range in.Values {
		sums[i%in.States] += v
		ent += xlog2x(v)
	}
	total, xl := 0.0, 0.0
	for _, v := range sums {
		total += v
		xl += xlog2x(v)
	}
	return gainLoss(xl, ent, total, len(in.Values)/in.States)
}

// triIndex numbers the intervals [i..j], 0 <= i <= j < n, of one node.
func triIndex(i, j int) int { return j*(j+1)/2 + i }

func (s *Spatiotemporal) fillCache() {
	s.postOrder(func(n int32, kids []nodeStats, w *scratch) nodeStats {
		st := s.stats(n, kids, w)
		base := int(n) * s.tri
		intervalQualities(st, s.in.Slices, s.in.States, s.in.Tree.NumLeaves(n), w.acc, func(i, j int, g, l float64) {
			s.cache[base+triIndex(i, j)] = [2]float64{g, l}
		})
		return st
	})
}

// stats returns the stats of node n given its children's.
func (s *Spatiotemporal) stats(n int32, kids []nodeStats, w *scratch) nodeStats {
	t := s.in.Tree
	if t.IsLeaf(n) {
		return leafStats(s.in, int(t.LeafLo[n]))
	}
	st := nodeStats{v: make([]float64, s.in.Slices*s.in.States), ent: make([]float64, s.in.Slices)}
	for _, k := range kids {
		st.add(k)
	}
	return st
}

// scratch is per-goroutine working memory.
type scratch struct {
	acc []float64
}

// postOrder calls visit for every node after its children, passing the
// children's results, in parallel over disjoint subtrees. Results of a
// node's children are released once the node has been visited.
func postOrder[R any](t *hier.Tree, workers int, newScratch func() *scratch, visit func(n int32, kids []R, w *scratch) R) R {
	// Split the tree into enough disjoint subtrees to keep workers busy.
	frontier := []int32{0}
	for len(frontier) < 8*workers {
		var next []int32
		grew := false
		for _, n := range frontier {
			if t.IsLeaf(n) {
				next = append(next, n)
				continue
			}
			next = append(next, t.Children[n]...)
			grew = true
		}
		if !grew {
			break
		}
		frontier = next
	}
	done := make(map[int32]R, len(frontier))
	if len(frontier) > 1 {
		var mu sync.Mutex
		jobs := make(chan int32)
		var wg sync.WaitGroup
		for k := 0; k < workers; k++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				w := newScratch()
				for n := range jobs {
					r := visitSubtree(t, n, nil, w, visit)
					mu.Lock()
					done[n] = r
					mu.Unlock()
				}
			}()
		}
		for _, n := range frontier {
			jobs <- n
		}
		close(jobs)
		wg.Wait()
	}
	return visitSubtree(t, 0, done, newScratch(), visit)
}

func visitSubtree[R any](t *hier.Tree, n int32, done map[int32]R, w *scratch, visit func(int32, []R, *scratch) R) R {
	if r, ok := done[n]; ok {
		return r
	}
	kids := make([]R, len(t.Children[n]))
	for i, c := range t.Children[n] {
		kids[i] = visitSubtree(t, c, done, w, visit)
	}
	return visit(n, kids, w)
}

func (s *Spatiotemporal) postOrder(visit func(n int32, kids []nodeStats, w *scratch) nodeStats) {
	postOrder(s.in.Tree, s.opt.Workers, s.newScratch, visit)
}

func (s *Spatiotemporal) newScratch() *scratch {
	return &scratch{acc: make([]float64, s.in.States)}
}

// quality of a candidate: its pIC value, gain and loss.
type quality struct{ v, g, l float64 }

// better reports whether a is strictly better than b: larger value, then
// larger gain, then smaller loss.
func (a quality) better(b quality) bool {
	if a.v != b.v {
		return a.v > b.v
	}
	if a.g != b.g {
		return a.g > b.g
	}
	return a.l < b.l
}

// table holds a quality for every interval of one node in three T x T
// arrays (value, gain, loss) so that the hot loop of the dynamic program
// streams through values only.
type table struct{ v, g, l []float64 }

func newTable(T int) table {
	return table{make([]float64, T*T), make([]float64, T*T), make([]float64, T*T)}
}

func (t table) at(k int) quality { return quality{t.v[k], t.g[k], t.l[k]} }

func (t table) set(k int, q quality) { t.v[k], t.g[k], t.l[k] = q.v, q.g, q.l }

func (t table) clear() {
	clear(t.v)
	clear(t.g)
	clear(t.l)
}

func (t table) add(o table) {
	addTo(t.v, o.v)
	addTo(t.g, o.g)
	addTo(t.l, o.l)
}

func addTo(dst, src []float64) {
	for i, x := range src {
		dst[i] += x
	}
}

// decisions records, for every node and interval, how the optimum was
// reached: split[node*tri+k] is true when the node is split into its
// children over interval k (else aggregated), and cut[node*tri+k] is 0
// when the interval is not cut in time, or c+1 when it is cut after
// slice c.
type decisions struct {
	split []bool
	cut   []uint16
}

// dpResult is what a node hands to its parent: its best quality for every
// interval (row i holds [i..j]) and, when qualities are not cached, its
// stats.
type dpResult struct {
	best  table
	stats nodeStats
}

// Solve returns the optimal partition for p in [0, 1].
func (s *Spatiotemporal) Solve(p float64) (*Partition, error) {
	if !(p >= 0 && p <= 1) {
		return nil, errs.Argument("p", "must be in [0, 1], got %v", p)
	}
	T := s.in.Slices
	nodes := s.in.Tree.Len()
	dec := decisions{split: make([]bool, nodes*s.tri), cut: make([]uint16, nodes*s.tri)}
	pool := sync.Pool{New: func() any { return newTable(T) }}
	postOrder(s.in.Tree, s.opt.Workers, s.newScratch, func(n int32, kids []dpResult, w *scratch) dpResult {
		base := int(n) * s.tri
		if len(kids) == 1 && s.cache != nil {
			return s.solveChain(p, n, kids[0], dec)
		}
		var kidStats []nodeStats
		var kidSum table
		if len(kids) > 0 {
			kidSum = pool.Get().(table)
			kidSum.clear()
			for _, k := range kids {
				kidSum.add(k.best)
				pool.Put(k.best)
				if k.stats.v != nil {
					kidStats = append(kidStats, k.stats)
				}
			}
		}
		// agg holds at [j*T+i] the best of "aggregate or split into
		// children" over [i..j] (transposed: the hot loop reads it by start).
		agg := pool.Get().(table)
		setAgg := func(i, j int, g, l float64) {
			g, l = g/s.gain0, l/s.loss0
			q := quality{p*g - (1-p)*l, g, l}
			if kidSum.v != nil {
				if k := kidSum.at(i*T + j); k.better(q) {
					q = k
					dec.split[base+triIndex(i, j)] = true
				}
			}
			agg.set(j*T+i, q)
		}
		var st nodeStats
		if s.cache != nil {
			for j := 0; j < T; j++ {
				for i := 0; i <= j; i++ {
					gl := s.cache[base+triIndex(i, j)]
					setAgg(i, j, gl[0], gl[1])
				}
			}
		} else {
			st = s.stats(n, kidStats, w)
			intervalQualities(st, T, s.in.States, s.in.Tree.NumLeaves(n), w.acc, setAgg)
		}
		if kidSum.v != nil {
			pool.Put(kidSum)
		}
		best := pool.Get().(table)
		bestIntervals(T, agg, best, dec.cut[base:base+s.tri])
		pool.Put(agg)
		return dpResult{best: best, stats: st}
	})
	return s.reconstruct(p, dec), nil
}

// solveChain handles a node with a single child, which covers the same
// cells: keeping the block whole at n or taking the child's best are the
// only choices, and a time cut at n cannot beat the child's own optimum
// (the child's best over [i..j] is at least the sum of its bests over
// any two halves). That turns the O(T^3) loop into O(T^2) for the chains
// that hierarchies such as host > process > thread are full of.
func (s *Spatiotemporal) solveChain(p float64, n int32, kid dpResult, dec decisions) dpResult {
	T := s.in.Slices
	base := int(n) * s.tri
	best := kid.best
	for j := 0; j < T; j++ {
		for i := 0; i <= j; i++ {
			k := triIndex(i, j)
			gl := s.cache[base+k]
			g, l := gl[0]/s.gain0, gl[1]/s.loss0
			q := quality{p*g - (1-p)*l, g, l}
			if best.at(i*T + j).better(q) {
				dec.split[base+k] = true
			} else {
				best.set(i*T+j, q)
			}
		}
	}
	return dpResult{best: best}
}

// bestIntervals fills best (row i holds [i..j]) with the optimum over
// every interval of one node, given agg (transposed), and records the
// time cut chosen for each interval in cut (triangular index).
//
//	best(i,j) = max( agg(i,j), max over cut of best(i,cut) + agg(cut+1,j) )
//
// The loop compares values only; gains and losses are looked at on exact
// ties, and composed once the winning cut is known.
func bestIntervals(T int, agg, best table, cut []uint16) {
	for j := 0; j < T; j++ {
		av, ag, al := agg.v[j*T:(j+1)*T], agg.g[j*T:(j+1)*T], agg.l[j*T:(j+1)*T]
		for i := j; i >= 0; i-- {
			bv, bg, bl := best.v[i*T:(i+1)*T], best.g[i*T:(i+1)*T], best.l[i*T:(i+1)*T]
			qv, c := av[i], 0
			// Candidates cut after k in [i, j): best(i,k) + agg(k+1,j).
			heads, tails := bv[i:j], av[i+1:j+1]
			tails = tails[:len(heads)] // lets the compiler drop bounds checks
			for m, h := range heads {
				x := h + tails[m]
				if x < qv {
					continue
				}
				k := i + m
				if x > qv {
					qv, c = x, k+1
					continue
				}
				// Exact tie in value: larger gain, then smaller loss wins;
				// an equal candidate does not replace the earlier one.
				cg, cl := bg[k]+ag[k+1], bl[k]+al[k+1]
				qg, ql := ag[i], al[i]
				if c > 0 {
					qg, ql = bg[c-1]+ag[c], bl[c-1]+al[c]
				}
				if cg > qg || (cg == qg && cl < ql) {
					c = k + 1
				}
			}
			if c == 0 {
				bv[j], bg[j], bl[j] = av[i], ag[i], al[i]
			} else {
				bv[j], bg[j], bl[j] = qv, bg[c-1]+ag[c], bl[c-1]+al[c]
			}
			cut[triIndex(i, j)] = uint16(c)
		}
	}
}

// reconstruct walks the decisions from the root over the whole time range.
func (s *Spatiotemporal) reconstruct(p float64, dec decisions) *Partition {
	t := s.in.Tree
	part := &Partition{P: p}
	type block struct {
		n      int32
		i, j   int
		wholeN bool // true: decide between aggregate/split only (no time cut)
	}
	stack := []block{{0, 0, s.in.Slices - 1, false}}
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		k := int(b.n)*s.tri + triIndex(b.i, b.j)
		if !b.wholeN {
			if c := int(dec.cut[k]); c > 0 {
				stack = append(stack, block{b.n, b.i, c - 1, false}, block{b.n, c, b.j, true})
				continue
			}
		}
		if dec.split[k] {
			for _, c := range t.Children[b.n] {
				stack = append(stack, block{c, b.i, b.j, false})
			}
			continue
		}
		part.Parts = append(part.Parts, Part{Node: b.n, First: int32(b.i), Last: int32(b.j)})
	}
	sort.Slice(part.Parts, func(a, b int) bool {
		x, y := part.Parts[a], part.Parts[b]
		if x.Node != y.Node {
			return x.Node < y.Node
		}
		return x.First < y.First
	})
	for i := range part.Parts {
		pt := &part.Parts[i]
		pt.Gain, pt.Loss = s.PartQuality(pt.Node, int(pt.First), int(pt.Last))
		part.Gain += pt.Gain
		part.Loss += pt.Loss
		part.Value += p*pt.Gain - (1-p)*pt.Loss
	}
	return part
}

// Scale returns the gain and loss of aggregating the whole model into one
// part, in the units of this engine's results (1, 1 when normalised).
func (s *Spatiotemporal) Scale() (gain0, loss0 float64) {
	if s.opt.Normalize {
		return 1, 1
	}
	return rootQuality(s.in)
}

// PartQuality returns the (normalised, if so configured) gain and loss of
// aggregating node n over slices i..j.
func (s *Spatiotemporal) PartQuality(n int32, i, j int) (gain, loss float64) {
	if s.cache != nil {
		gl := s.cache[int(n)*s.tri+triIndex(i, j)]
		return gl[0] / s.gain0, gl[1] / s.loss0
	}
	g, l := blockQuality(s.in, n, i, j)
	return g / s.gain0, l / s.loss0
}

// blockQuality computes gain and loss of one block directly from the cells.
func blockQuality(in Input, n int32, i, j int) (gain, loss float64) {
	t := in.Tree
	acc := make([]float64, in.States)
	ent := 0.0
	for leaf := t.LeafLo[n]; leaf < t.LeafHi[n]; leaf++ {
		for sl := i; sl <= j; sl++ {
			row := in.Values[(int(leaf)*in.Slices+sl)*in.States:][:in.States]
			for x, v := range row {
				acc[x] += v
				ent += xlog2x(v)
			}
		}
	}
	total, xl := 0.0, 0.0
	for _, v := range acc {
		total += v
		xl += xlog2x(v)
	}
	return gainLoss(xl, ent, total, t.NumLeaves(n)*(j-i+1))
}
