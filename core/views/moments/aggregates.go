package moments

import (
	"runtime"
	"slices"
	"sync"

	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
)

// ModelStateTypes returns the state types a model built with opt was built
// from, which the moments of its aggregates default to (Options.StateTypes):
// none, every state type, for a model of events or variables.
func ModelStateTypes(opt micro.Options) []string {
	switch opt.Metric {
	case "", micro.StateDuration, micro.StateAverageDuration:
		return append(append([]string(nil), opt.StateTypes...), opt.Types...)
	}
	return nil
}

// Aggregates computes the moments' sums of the aggregates of part, an
// aggregation of the model m of trace t (package aggregate): for each
// aggregate, the busy functions of the resources under its node, added,
// over its time range (a row), or with opt.ByState the busy time of each
// state value they hold (a row per value). It returns the rows and the
// aggregate of each. The window of each sum is its aggregate's time
// range, from the start of its first slice to the end of its last: opt's
// own window is not used.
//
// Sums add up over time as well as over resources, so the trace is
// analysed once per segment between consecutive aggregate boundaries
// (at most one per slice), a few segments at once, and each aggregate
// adds up the segments of its time range.
func Aggregates(t *trace.Trace, m *micro.Model, part *aggregate.Partition, opt Options) ([]Row, []int32, error) {
	var cuts []int32
	for _, p := range part.Parts {
		cuts = append(cuts, p.First, p.Last+1)
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	segment := func(slice int32) int {
		i, _ := slices.BinarySearch(cuts, slice)
		return i
	}
	type aggregateSums struct {
		containers []leafResource
		lo, hi     int // segments [lo, hi)
		busy       Sums
		states     []StateSums // by name and type, in order of appearance
	}
	aggs := make([]aggregateSums, len(part.Parts))
	for i, p := range part.Parts {
		if i%trace.StopEvery == 0 {
			if err := trace.Stopped(opt.Cancel); err != nil {
				return nil, nil, err
			}
		}
		aggs[i] = aggregateSums{containers: leafContainers(t, m, p.Node), lo: segment(p.First), hi: segment(p.Last + 1)}
	}
	add := func(g *aggregateSums, r *Result) {
		ids := resultResources(r, g.containers)
		for _, c := range ids {
			g.busy.Merge(r.Busy[c])
		}
		if !opt.ByState {
			return
		}
		for _, c := range ids {
			for _, s := range statesOf(r, c) {
				k := slices.IndexFunc(g.states, func(x StateSums) bool { return x.Name == s.Name && x.Type == s.Type })
				if k < 0 {
					g.states = append(g.states, StateSums{Name: s.Name, Type: s.Type, Value: s.Value})
					k = len(g.states) - 1
				}
				g.states[k].Sums.Merge(s.Sums)
			}
		}
	}
	// The aggregates over each segment, in order: a segment's result is
	// added to those only, where looking at every aggregate for every
	// segment cost segments x aggregates (200 million looks for a model
	// of 20,000 resources x 100 slices, every cell apart).
	over := make([][]int32, max(len(cuts)-1, 0))
	for i := range aggs {
		if i%trace.StopEvery == 0 {
			if err := trace.Stopped(opt.Cancel); err != nil {
				return nil, nil, err
			}
		}
		for k := aggs[i].lo; k < aggs[i].hi; k++ {
			over[k] = append(over[k], int32(i))
		}
	}
	// Analyse a few segments at a time in parallel, then add them up in
	// order so that the sums do not depend on scheduling.
	workers := runtime.GOMAXPROCS(0)
	for first := 0; first < len(cuts)-1; first += workers {
		batch := make([]*Result, min(workers, len(cuts)-1-first))
		errors := make([]error, len(batch))
		var wg sync.WaitGroup
		for j := range batch {
			wg.Go(func() {
				o := opt
				lo, hi := m.SliceStart(int(cuts[first+j])), m.SliceStart(int(cuts[first+j+1]))
				o.Start, o.End, o.Relative = &lo, &hi, false
				batch[j], errors[j] = Compute(t, o)
			})
		}
		wg.Wait()
		for j, r := range batch {
			if errors[j] != nil {
				return nil, nil, errors[j]
			}
			for n, i := range over[first+j] {
				if n%trace.StopEvery == 0 {
					if err := trace.Stopped(opt.Cancel); err != nil {
						return nil, nil, err
					}
				}
				add(&aggs[i], r)
			}
		}
	}
	var rows []Row
	var index []int32
	for i, p := range part.Parts {
		if i%trace.StopEvery == 0 {
			if err := trace.Stopped(opt.Cancel); err != nil {
				return nil, nil, err
			}
		}
		parent := ""
		if p.Node > 0 {
			parent = m.Tree.Path(m.Tree.Parent[p.Node], PathSep)
		}
		row := Row{
			Path: m.Tree.Path(p.Node, PathSep), Name: m.Tree.Names[p.Node], Parent: parent,
			Resources: m.Tree.NumLeaves(p.Node),
			Start:     m.SliceStart(int(p.First)), End: m.SliceStart(int(p.Last) + 1),
		}
		if !opt.ByState {
			row.Sums = aggs[i].busy
			rows, index = append(rows, row), append(index, int32(i))
			continue
		}
		for _, s := range aggs[i].states {
			row.State, row.StateType, row.Sums = s.Name, s.Type, s.Sums
			rows, index = append(rows, row), append(index, int32(i))
		}
	}
	return rows, index, nil
}

// statesOf returns the per-state sums of container c in r (r.States is
// ordered by container).
func statesOf(r *Result, c int32) []StateSums {
	lo, _ := slices.BinarySearchFunc(r.States, c, func(s StateSums, c int32) int { return int(s.Container - c) })
	hi := lo
	for hi < len(r.States) && r.States[hi].Container == c {
		hi++
	}
	return r.States[lo:hi]
}

// leafResource is a resource of a microscopic model: a trace container,
// and the state type of its leaf when the container has a leaf per state
// type ("" otherwise).
type leafResource struct {
	container int32
	stateType string
}

// leafContainers returns the resources under node.
func leafContainers(t *trace.Trace, m *micro.Model, node int32) []leafResource {
	var out []leafResource
	for _, leaf := range m.Tree.Leaves[m.Tree.LeafLo[node]:m.Tree.LeafHi[node]] {
		c := m.Container[leaf]
		if c == trace.None {
			// A container's own states, beside its children's, or one
			// state type's states.
			c = m.Container[m.Tree.Parent[leaf]]
		}
		r := leafResource{container: c}
		if m.StateType != nil && m.StateType[leaf] != trace.None {
			r.stateType = t.Types[m.StateType[leaf]].Name
		}
		out = append(out, r)
	}
	return out
}

// resultResources returns the ids in r of the resources, each once: a
// container with a resource per state type in r gives that type's; one
// without (union nesting) gives itself, once for all its types (the
// leaves of one container's types are consecutive).
func resultResources(r *Result, leaves []leafResource) []int32 {
	ids := make([]int32, 0, len(leaves))
	for _, l := range leaves {
		id, ok := r.Resource(l.container, l.stateType)
		if ok && (len(ids) == 0 || ids[len(ids)-1] != id) {
			ids = append(ids, id)
		}
	}
	return ids
}
