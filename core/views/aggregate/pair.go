package aggregate

import "sync"

// Two solves in one traversal.
//
// Without cached qualities (models too large for the cache), a node's
// interval terms, the sums over every interval of its values and of their
// x log2 x, cost about as much as its cut search, and they do not depend
// on p. A search that needs two levels before anything else (Knee: p = 0
// and p = 1) solves both in one traversal of the tree: each node computes
// its stats and terms once (rawTerms) and then runs each solve's own
// steps, aggregateTerms and bestIntervals, with that solve's tables,
// decisions and NaN flag. Every solve does exactly what it does alone,
// in the same order per node, so its decisions, and its partition, are
// the same bits.

// pairSolver is a Solver that can solve two p at once (solvePair).
type pairSolver interface {
	// pairs reports whether solvePair saves anything over two solves.
	pairs() bool
	solvePair(p0, p1 float64, compact bool, ctl *Control) (*Partition, *Partition, error)
}

// pairResult is what a node hands to its parent in a pairRun: the best
// table of each solve, and the node's stats (the same for both).
type pairResult struct {
	best  [2]*table
	stats nodeStats
}

// pairRun is two runs over the same tree, at two p.
type pairRun struct {
	runs [2]*run
}

// noPairs turns paired solves off, so that tests can compare them with
// separate solves.
var noPairs bool

// pairs implements pairSolver: sharing the terms pays when they are not
// cached, and reuse (which needs the cache) is not in play.
func (s *Spatiotemporal) pairs() bool { return !noPairs && s.cache == nil && !s.canKeep() }

// solvePair solves at p0 and p1 in one traversal, as solve(p, nil, false,
// compact, s.opt.Workers, ctl) solves each, with the same results.
func (s *Spatiotemporal) solvePair(p0, p1 float64, compact bool, ctl *Control) (*Partition, *Partition, error) {
	nodes := s.in.Tree.Len()
	var pr pairRun
	for x, p := range [2]float64{p0, p1} {
		r := &run{s: s, p: p, pool: &s.tables, ctl: ctl}
		arena := newOffHeapArena(s.tri, s.width, nodes, s.internal)
		defer arena.free()
		r.dec = make([]nodeDecisions, nodes)
		for n := range r.dec {
			r.dec[n] = arena.block(s.in.Tree.IsLeaf(int32(n)))
		}
		pr.runs[x] = r
	}
	a := pr.runs[0] // reads or fills the kept lines for both
	a.some, a.fillSome = s.takeSome()
	root := postOrder(s.in.Tree, s.opt.Workers, nil, &s.scratches, pr.visit, pr.fold)
	for _, b := range root.best {
		if b != nil {
			s.tables.Put(b)
		}
	}
	if a.fillSome {
		doneSome(a.some, !ctl.canceled())
	}
	if ctl.canceled() {
		return nil, nil, ErrCanceled
	}
	// The two partitions are listed (or measured) side by side, each on
	// half the workers.
	var parts [2]*Partition
	var errs [2]error
	var wg sync.WaitGroup
	for x, r := range pr.runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if compact {
				parts[x] = s.measure(r.p, r.dec, max(1, s.opt.Workers/2))
				return
			}
			list, err := s.listParts(r.dec, max(1, s.opt.Workers/2), ctl, nil)
			if err != nil {
				errs[x] = err
				return
			}
			parts[x] = &Partition{P: r.p, Parts: list}
			addUpParts(parts[x])
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	return parts[0], parts[1], nil
}

// visit solves node n for both runs given its children's results, as
// run.visit does for one (a model without cached qualities, nothing
// reused).
func (pr *pairRun) visit(n int32, kids []pairResult, w *scratch) pairResult {
	a := pr.runs[0]
	if a.ctl != nil {
		if a.ctl.Progress != nil {
			a.visited.Add(1)
		}
		if a.ctl.canceled() { // unwind: hand the tables back, solve nothing
			for _, k := range kids {
				for _, b := range k.best {
					if b != nil {
						a.pool.Put(b)
					}
				}
				w.recycle(k.stats)
			}
			return pairResult{best: [2]*table{a.pool.Get().(*table), a.pool.Get().(*table)}}
		}
	}
	s, T := a.s, a.s.in.Slices
	leaf := s.in.Tree.IsLeaf(n)
	var kidSums [2]*table
	var kidStats []nodeStats
	if len(kids) > 0 {
		for i := range kids {
			pr.fold(kids, i) // none left to fold when postOrder folded them
		}
		for x, r := range pr.runs {
			for _, k := range kids {
				if k.best[x] != nil {
					kidSums[x] = k.best[x]
					break
				}
			}
			if kidSums[x] == nil {
				kidSums[x] = r.pool.Get().(*table)
				kidSums[x].clear()
			}
		}
		kidStats = w.kidStats[:0]
		for _, k := range kids {
			if k.stats.held() {
				kidStats = append(kidStats, k.stats)
			}
		}
		w.kidStats = kidStats[:0]
	}
	var terms rawTerms
	kept, st, ok := s.keptOf(a.some, a.fillSome, n, kidStats, w)
	if !ok {
		st = s.stats(n, kidStats, w)
		terms = s.rawTerms(st, s.in.Tree.NumLeaves(n), w)
		for _, k := range kidStats {
			w.recycle(k)
		}
	}
	out := pairResult{stats: st}
	for x, r := range pr.runs {
		d := r.dec[n]
		agg := r.pool.Get().(*table)
		var kidBest table
		if kidSums[x] != nil {
			kidBest = *kidSums[x]
		}
		if kept != nil {
			r.aggregateCached(*agg, kidBest, kept, d, leaf)
		} else {
			r.aggregateTerms(*agg, kidBest, terms, d, leaf, w)
		}
		if kidSums[x] != nil {
			r.pool.Put(kidSums[x])
		}
		best := r.pool.Get().(*table)
		if bestIntervals(T, *agg, *best, d, s.width, nil, w.pos, r.p == 0 && !noLex && !r.nan.Load()) {
			r.nan.Store(true)
		}
		r.pool.Put(agg)
		out.best[x] = best
	}
	return out
}

// fold is run.fold for both runs' tables.
func (pr *pairRun) fold(kids []pairResult, i int) {
	for x, r := range pr.runs {
		k := kids[i].best[x]
		if k == nil {
			continue
		}
		for j := i - 1; j >= 0; j-- {
			if sum := kids[j].best[x]; sum != nil {
				sum.addTri(*k, r.s.runs)
				r.pool.Put(k)
				kids[i].best[x] = nil
				break
			}
		}
	}
}
