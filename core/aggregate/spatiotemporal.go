package aggregate

import (
	"sync"
	"sync/atomic"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// Part is one aggregate of a partition: node Node of the hierarchy over
// slices First..Last (inclusive), with its gain and loss in the units of
// the engine that found it.
type Part struct {
	Node        int32
	First, Last int32
	Gain, Loss  float64
}

// Partition is an optimal partition for one value of p.
type Partition struct {
	P     float64
	Parts []Part // sorted by node (preorder), then time; nil when dropped (SignificantCompact)
	// NumParts is the number of aggregates, len(Parts) unless they were
	// dropped.
	NumParts   int
	Gain, Loss float64
	Value      float64 // pIC = sum over parts of p*gain - (1-p)*loss

	// kept is what a sweep reuses of this solution while it searches
	// nearby values of p (nil once released).
	kept *keptSolution
}

// Spatiotemporal finds optimal partitions of (hierarchy x ordered time) by
// the dynamic program of Dosimont et al. 2014 (Algorithm 1), in its exact form: at every
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
	in       Input
	opt      Options
	u        units
	tri      int // intervals per node
	width    int // bytes per cut decision
	internal int // nodes with children
	// cache holds the gain and loss (engine units) of aggregating every
	// (node, interval), or is nil.
	cache []line
	// kept counts the bytes of solutions kept for reuse (see sweep.go).
	kept atomic.Int64
	// tables recycles the T x T tables of the dynamic program across nodes
	// and solves.
	tables sync.Pool
}

// NewSpatiotemporal prepares the aggregation of in.
func NewSpatiotemporal(in Input, opt Options) (*Spatiotemporal, error) {
	if err := in.validate(); err != nil {
		return nil, err
	}
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	T := in.Slices
	s := &Spatiotemporal{in: in, opt: opt, tri: T * (T + 1) / 2, width: cutWidth(T)}
	s.tables.New = func() any { return newTable(T) }
	s.u = units{gain: opt.Gain, gain0: 1, loss0: 1}
	if opt.Normalize {
		g, l := rootQuality(in, opt.Workers)
		s.u = s.u.normalised(s.u.of(g, l, len(in.Values)/in.States))
	}
	for n := 0; n < in.Tree.Len(); n++ {
		if !in.Tree.IsLeaf(int32(n)) {
			s.internal++
		}
	}
	if need := int64(in.Tree.Len()) * int64(s.tri) * 16; opt.CacheBytes > 0 && need <= opt.CacheBytes {
		s.cache = make([]line, int64(in.Tree.Len())*int64(s.tri))
		s.fillCache()
	}
	return s, nil
}

// Kind implements Engine.
func (s *Spatiotemporal) Kind() Kind { return KindSpatiotemporal }

// triIndex numbers the intervals [i..j], 0 <= i <= j < n, of one node.
func triIndex(i, j int) int { return j*(j+1)/2 + i }

func (s *Spatiotemporal) fillCache() {
	postOrder(s.in.Tree, s.opt.Workers, nil, s.newScratch, func(n int32, kids []nodeStats, w *scratch) nodeStats {
		st := s.stats(n, kids)
		base := int(n) * s.tri
		leaves := s.in.Tree.NumLeaves(n)
		intervalQualities(st, s.in.Slices, s.in.States, leaves, w.acc, func(i, j int, g, l float64) {
			s.cache[base+triIndex(i, j)] = s.u.of(g, l, leaves*(j-i+1))
		})
		return st
	})
}

// stats returns the stats of node n given its children's.
func (s *Spatiotemporal) stats(n int32, kids []nodeStats) nodeStats {
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

func (s *Spatiotemporal) newScratch() *scratch {
	return &scratch{acc: make([]float64, s.in.States), frozen: make([]bool, s.tri), lines: make([]line, s.tri)}
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

func (q line) quality(p float64) quality { return quality{q.at(p), q.g, q.l} }

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

// nodeResult is what a node hands to its parent: its best quality for
// every interval, either as a table of values at p (row i holds [i..j])
// or, for a node whose solution is reused unchanged, as its best lines
// (triangular index) to evaluate at p; and, when qualities are not
// cached, its stats.
type nodeResult struct {
	best  table
	lines []line
	stats nodeStats
}

// run is one solve: the decisions it takes and, when the solution is kept
// for reuse, the best line of every (node, interval).
type run struct {
	s     *Spatiotemporal
	p     float64
	dec   []nodeDecisions
	lines [][]line     // nil when the solution is not kept
	br    *bracket     // solutions to reuse, or nil
	pool  *sync.Pool   // of tables
	fresh atomic.Int64 // bytes allocated for this solution's own blocks
}

// Solve returns the optimal partition for p in [0, 1].
func (s *Spatiotemporal) Solve(p float64) (*Partition, error) {
	if !(p >= 0 && p <= 1) {
		return nil, errs.Argument("p", "must be in [0, 1], got %v", p)
	}
	return s.solve(p, nil, false, false, s.opt.Workers), nil
}

// solve runs the dynamic program for p, reusing br when not nil, and
// keeps the solution for reuse when keep is set. A compact solution has
// its measures but not its parts (see SignificantCompact).
func (s *Spatiotemporal) solve(p float64, br *bracket, keep, compact bool, workers int) *Partition {
	nodes := s.in.Tree.Len()
	r := &run{s: s, p: p, br: br, pool: &s.tables}
	if br != nil {
		// Start from a's blocks: nodes whose solution does not change
		// keep them, the others get fresh ones.
		r.dec = append([]nodeDecisions(nil), br.a.kept.dec...)
		if keep {
			r.lines = append([][]line(nil), br.a.kept.lines...)
		}
	} else {
		r.dec = make([]nodeDecisions, nodes)
		arena := newDecisionArena(s.tri, s.width, nodes, s.internal)
		for n := range r.dec {
			r.dec[n] = arena.block(s.in.Tree.IsLeaf(int32(n)))
		}
		if keep {
			r.lines = make([][]line, nodes)
			flat := make([]line, nodes*s.tri)
			for n := range r.lines {
				r.lines[n] = flat[n*s.tri : (n+1)*s.tri : (n+1)*s.tri]
			}
			r.fresh.Store(s.fullStateBytes())
		}
	}
	var skip func(int32) (nodeResult, bool)
	if br != nil {
		skip = r.skip
	}
	root := postOrder(s.in.Tree, workers, skip, s.newScratch, r.visit)
	if root.best.v != nil {
		r.pool.Put(root.best)
	}
	var part *Partition
	if compact {
		part = s.measure(p, r.dec)
	} else {
		part = s.reconstruct(p, r.dec)
	}
	if keep {
		part.kept = &keptSolution{lines: r.lines, dec: r.dec, bytes: r.fresh.Load()}
	}
	return part
}

// visit solves node n given its children's results.
func (r *run) visit(n int32, kids []nodeResult, w *scratch) nodeResult {
	s, p, T := r.s, r.p, r.s.in.Slices
	leaf := s.in.Tree.IsLeaf(n)
	d := r.dec[n]
	if r.br != nil { // fresh blocks: a's stay with a
		d = nodeDecisions{cut: make([]byte, s.tri*s.width)}
		if !leaf {
			d.split = make([]uint64, splitWords(s.tri))
		}
		r.dec[n] = d
		r.fresh.Add(decisionBytes(s.tri, s.width, leaf))
	}
	var kidSum table
	var kidStats []nodeStats
	if len(kids) > 0 {
		kidSum = r.pool.Get().(table)
		r.sumKids(kidSum, kids, w)
		for _, k := range kids {
			if k.stats.v != nil {
				kidStats = append(kidStats, k.stats)
			}
		}
	}
	base := int(n) * s.tri
	if len(kids) == 1 && s.cache != nil {
		return r.finish(n, r.solveChain(n, kidSum, d), nodeStats{})
	}
	// agg holds at [j*T+i] the best of "aggregate or split into children"
	// over [i..j] (transposed: the hot loop reads it by start).
	agg := r.pool.Get().(table)
	leaves := s.in.Tree.NumLeaves(n)
	setAgg := func(i, j int, q quality) {
		if !leaf {
			if k := kidSum.at(i*T + j); k.better(q) {
				q = k
				d.setSplit(triIndex(i, j))
			}
		}
		agg.set(j*T+i, q)
	}
	var st nodeStats
	if s.cache != nil {
		for j := 0; j < T; j++ {
			for i := 0; i <= j; i++ {
				setAgg(i, j, s.cache[base+triIndex(i, j)].quality(p))
			}
		}
	} else {
		st = s.stats(n, kidStats)
		intervalQualities(st, T, s.in.States, leaves, w.acc, func(i, j int, g, l float64) {
			setAgg(i, j, s.u.of(g, l, leaves*(j-i+1)).quality(p))
		})
	}
	if !leaf {
		r.pool.Put(kidSum)
	}
	best := r.pool.Get().(table)
	bestIntervals(T, agg, best, d, s.width, r.frozenCells(n, w))
	r.pool.Put(agg)
	return r.finish(n, best, st)
}

// sumKids sets sum to the sum of the children's best qualities. Children
// solved at p hand over tables of values; the lines of children whose
// solution is reused are added up first and evaluated at p once per
// interval.
func (r *run) sumKids(sum table, kids []nodeResult, w *scratch) {
	sum.clear()
	var reused []line
	for _, k := range kids {
		if k.best.v != nil {
			sum.add(k.best)
			r.pool.Put(k.best)
			continue
		}
		if reused == nil {
			reused = w.lines
			clear(reused)
		}
		for x, ln := range k.lines {
			reused[x].g += ln.g
			reused[x].l += ln.l
		}
	}
	if reused == nil {
		return
	}
	T := r.s.in.Slices
	for j := 0; j < T; j++ {
		for i := 0; i <= j; i++ {
			ln := reused[triIndex(i, j)]
			x := i*T + j
			sum.v[x] += ln.at(r.p)
			sum.g[x] += ln.g
			sum.l[x] += ln.l
		}
	}
}

// solveChain handles a node with a single child, which covers the same
// cells: keeping the block whole at n or taking the child's best are the
// only choices, and a time cut at n cannot beat the child's own optimum
// (the child's best over [i..j] is at least the sum of its bests over
// any two halves). That turns the O(T^3) loop into O(T^2) for the chains
// that hierarchies such as host > process > thread are full of.
func (r *run) solveChain(n int32, best table, d nodeDecisions) table {
	s, T := r.s, r.s.in.Slices
	base := int(n) * s.tri
	for j := 0; j < T; j++ {
		for i := 0; i <= j; i++ {
			k := triIndex(i, j)
			q := s.cache[base+k].quality(r.p)
			if best.at(i*T + j).better(q) {
				d.setSplit(k)
			} else {
				best.set(i*T+j, q)
			}
		}
	}
	return best
}

// finish records n's best lines when the solution is kept.
func (r *run) finish(n int32, best table, st nodeStats) nodeResult {
	if r.lines != nil {
		T := r.s.in.Slices
		ls := r.lines[n]
		if r.br != nil {
			ls = make([]line, r.s.tri)
			r.lines[n] = ls
			r.fresh.Add(int64(r.s.tri) * 16)
		}
		for j := 0; j < T; j++ {
			for i := 0; i <= j; i++ {
				ls[triIndex(i, j)] = line{best.g[i*T+j], best.l[i*T+j]}
			}
		}
	}
	return nodeResult{best: best, stats: st}
}

// bestIntervals fills best (row i holds [i..j]) with the optimum over
// every interval of one node, given agg (transposed), and records the
// time cut chosen for each interval in d.
//
//	best(i,j) = max( agg(i,j), max over cut of best(i,cut) + agg(cut+1,j) )
//
// The loop compares values only; gains and losses are looked at on exact
// ties, and composed once the winning cut is known. Intervals fr marks
// as unchanged take their known optimum without searching.
func bestIntervals(T int, agg, best table, d nodeDecisions, width int, fr *frozenCells) {
	for j := 0; j < T; j++ {
		av, ag, al := agg.v[j*T:(j+1)*T], agg.g[j*T:(j+1)*T], agg.l[j*T:(j+1)*T]
		for i := j; i >= 0; i-- {
			bv, bg, bl := best.v[i*T:(i+1)*T], best.g[i*T:(i+1)*T], best.l[i*T:(i+1)*T]
			k := triIndex(i, j)
			if fr != nil && fr.mask[k] {
				ln := fr.lines[k]
				bv[j], bg[j], bl[j] = ln.at(fr.p), ln.g, ln.l
				d.setCut(k, width, fr.dec.cutAt(k, width))
				continue
			}
			qv, c := av[i], 0
			// Candidates cut after m in [i, j): best(i,m) + agg(m+1,j).
			heads, tails := bv[i:j], av[i+1:j+1]
			tails = tails[:len(heads)] // lets the compiler drop bounds checks
			for m, h := range heads {
				x := h + tails[m]
				if x < qv {
					continue
				}
				cut := i + m
				if x > qv {
					qv, c = x, cut+1
					continue
				}
				// Exact tie in value: larger gain, then smaller loss wins;
				// an equal candidate does not replace the earlier one.
				cg, cl := bg[cut]+ag[cut+1], bl[cut]+al[cut+1]
				qg, ql := ag[i], al[i]
				if c > 0 {
					qg, ql = bg[c-1]+ag[c], bl[c-1]+al[c]
				}
				if cg > qg || (cg == qg && cl < ql) {
					c = cut + 1
				}
			}
			if c == 0 {
				bv[j], bg[j], bl[j] = av[i], ag[i], al[i]
			} else {
				bv[j], bg[j], bl[j] = qv, bg[c-1]+ag[c], bl[c-1]+al[c]
			}
			if c != 0 {
				d.setCut(k, width, c)
			}
		}
	}
}

// reconstruct walks the decisions from the root over the whole time range:
// once to count the parts, once to list them (partitions of large models
// have tens of millions of parts; growing the list would copy it over and
// over).
func (s *Spatiotemporal) reconstruct(p float64, dec []nodeDecisions) *Partition {
	count := 0
	s.walkDecisions(dec, func(int32, int, int) { count++ })
	part := &Partition{P: p, Parts: make([]Part, 0, count)}
	s.walkDecisions(dec, func(n int32, i, j int) {
		part.Parts = append(part.Parts, Part{Node: n, First: int32(i), Last: int32(j)})
	})
	finishPartition(part, s, s.opt.Workers)
	return part
}

// measure returns the partition the decisions lead to without listing its
// parts: only its measures, added in the order of the parts (so that they
// are the same as the full partition's).
func (s *Spatiotemporal) measure(p float64, dec []nodeDecisions) *Partition {
	part := &Partition{P: p}
	s.walkDecisions(dec, func(n int32, i, j int) {
		g, l := s.PartQuality(n, i, j)
		part.NumParts++
		part.Gain += g
		part.Loss += l
		part.Value += p*g - (1-p)*l
	})
	return part
}

// walkDecisions calls emit for every aggregate the decisions lead to, by
// node in preorder, then by time (the order of Partition.Parts).
//
// Nodes are visited in preorder with the blocks of time their parent
// hands them (the whole range for the root), in time order. A node cuts
// each block in time where its decisions say so; each piece is then either
// an aggregate or handed to every child.
func (s *Spatiotemporal) walkDecisions(dec []nodeDecisions, emit func(n int32, i, j int)) {
	t := s.in.Tree
	nodes := t.Len()
	type block struct {
		i, j int32
		next int32 // next block of the same node, -1 at the end
	}
	blocks := []block{{0, int32(s.in.Slices - 1), -1}}
	head := make([]int32, nodes)
	tail := make([]int32, nodes)
	for n := range head {
		head[n], tail[n] = -1, -1
	}
	head[0], tail[0] = 0, 0
	var pieces [][2]int
	for n := int32(0); n < int32(nodes); n++ {
		d := dec[n]
		for b := head[n]; b >= 0; b = blocks[b].next {
			// The pieces of [i..j], last first: best(i,j) is best(i,c-1)
			// then the piece [c..j].
			pieces = pieces[:0]
			i, j := int(blocks[b].i), int(blocks[b].j)
			for {
				c := d.cutAt(triIndex(i, j), s.width)
				if c == 0 {
					pieces = append(pieces, [2]int{i, j})
					break
				}
				pieces = append(pieces, [2]int{c, j})
				j = c - 1
			}
			for k := len(pieces) - 1; k >= 0; k-- {
				pi, pj := pieces[k][0], pieces[k][1]
				if !d.splitAt(triIndex(pi, pj)) {
					emit(n, pi, pj)
					continue
				}
				for _, c := range t.Children[n] {
					blocks = append(blocks, block{int32(pi), int32(pj), -1})
					nb := int32(len(blocks) - 1)
					if tail[c] < 0 {
						head[c] = nb
					} else {
						blocks[tail[c]].next = nb
					}
					tail[c] = nb
				}
			}
		}
	}
}

// finishPartition fills in the measures of the parts, which the engines
// list by node then time, and the partition's totals. Partitions of large
// models have tens of millions of parts: they are measured in parallel,
// and added in order.
func finishPartition(part *Partition, e Engine, workers int) {
	parts := part.Parts
	chunk := max(1, (len(parts)+workers-1)/workers)
	var wg sync.WaitGroup
	for lo := 0; lo < len(parts); lo += chunk {
		hi := min(lo+chunk, len(parts))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				pt := &parts[i]
				pt.Gain, pt.Loss = e.PartQuality(pt.Node, int(pt.First), int(pt.Last))
			}
		}()
	}
	wg.Wait()
	part.NumParts = len(parts)
	p := part.P
	for _, pt := range parts {
		part.Gain += pt.Gain
		part.Loss += pt.Loss
		part.Value += p*pt.Gain - (1-p)*pt.Loss
	}
}

// Scale returns the gain and loss of aggregating the whole model into one
// part, in the units of this engine's results (1, 1 when normalised).
func (s *Spatiotemporal) Scale() (gain0, loss0 float64) {
	g, l := rootQuality(s.in, s.opt.Workers)
	q := s.u.of(g, l, len(s.in.Values)/s.in.States)
	return q.g, q.l
}

// PartQuality returns the gain and loss, in this engine's units, of
// aggregating node n over slices i..j.
func (s *Spatiotemporal) PartQuality(n int32, i, j int) (gain, loss float64) {
	if s.cache != nil {
		q := s.cache[int(n)*s.tri+triIndex(i, j)]
		return q.g, q.l
	}
	g, l := blockQuality(s.in, n, i, j)
	q := s.u.of(g, l, s.in.Tree.NumLeaves(n)*(j-i+1))
	return q.g, q.l
}
