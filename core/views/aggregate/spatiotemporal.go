package aggregate

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/macroscope-hpc/macroscope/core/budget"
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
	// runs cover the upper triangle of a table (triRuns).
	runs []span
	// cache holds the gain and loss (engine units) of aggregating every
	// (node, interval), or is nil.
	cache []line
	// some holds them for the nodes the cache has room for when it cannot
	// hold them all, once a search is to solve several times (see
	// partial.go), or is nil.
	some     atomic.Pointer[someLines]
	someOnce sync.Once
	// kept counts the bytes of solutions kept for reuse (see sweep.go).
	kept atomic.Int64
	// tables recycles the T x T tables of the dynamic program across nodes
	// and solves, scratches the workers' memory across solves.
	tables, scratches sync.Pool
}

// NewSpatiotemporal prepares the aggregation of in.
func NewSpatiotemporal(in Input, opt Options) (*Spatiotemporal, error) {
	opt, err := prepare(KindSpatiotemporal, in, opt)
	if err == nil && opt.Entities != EntitiesCells {
		err = errs.Argument("entities", "only the spatial kind measures resources summed over the window")
	}
	if err != nil {
		return nil, err
	}
	T := in.Slices
	s := &Spatiotemporal{in: in, opt: opt, tri: T * (T + 1) / 2, width: cutWidth(T), runs: triRuns(T)}
	s.tables.New = func() any { t := newTable(T); return &t }
	s.scratches.New = func() any { return s.newScratch() }
	for n := 0; n < in.Tree.Len(); n++ {
		if !in.Tree.IsLeaf(int32(n)) {
			s.internal++
		}
	}
	if err := budget.Check("slices", fmt.Sprintf("the spatiotemporal aggregation of %d nodes x %d slices", in.Tree.Len(), T),
		s.solveBytes(), opt.MemoryBudget, "use fewer slices (the memory grows with their square), or the spatial or temporal kind"); err != nil {
		return nil, err
	}
	s.u = units{gain: opt.Gain, gain0: 1, loss0: 1}
	if opt.Normalize {
		g, l := rootQuality(in, opt.Workers)
		s.u = s.u.normalised(s.u.of(g, l, len(in.Tree.Leaves)*in.Slices))
	}
	if need := int64(in.Tree.Len()) * int64(s.tri) * 16; opt.CacheBytes > 0 && need <= opt.CacheBytes {
		// A node's lines may be read in whole vectors, past their end
		// (see aggregateCached).
		s.cache = make([]line, int64(in.Tree.Len())*int64(s.tri), int64(in.Tree.Len())*int64(s.tri)+4)
		s.fillCache()
	}
	return s, nil
}

// Kind implements Engine.
func (s *Spatiotemporal) Kind() Kind { return KindSpatiotemporal }

// solveBytes estimates the memory of a solve, the cache left out (it is
// bounded by CacheBytes): the decisions of every node over every interval
// (newDecisionArena), and per worker its scratch (newScratch) and its
// table of T x T costs, three float64 arrays (newTable).
func (s *Spatiotemporal) solveBytes() int64 {
	T, tri := int64(s.in.Slices), int64(s.tri)
	decisions := int64(s.in.Tree.Len())*tri*int64(s.width) + int64(s.internal)*int64(splitWords(s.tri))*8
	perWorker := tri*17 + 3*T*T*8 + T*int64(s.in.States)*8
	if s.in.isSparse() { // no dense cells; a row per state (sparseScratch.pos)
		perWorker = tri*17 + 3*T*T*8 + int64(s.in.States)*4
	}
	return decisions + int64(s.opt.Workers)*perWorker
}

// triIndex numbers the intervals [i..j], 0 <= i <= j < n, of one node.
func triIndex(i, j int) int { return j*(j+1)/2 + i }

func (s *Spatiotemporal) fillCache() {
	postOrder(s.in.Tree, s.opt.Workers, nil, &s.scratches, func(n int32, kids []nodeStats, w *scratch) nodeStats {
		st := s.stats(n, kids, w)
		for _, k := range kids {
			w.recycle(k)
		}
		T := s.in.Slices
		leaves := s.in.Tree.NumLeaves(n)
		raw := intervalQualities(st, T, s.in.States, logSizes(w.logSize, T, leaves), &w.iq)
		s.toUnits(s.cache[int(n)*s.tri:][:s.tri], raw, leaves)
		return st
	}, nil)
}

// stats returns the stats of node n given its children's.
// Its buffers come from w (see scratch.recycle).
func (s *Spatiotemporal) stats(n int32, kids []nodeStats, w *scratch) nodeStats {
	t := s.in.Tree
	if t.IsLeaf(n) {
		return leafStats(s.in, int(t.LeafLo[n]), w.buffer(&w.freeEnt, s.in.Slices), w.cells, &w.iq.sp)
	}
	if s.in.isSparse() {
		return statsSparse(s.in.States, s.in.Slices, kids, w.buffer(&w.freeEnt, s.in.Slices), &w.iq.sp)
	}
	st := nodeStats{
		v:    w.buffer(&w.freeV, s.in.Slices*s.in.States),
		ent:  w.buffer(&w.freeEnt, s.in.Slices),
		ownV: true,
	}
	clear(st.v)
	clear(st.ent)
	for _, k := range kids {
		st.add(k)
	}
	return st
}

func (s *Spatiotemporal) newScratch() *scratch {
	w := &scratch{
		frozen: make([]bool, s.tri), lines: make([]line, s.tri), logSize: make([]float64, s.in.Slices+1),
		pos: make([]int, s.in.Slices),
		iq:  newIntervalScratch(s.in.Slices, s.in.States),
	}
	if !s.in.isSparse() {
		w.cells = make([]float64, s.in.Slices*s.in.States)
	}
	return w
}

// toUnits sets dst (triangular index) to the raw qualities raw of a node
// with leaves leaves, in the engine's units.
func (s *Spatiotemporal) toUnits(dst, raw []line, leaves int) {
	T := s.in.Slices
	for j := 0; j < T; j++ {
		for i := 0; i <= j; i++ {
			k := triIndex(i, j)
			dst[k] = s.u.of(raw[k].g, raw[k].l, leaves*(j-i+1))
		}
	}
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
// streams through values only. Interval [i..j] is at j*T+i: a column, the
// intervals ending at j, is contiguous (see columnSearch).
type table struct{ v, g, l []float64 }

func newTable(T int) table {
	// Columns may be read and written in whole vectors, past their end
	// (see columnSearch, aggregateRaw).
	return table{make([]float64, T*T, T*T+tablePad), make([]float64, T*T, T*T+tablePad), make([]float64, T*T, T*T+tablePad)}
}

// tablePad is the number of values a table's arrays hold after their T*T.
const tablePad = 4

func (t table) at(k int) quality { return quality{t.v[k], t.g[k], t.l[k]} }

func (t table) set(k int, q quality) { t.v[k], t.g[k], t.l[k] = q.v, q.g, q.l }

func (t table) clear() {
	clear(t.v)
	clear(t.g)
	clear(t.l)
}

// triRuns returns the runs of a T x T table, [lo, hi) in its arrays, that
// cover its upper triangle (column j's rows 0..j at j*T), for the sums of
// whole triangles: each column's rows rounded up to a multiple of 16 (the
// values sumTo adds per instruction), at most T, and runs that meet
// merged into one. The rows past j a run takes in are never read (stale
// values from the pool are there anyway); leaving out the rest of the
// lower triangle halves the memory a sum goes through.
func triRuns(T int) []span {
	var runs []span
	for j := 0; j < T; j++ {
		lo, hi := j*T, j*T+min((j+1+15)&^15, T)
		if k := len(runs) - 1; k >= 0 && int(runs[k].j) == lo {
			runs[k].j = int32(hi)
			continue
		}
		runs = append(runs, span{int32(lo), int32(hi)})
	}
	return runs
}

// addTri adds the upper triangle of o to that of t, in the runs of
// triRuns(T).
func (t table) addTri(o table, runs []span) {
	for _, r := range runs {
		addTo(t.v[r.i:r.j], o.v[r.i:r.j])
		addTo(t.g[r.i:r.j], o.g[r.i:r.j])
		addTo(t.l[r.i:r.j], o.l[r.i:r.j])
	}
}

// nodeResult is what a node hands to its parent: its best quality for
// every interval, either as a table of values at p (by column, see table;
// the parent hands it back to the pool) or, for a node whose solution is
// reused unchanged, as its best lines (triangular index) to evaluate at
// p; and, when qualities are not cached, its stats.
type nodeResult struct {
	best  *table
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
	pool  *sync.Pool   // of *table
	fresh atomic.Int64 // bytes allocated for this solution's own blocks
	ctl   *Control     // checked at every node, or nil
	// visited counts the nodes solved, for the progress of a long solve.
	visited atomic.Int64
	// some are the kept qualities of some nodes the run reads, or fills
	// if fillSome (see partial.go), or nil.
	some     *someLines
	fillSome bool
	// nan is set once a node met NaN candidates (see bestIntervals): the
	// nodes solved after it, its ancestors among them, search with the
	// general rule at p = 0 too.
	nan atomic.Bool
}

// Solve returns the optimal partition for p in [0, 1].
func (s *Spatiotemporal) Solve(p float64) (*Partition, error) {
	if !(p >= 0 && p <= 1) {
		return nil, errs.Argument("p", "must be in [0, 1], got %v", p)
	}
	return s.SolveControl(p, nil)
}

// SolveControl is Solve, stopped through ctl.Cancel (nil for never): the
// solve of a million-leaf model takes seconds, and a notebook user must be
// able to interrupt it. The cancel flag is checked at every node and
// between the subtrees whose parts are listed; a canceled solve returns
// ErrCanceled. ctl.Progress, if set, is called about ten times a second
// with the part of the nodes solved (solves 0); a cancel from one of its
// calls is always honoured, even from the last, as the parts are listed.
func (s *Spatiotemporal) SolveControl(p float64, ctl *Control) (*Partition, error) {
	if !(p >= 0 && p <= 1) {
		return nil, errs.Argument("p", "must be in [0, 1], got %v", p)
	}
	if ctl.canceled() {
		return nil, ErrCanceled
	}
	if s.opt.finestAt(p) {
		return s.finest(), nil
	}
	return s.solve(p, nil, false, false, s.opt.Workers, ctl)
}

// finest returns every resource over every slice (see TieRule).
func (s *Spatiotemporal) finest() *Partition {
	return finestPartition(s, s.in, 0, s.in.Slices-1, false, true, s.opt.Workers)
}

// solve runs the dynamic program for p, reusing br when not nil, and
// keeps the solution for reuse when keep is set. A compact solution has
// its measures but not its parts (see SignificantCompact).
func (s *Spatiotemporal) solve(p float64, br *bracket, keep, compact bool, workers int, ctl *Control) (*Partition, error) {
	nodes := s.in.Tree.Len()
	r := &run{s: s, p: p, br: br, pool: &s.tables, ctl: ctl}
	var arena *decisionArena // the decisions of a solve that reuses none
	stopProgress := func() {}
	if ctl != nil && ctl.Progress != nil && br == nil {
		stopProgress = r.reportProgress(nodes)
		defer stopProgress()
	}
	if br != nil {
		// Start from a's blocks: nodes whose solution does not change
		// keep them, the others get fresh ones.
		r.dec = append([]nodeDecisions(nil), br.a.kept.dec...)
		if keep {
			r.lines = append([][]line(nil), br.a.kept.lines...)
		}
	} else {
		r.dec = make([]nodeDecisions, nodes)
		if keep {
			arena = newDecisionArena(s.tri, s.width, nodes, s.internal)
		} else { // the decisions go with this solve
			arena = newOffHeapArena(s.tri, s.width, nodes, s.internal)
			defer arena.free()
		}
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
	r.some, r.fillSome = s.takeSome()
	root := postOrder(s.in.Tree, workers, skip, &s.scratches, r.visit, r.fold)
	if root.best != nil {
		r.pool.Put(root.best)
	}
	if r.fillSome {
		doneSome(r.some, !ctl.canceled())
	}
	if ctl.canceled() {
		return nil, ErrCanceled
	}
	var part *Partition
	if compact {
		part = s.measure(p, r.dec, workers)
	} else {
		var done *decisionArena // subtrees whose decisions may be dropped once listed
		if !keep {
			done = arena
		}
		parts, err := s.listParts(r.dec, s.opt.Workers, ctl, done)
		if err != nil {
			return nil, err
		}
		part = &Partition{P: p, Parts: parts}
		addUpParts(part)
	}
	// A cancel from the last progress report may come after the listing's
	// last look at the flag: the reports stop first, so that a cancel from
	// any of them is honoured.
	stopProgress()
	if ctl.canceled() {
		return nil, ErrCanceled
	}
	if keep {
		part.kept = &keptSolution{lines: r.lines, dec: r.dec, bytes: r.fresh.Load()}
	}
	return part, nil
}

// reportProgress calls the run's Progress about ten times a second with
// the part of the nodes solved, until the returned stop is called.
func (r *run) reportProgress(nodes int) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				r.ctl.Progress(0, float64(r.visited.Load())/float64(nodes))
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done); <-finished }) }
}

// visit solves node n given its children's results.
func (r *run) visit(n int32, kids []nodeResult, w *scratch) nodeResult {
	if r.ctl != nil {
		if r.ctl.Progress != nil {
			r.visited.Add(1)
		}
		if r.ctl.canceled() { // unwind: hand the tables back, solve nothing
			for _, k := range kids {
				if k.best != nil {
					r.pool.Put(k.best)
				}
				w.recycle(k.stats)
			}
			return nodeResult{best: r.pool.Get().(*table)}
		}
	}
	s, T := r.s, r.s.in.Slices
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
	var kidSum *table
	var kidStats []nodeStats
	if len(kids) > 0 {
		kidSum = r.sumKids(kids, w)
		kidStats = w.kidStats[:0]
		for _, k := range kids {
			if k.stats.held() {
				kidStats = append(kidStats, k.stats)
			}
		}
		w.kidStats = kidStats[:0]
	}
	base := int(n) * s.tri
	if len(kids) == 1 && s.cache != nil {
		return r.finish(n, r.solveChain(n, kidSum, d), nodeStats{})
	}
	// agg holds the best of "aggregate or split into children" over every
	// interval.
	agg := r.pool.Get().(*table)
	var kidBest table
	if kidSum != nil {
		kidBest = *kidSum
	}
	var st nodeStats
	if s.cache != nil {
		r.aggregateCached(*agg, kidBest, s.cache[base:base+s.tri], d, leaf)
	} else if q, kst, ok := s.keptOf(r.some, r.fillSome, n, kidStats, w); ok {
		st = kst
		r.aggregateCached(*agg, kidBest, q, d, leaf)
	} else {
		st = s.stats(n, kidStats, w)
		r.aggregateRaw(*agg, kidBest, st, s.in.Tree.NumLeaves(n), d, leaf, w)
		for _, k := range kidStats {
			w.recycle(k)
		}
	}
	if kidSum != nil {
		r.pool.Put(kidSum)
	}
	best := r.pool.Get().(*table)
	if bestIntervals(T, *agg, *best, d, s.width, r.frozenCells(n, w), w.pos, r.p == 0 && !noLex && !r.nan.Load()) {
		r.nan.Store(true)
	}
	r.pool.Put(agg)
	return r.finish(n, best, st)
}

// aggregateOrSplit sets agg to the best of aggregating the
// node over every interval (its qualities q, triangular index; raw
// measures of a node of leaves leaves if raw, else in the engine's units)
// and, for a node with children, splitting it into them (their summed
// bests kidSum), recording the splits in d.
func (r *run) aggregateOrSplit(agg, kidSum table, q []line, raw bool, leaves int, d nodeDecisions, leaf bool) {
	T, p, u := r.s.in.Slices, r.p, r.s.u
	for j := 0; j < T; j++ {
		av, ag, al := agg.v[j*T:][:j+1], agg.g[j*T:][:j+1], agg.l[j*T:][:j+1]
		qs := q[triIndex(0, j):][:j+1]
		for i := range av {
			ln := qs[i]
			if raw {
				ln = u.of(ln.g, ln.l, leaves*(j-i+1))
			}
			a := ln.quality(p)
			if !leaf {
				if k := kidSum.at(j*T + i); k.better(a) {
					a = k
					d.setSplit(triIndex(i, j))
				}
			}
			av[i], ag[i], al[i] = a.v, a.g, a.l
		}
	}
}

// fold adds the table of child i, if it has one, to the first child's
// table among kids[:i] (which holds the sum of the tables before i: fold
// is called child after child), as soon as child i is solved, while its
// table is fresh in cache, and hands it back to the pool. The tables are
// added in the children's order, the first to the second, then each to
// the sum so far: the sum is the same bits whenever it is made.
func (r *run) fold(kids []nodeResult, i int) {
	k := kids[i].best
	if k == nil {
		return
	}
	for j := i - 1; j >= 0; j-- {
		if sum := kids[j].best; sum != nil {
			sum.addTri(*k, r.s.runs)
			r.pool.Put(k)
			kids[i].best = nil
			return
		}
	}
}

// sumKids returns the sum of the children's best qualities (a table the
// caller hands back to the pool): children solved at p hand over tables
// of values, folded into one (fold); the lines of children whose solution
// is reused are added up first and evaluated at p once per interval.
func (r *run) sumKids(kids []nodeResult, w *scratch) *table {
	T := r.s.in.Slices
	var sum *table
	var reused []line
	for i := range kids {
		r.fold(kids, i) // none left to fold when postOrder folded them
		k := kids[i]
		if k.best != nil {
			if sum == nil {
				sum = k.best
			}
			continue
		}
		if reused == nil {
			reused = w.lines
			clear(reused)
		}
		addTo(lineFloats(reused), lineFloats(k.lines))
	}
	if sum == nil {
		sum = r.pool.Get().(*table)
		sum.clear()
	}
	if reused == nil {
		return sum
	}
	for j := 0; j < T; j++ {
		for i := 0; i <= j; i++ {
			ln := reused[triIndex(i, j)]
			x := j*T + i
			sum.v[x] += ln.at(r.p)
			sum.g[x] += ln.g
			sum.l[x] += ln.l
		}
	}
	return sum
}

// solveChain handles a node with a single child, which covers the same
// cells: keeping the block whole at n or taking the child's best are the
// only choices, and a time cut at n cannot beat the child's own optimum
// (the child's best over [i..j] is at least the sum of its bests over
// any two halves). That turns the O(T^3) loop into O(T^2) for the chains
// that hierarchies such as host > process > thread are full of.
func (r *run) solveChain(n int32, bestp *table, d nodeDecisions) *table {
	best := *bestp
	s, T := r.s, r.s.in.Slices
	base := int(n) * s.tri
	for j := 0; j < T; j++ {
		for i := 0; i <= j; i++ {
			k := triIndex(i, j)
			q := s.cache[base+k].quality(r.p)
			if best.at(j*T + i).better(q) {
				d.setSplit(k)
			} else {
				best.set(j*T+i, q)
			}
		}
	}
	return bestp
}

// finish records n's best lines when the solution is kept.
func (r *run) finish(n int32, best *table, st nodeStats) nodeResult {
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
				ls[triIndex(i, j)] = line{best.g[j*T+i], best.l[j*T+i]}
			}
		}
	}
	return nodeResult{best: best, stats: st}
}

// bestIntervals fills best with the optimum over every interval of one
// node, given agg, and records the time cut chosen for each interval in d.
//
//	best(i,j) = max( agg(i,j), max over cut of best(i,cut) + agg(cut+1,j) )
//
// Candidates are taken in order: keeping the interval whole, then cuts
// after i, i+1, ...; the first of those with the largest value wins,
// unless a later one of the same value has a larger gain, or the same gain
// and a smaller loss. columnSearch finds the winner of every interval of a
// column; gains and losses are composed
// once the winning cut is known. Intervals fr marks as unchanged take
// their known optimum without searching. pos is scratch space for T
// values. lex says that the tables' values are minus their losses (a
// solve at p = 0): the common case then searches in one pass (see
// columnSearchLexGeneric), with the same winners. A row with NaN
// candidates (overflowing values) takes scanCandidates' winner, with the
// value of another candidate: its optimum's value is no longer minus its
// loss, nor is any optimum built on it. From there on the node searches
// with the general rule, and nan reports it, so that the nodes above do
// too (see run.nan).
func bestIntervals(T int, agg, best table, d nodeDecisions, width int, fr *frozenCells, pos []int, lex bool) (nan bool) {
	bv, bg, bl := best.v[:T*T], best.g[:T*T], best.l[:T*T]
	for j := 0; j < T; j++ {
		if fr == nil && width == 1 {
			// The common case: every row searched, cuts of a byte. The
			// columns from j on are composed in one call, up to one with
			// a row with no winner (NaN qualities), left to the loop below.
			if j += columnsBestComposed(best, agg, T, j, T-1, pos, d.cut, lex); j == T {
				break
			}
		}
		av, ag, al := agg.v[j*T:(j+1)*T], agg.g[j*T:(j+1)*T], agg.l[j*T:(j+1)*T]
		if fr == nil && width == 1 {
			columnSearch(bv, bg, bl, T, av[:j+1], ag[:j+1], al[:j+1], pos[:j+1], nil)
		} else {
			var skip []bool // the intervals of the column known without search
			if fr != nil {
				skip = fr.mask[triIndex(0, j) : triIndex(0, j)+j+1]
			}
			columnSearch(bv, bg, bl, T, av[:j+1], ag[:j+1], al[:j+1], pos[:j+1], skip)
		}
		for i, c := range pos[:j+1] {
			k, at := triIndex(i, j), j*T+i
			if fr != nil && fr.mask[k] {
				ln := fr.lines[k]
				bv[at], bg[at], bl[at] = ln.at(fr.p), ln.g, ln.l
				d.setCut(k, width, fr.dec.cutAt(k, width))
				continue
			}
			var qv float64
			if c > 0 {
				qv = bv[(c-1)*T+i] + av[c]
			} else if c < 0 { // only NaN qualities (overflowing values) come here
				qv, c = scanCandidates(i, j, T, av, ag, al, bv, bg, bl)
				nan, lex = true, false
			}
			if c == 0 {
				bv[at], bg[at], bl[at] = av[i], ag[i], al[i]
				continue
			}
			from := (c-1)*T + i // best(i, c-1)
			bv[at], bg[at], bl[at] = qv, bg[from]+ag[c], bl[from]+al[c]
			d.setCut(k, width, c)
		}
	}
	return nan
}

// scanCandidates is the plain search for the best candidate for [i..j]
// (best(i,m) at (bv, bg, bl)[m*T+i], agg(m,j) at (av, ag, al)[m]): in
// order, the larger value, then the larger gain, then the smaller loss
// wins.
func scanCandidates(i, j, T int, av, ag, al, bv, bg, bl []float64) (qv float64, c int) {
	qv = av[i]
	for cut := i; cut < j; cut++ {
		x := bv[cut*T+i] + av[cut+1]
		if x < qv {
			continue
		}
		if x > qv {
			qv, c = x, cut+1
			continue
		}
		cg, cl := bg[cut*T+i]+ag[cut+1], bl[cut*T+i]+al[cut+1]
		qg, ql := ag[i], al[i]
		if c > 0 {
			qg, ql = bg[(c-1)*T+i]+ag[c], bl[(c-1)*T+i]+al[c]
		}
		if cg > qg || (cg == qg && cl < ql) {
			c = cut + 1
		}
	}
	return qv, c
}

// measure returns the partition the decisions lead to without its parts:
// only its measures, added in the order of the parts (so that they are
// the same as the full partition's). Measuring a part sums its block's
// cells (PartQuality), the longest step after the search: the parts are
// listed on workers goroutines (as Solve lists them, no more memory than
// its result) and added up in order; on one, a walk adds them as it goes.
func (s *Spatiotemporal) measure(p float64, dec []nodeDecisions, workers int) *Partition {
	if workers > 1 {
		parts, _ := s.listParts(dec, workers, nil, nil) // no Control: never canceled
		part := &Partition{P: p, Parts: parts}
		addUpParts(part)
		part.Parts = nil
		return part
	}
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
	addUpParts(part)
}

// addUpParts sets the partition's totals from its measured parts, added
// in order.
func addUpParts(part *Partition) {
	parts := part.Parts
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
	q := s.u.of(g, l, len(s.in.Tree.Leaves)*s.in.Slices)
	return q.g, q.l
}

// PartQuality returns the gain and loss, in this engine's units, of
// aggregating node n over slices i..j, summed from the block's cells, with
// the cache or without it: the cached qualities, summed by interval in
// another order, may differ in their last bits, and the measures of a
// partition (and the p where levels meet, computed from them) must not
// depend on the memory the engine is given.
func (s *Spatiotemporal) PartQuality(n int32, i, j int) (gain, loss float64) {
	if t := s.in.Tree; i == j && t.NumLeaves(n) == 1 && cellIsPlain(s.in, int(t.LeafLo[n]), i) {
		// A single cell measures 0, 0 (see blockQuality): the parts of a
		// detailed partition are mostly such cells, and summing them, a
		// call each, costs more than the whole listing.
		q := s.u.of(0, 0, 1)
		return q.g, q.l
	}
	g, l := blockQuality(s.in, n, i, j)
	q := s.u.of(g, l, s.in.Tree.NumLeaves(n)*(j-i+1))
	return q.g, q.l
}
