package topology

import (
	"math"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/hier"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
)

// CollapseOptimal chooses the groups to collapse by the optimal spatial
// aggregation of Lamarche-Perrin et al. 2014 (the best cut of the
// hierarchy for the trade-off p between the simplicity an aggregate brings
// and the information it loses), over the current window, and shows the
// graph with exactly those groups collapsed. It returns their paths.
//
// What a resource contributes: for each kind with a capacity, its used
// and unused capacity (usage and capacity minus usage; the capacity alone
// when the kind has no utilization), divided by the kind's total capacity
// so that kinds weigh alike whatever their units. A group whose members
// all have the same share of use (or the same capacity) loses nothing when
// collapsed. Gain and loss are normalised (Options.Normalize): p = 0 keeps
// every group that loses information expanded, p = 1 collapses the whole
// graph; exact ties collapse.
//
// Under Change, it looks at the channel every trace.StopEvery leaves and
// before the aggregation (linear in the nodes); stopped, it returns
// trace.ErrComputationCanceled and leaves the groups collapsed as they
// were.
func (tp *Topology) CollapseOptimal(p float64) ([]string, error) {
	if !(p >= 0 && p <= 1) {
		return nil, errs.Argument("p", "must be in [0, 1], got %v", p)
	}
	t := tp.tr
	// The hierarchy of the nodes: their containers and the groups above.
	keep := make([]bool, len(t.Containers))
	for _, c := range tp.leaves {
		if err := tp.look.Stopped(1); err != nil {
			return nil, err
		}
		for a := t.Containers[c].Parent; a >= 0; a = t.Containers[a].Parent {
			if tp.leafOf[a] >= 0 {
				return nil, errs.Argument("kinds", "%s holds %s: the optimal aggregation needs nodes that contain no other node", tp.paths[a], tp.paths[c])
			}
			keep[a] = true
		}
		keep[c] = true
	}
	b := hier.NewBuilder(t.Containers[0].Name)
	bid := make([]int, len(t.Containers))
	var walk func(c int32)
	walk = func(c int32) {
		for _, ch := range t.Containers[c].Children {
			if keep[ch] {
				bid[ch] = b.Add(bid[c], t.Containers[ch].Name)
				walk(ch)
			}
		}
	}
	walk(0)
	tree, newID := b.Build()
	container := make([]int32, tree.Len()) // hierarchy node -> container
	for c := range t.Containers {
		if c == 0 || keep[c] {
			container[newID[bid[c]]] = int32(c)
		}
	}
	// States: per kind, used and unused capacity (or the capacity alone).
	nk := len(tp.kinds)
	total := make([]float64, nk)
	hasUse := make([]bool, nk)
	for i := range tp.leaves {
		k := tp.leafKind[i]
		if c := tp.capMean[i]; !math.IsNaN(c) {
			total[k] += c
		}
		hasUse[k] = hasUse[k] || !math.IsNaN(tp.useMean[i])
	}
	first := make([]int, nk) // first state of each kind
	states := 0
	for k := range nk {
		first[k] = states
		switch {
		case total[k] <= 0:
		case hasUse[k]:
			states += 2
		default:
			states++
		}
	}
	if states == 0 {
		return nil, errs.Argument("size", "no node has a capacity in the window: nothing to aggregate")
	}
	values := make([]float64, len(tree.Leaves)*states)
	for i, c := range tp.leaves {
		if err := tp.look.Stopped(1); err != nil {
			return nil, err
		}
		k := tp.leafKind[i]
		capacity := tp.capMean[i]
		if total[k] <= 0 || math.IsNaN(capacity) {
			continue
		}
		leaf := tree.LeafLo[newID[bid[c]]]
		row := values[int(leaf)*states+first[k]:]
		if hasUse[k] {
			used := tp.useMean[i]
			if math.IsNaN(used) {
				used = 0
			}
			used = math.Min(math.Max(used, 0), capacity)
			row[0] = used / total[k]
			row[1] = (capacity - used) / total[k]
		} else {
			row[0] = math.Max(capacity, 0) / total[k]
		}
	}
	// The values are shares of each kind's capacity, not shares of time:
	// the entropy gain (in the loss's units) rather than the spatial
	// kind's default, the number of values saved.
	s, err := aggregate.NewSpatial(aggregate.Input{Tree: tree, Slices: 1, States: states, Values: values},
		aggregate.Options{Normalize: true, Gain: aggregate.GainEntropy})
	if err != nil {
		return nil, err
	}
	if err := tp.look.Stopped(tree.Len()); err != nil {
		return nil, err
	}
	part, err := s.Solve(p)
	if err != nil {
		return nil, err
	}
	if err := tp.look.Stopped(tree.Len()); err != nil {
		return nil, err
	}
	clear(tp.collapsed)
	var paths []string
	for _, pt := range part.Parts {
		if tree.IsLeaf(pt.Node) {
			continue
		}
		c := container[pt.Node]
		tp.collapsed[c] = true
		paths = append(paths, tp.paths[c])
	}
	tp.invalidate()
	return paths, nil
}
