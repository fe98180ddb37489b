package aggregate

import "github.com/macroscope-hpc/macroscope/core/errs"

// Reusing solutions across values of p.
//
// The significant-p sweeps solve the same model for hundreds of values of
// p, each time in O(nodes T^3). Most of that work repeats itself, and
// convexity tells which part:
//
// For a block (node n, interval I), let V(p) be the pIC of its optimal
// sub-partition. Each sub-partition's pIC is a line in p, so V is the
// upper envelope of lines: convex. If the optimal sub-partitions found at
// pa < pb have the same gain and loss (the same line L), then for every p
// in [pa, pb], V(p) >= L(p) (L is a candidate) and V(p) <= L(p) (convexity:
// V lies under its chord, which is L). So L is optimal on the whole range:
// the block's optimum at p is known without searching, and so is a way to
// reach it (the decisions taken at pa).
//
// A solve between two kept solutions therefore searches only the blocks
// whose lines differ at the two ends, and skips whole subtrees whose every
// block agrees. Deep in a sweep, where the two ends are close, that is a
// small fraction of the model. Blocks that are not searched share the
// memory of the solution at pa.
//
// Gains and losses are compared exactly, so a block is reused only when
// both ends found bit-for-bit the same line; anything else is searched.
// A block reused below a skipped node keeps the line it had at pa, which
// is optimal within the skipped node's sub-partition though not
// necessarily on its own; that is harmless because the skipped node is
// skipped again in every narrower range (its two ends always agree), so
// nothing below it is ever compared again.

// keptSolution is what a sweep keeps of a solution to reuse it: the best
// line and the decisions of every (node, interval). Blocks are shared
// between solutions and never modified.
type keptSolution struct {
	lines [][]line
	dec   []nodeDecisions
	bytes int64 // memory owned by this solution alone
}

// bracket is two kept solutions, optimal at a.P <= b.P.
type bracket struct {
	a, b *Partition
}

// frozenCells marks the intervals of a node whose optimum is known, with
// the line and decisions to copy from the solution at the lower end.
type frozenCells struct {
	p     float64
	mask  []bool
	lines []line
	dec   nodeDecisions
}

// skip reports whether node n's optimum is the same line at both ends of
// the bracket for every interval, in which case its whole subtree keeps
// the lower end's solution.
func (r *run) skip(n int32) (nodeResult, bool) {
	a, b := r.br.a.kept.lines[n], r.br.b.kept.lines[n]
	if len(a) > 0 && &a[0] == &b[0] {
		return nodeResult{lines: a}, true
	}
	for k := range a {
		if a[k] != b[k] {
			return nodeResult{}, false
		}
	}
	return nodeResult{lines: a}, true
}

// frozenCells returns the intervals of n that need no search, or nil.
func (r *run) frozenCells(n int32, w *scratch) *frozenCells {
	if r.br == nil {
		return nil
	}
	a, b := r.br.a.kept.lines[n], r.br.b.kept.lines[n]
	for k := range a {
		w.frozen[k] = a[k] == b[k]
	}
	return &frozenCells{p: r.p, mask: w.frozen, lines: a, dec: r.br.a.kept.dec[n]}
}

// fullStateBytes is the memory of a kept solution that shares nothing.
func (s *Spatiotemporal) fullStateBytes() int64 {
	nodes := int64(s.in.Tree.Len())
	leaves := int64(len(s.in.Tree.Leaves))
	perNode := int64(s.tri)*16 + int64(s.tri*s.width)
	return nodes*perNode + (nodes-leaves)*int64(splitWords(s.tri)*8)
}

// canKeep reports whether solutions may be kept at all: reuse needs the
// cached qualities (skipped subtrees provide no stats), and a full
// solution must fit four times in the budget, so that the memory in use
// never exceeds the budget by more than a quarter.
func (s *Spatiotemporal) canKeep() bool {
	return s.cache != nil && s.opt.SweepBytes > 0 && 4*s.fullStateBytes() <= s.opt.SweepBytes
}

// solveReusing solves for p, reusing a and b (optimal at a.P <= p <= b.P)
// when both were kept, and keeps the new solution while the budget allows.
// It is what the sweeps call instead of Solve.
func (s *Spatiotemporal) solveReusing(p float64, a, b *Partition, workers int, compact bool, ctl *Control) (*Partition, error) {
	if !(p >= 0 && p <= 1) {
		return nil, errs.Argument("p", "must be in [0, 1], got %v", p)
	}
	if !s.canKeep() {
		return s.solve(p, nil, false, compact, s.opt.Workers, ctl)
	}
	var br *bracket
	if a != nil && b != nil && a.kept != nil && b.kept != nil && a.P <= p && p <= b.P {
		br = &bracket{a, b}
	}
	keep := br != nil || s.kept.Load()+s.fullStateBytes() <= s.opt.SweepBytes
	part, err := s.solve(p, br, keep, compact, min(workers, s.opt.Workers), ctl)
	if err != nil {
		return nil, err
	}
	if part.kept != nil {
		if s.kept.Add(part.kept.bytes) > s.opt.SweepBytes {
			s.kept.Add(-part.kept.bytes)
			part.kept = nil
		}
	}
	return part, nil
}

// release drops what was kept of x for reuse.
func (s *Spatiotemporal) release(x *Partition) {
	if x != nil && x.kept != nil {
		s.kept.Add(-x.kept.bytes)
		x.kept = nil
	}
}
