package aggregate

import (
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// TieRule says which optimal partition a solve returns at p = 0, where
// many tie.
//
// At p = 0 the quality of a partition is minus its loss. The loss is never
// negative, and the microscopic partition (every cell its own aggregate)
// has none, so it is optimal; but so is every partition that only merges
// cells with identical proportions (in time or across resources), which
// lose nothing either. lpaggreg breaks the tie by the larger gain, so its
// "p = 0" already merges every such block: on the Fig. 3 model of
// Dosimont et al. 2014 (240 cells), 35 aggregates.
type TieRule string

// The tie rules.
const (
	// TiesFinest, the default, returns at p = 0 exactly the finest
	// partition of the kind: every resource over every slice
	// (spatiotemporal and temporal kinds), every resource over the window
	// (spatial kind); for the kinds that merge resources, a resource
	// alone in its parent is named by its highest such ancestor, which
	// covers the same cells. For any p > 0 a partition that merges identical
	// cells gains something at no loss and wins, so the levels of a
	// significant-p sweep start with the microscopic one, optimal at p = 0
	// only, followed by lpaggreg's p = 0 partition from p = 0 on.
	TiesFinest TieRule = "finest"
	// TiesLpaggreg breaks ties everywhere as lpaggreg does, p = 0 included
	// (see Spatiotemporal): value, then larger gain, then smaller loss.
	TiesLpaggreg TieRule = "lpaggreg"
)

// ParseTies reads a tie rule (case-insensitive; empty means TiesFinest).
func ParseTies(s string) (TieRule, error) {
	switch r := TieRule(strings.ToLower(strings.TrimSpace(s))); r {
	case TiesFinest, TiesLpaggreg:
		return r, nil
	case "":
		return TiesFinest, nil
	}
	return "", errs.Argument("ties", "unknown tie rule %q (use %q or %q)", s, TiesFinest, TiesLpaggreg)
}

// finestAt reports whether a solve at p returns the finest partition.
func (o Options) finestAt(p float64) bool { return p == 0 && o.Ties != TiesLpaggreg }

// The sweeps search the envelope with the engines' own tie rule at every
// p (dpSolver; a Spatiotemporal's solveReusing), so that they explore the
// same partitions whatever the rule, and add the microscopic level at the
// end (withFinest).

// dpSolver is an engine that can solve with its tie rule at p = 0 too.
type dpSolver interface {
	solveDP(p float64) (*Partition, error)
}

// finester is an engine that knows its finest partition.
type finester interface {
	finest() *Partition
	tieRule() TieRule
}

func (s *Spatiotemporal) tieRule() TieRule { return s.opt.Ties }
func (s *Spatial) tieRule() TieRule        { return s.opt.Ties }
func (s *Temporal) tieRule() TieRule       { return s.opt.Ties }

// withFinest puts the finest partition of s first in levels (sorted by
// p, from 0) when s's tie rule asks for it: as a level of its own,
// optimal at p = 0 only, when the first level loses no more but differs
// (it merges identical cells), or in place of the first level's partition
// when both have the same gain and loss (they tie over its whole range).
func withFinest(s Solver, levels []Level, compact bool) []Level {
	f, ok := s.(finester)
	if !ok || f.tieRule() == TiesLpaggreg || len(levels) == 0 {
		return levels
	}
	fin := f.finest()
	if compact {
		fin.NumParts, fin.Parts = len(fin.Parts), nil
	}
	if samePartition(fin, levels[0].Partition) {
		levels[0].Partition = fin
		return levels
	}
	return append([]Level{{PLow: 0, PHigh: 0, Partition: fin}}, levels...)
}

// finestPartition returns the finest partition of engine e over slices
// first..last, measured: every leaf over every slice, or with whole every
// leaf over first..last in one part. A leaf that is the only one of its
// parent covers the same cells as the parent: with up, the part is the
// highest such node, as the rule of the kinds that merge resources (an
// exact tie between a node and its children aggregates) gives for any p.
func finestPartition(e Engine, in Input, first, last int, whole, up bool, workers int) *Partition {
	t := in.Tree
	n := len(t.Leaves)
	if !whole {
		n *= last - first + 1
	}
	part := &Partition{P: 0, Parts: make([]Part, 0, n)}
	// Leaves come in preorder, and so do the highest nodes above them
	// with a single leaf: the parts are sorted by node, then time.
	for _, leaf := range t.Leaves {
		for up && leaf > 0 && t.NumLeaves(t.Parent[leaf]) == 1 {
			leaf = t.Parent[leaf]
		}
		if whole {
			part.Parts = append(part.Parts, Part{Node: leaf, First: int32(first), Last: int32(last)})
			continue
		}
		for k := first; k <= last; k++ {
			part.Parts = append(part.Parts, Part{Node: leaf, First: int32(k), Last: int32(k)})
		}
	}
	finishPartition(part, e, workers)
	return part
}
