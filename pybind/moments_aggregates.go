package pybind

import (
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/macroscope-hpc/macroscope/arrowio"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
	"github.com/macroscope-hpc/macroscope/core/views/moments"
	"github.com/macroscope-hpc/macroscope/plots"
)

// Moments computes the moments of utilization of each aggregate of the
// partition: the busy functions of the resources under its node, added,
// over its time range. options are those of Trace.Moments, except that
// the window is each aggregate's, by is "aggregate" (the default) or
// "state", and the state types default to the model's.
func (a *Aggregation) Moments(options string) (m *Moments, err error) {
	defer guard(&err)
	o, opt, err := parseMomentsOptions(options)
	if err != nil {
		return nil, err
	}
	if opt.Start != nil || opt.End != nil {
		return nil, errs.Argument("start", "the window of an aggregate is its time range; clip the model instead (Trace.micro(start=, end=))")
	}
	var by moments.By
	switch strings.ToLower(strings.TrimSpace(o.By)) {
	case "aggregate", "":
		by = moments.ByNode
	case "state":
		by = moments.ByState
	default:
		return nil, errs.Argument("by", "%q is neither aggregate nor state", o.By)
	}
	src := a.model.source
	if src == nil {
		return nil, errs.Argument("aggregation", "the model of this aggregation was not built from a trace")
	}
	if len(opt.StateTypes) == 0 {
		opt.StateTypes = a.model.stateTypes
	}
	opt.ByState = by == moments.ByState
	rows, index, err := aggregateRows(src.t, a.model.m, a.part, opt)
	if err != nil {
		return nil, err
	}
	source := ""
	if len(src.t.Files) > 0 {
		source = src.t.Files[0]
	}
	kind := "aggregate"
	cols := arrowio.MomentsColumns{Key: "node", Index: "aggregate_id", Indices: index, Window: true, Resources: true}
	if by == moments.ByState {
		kind, cols.States = "state", true
	}
	return &Moments{
		rows: rows, cols: cols, kind: kind, busy: describeBusy(opt), source: source,
		start: a.model.m.Start, end: a.model.m.End, incomplete: a.model.incomplete,
		figure: func(opt plots.MomentsOptions) ([]byte, error) {
			return aggregateFigure(rows, by, a.model.m.Start, a.model.m.End, opt)
		},
		traceColors: valueColors(src.t),
	}, nil
}

// momentsStateTypes returns the state types a model was built from, which
// the moments of its aggregates default to: none (every state type) for
// a model of events or variables.
func momentsStateTypes(opt micro.Options) []string {
	switch opt.Metric {
	case "", micro.StateDuration, micro.StateAverageDuration:
		return append(append([]string(nil), opt.StateTypes...), opt.Types...)
	}
	return nil
}

// aggregateRows returns the sums of every aggregate of part (by state
// with opt.ByState), and the aggregate of each row.
//
// Sums add up over time as well as over resources, so the trace is
// analysed once per segment between consecutive aggregate boundaries
// (at most one per slice), and each aggregate adds up the segments of
// its time range.
func aggregateRows(t *trace.Trace, m *micro.Model, part *aggregate.Partition, opt moments.Options) ([]moments.Row, []int32, error) {
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
		busy       moments.Sums
		states     []moments.StateSums // by name and type, in order of appearance
	}
	aggs := make([]aggregateSums, len(part.Parts))
	for i, p := range part.Parts {
		aggs[i] = aggregateSums{containers: leafContainers(t, m, p.Node), lo: segment(p.First), hi: segment(p.Last + 1)}
	}
	add := func(g *aggregateSums, r *moments.Result) {
		ids := resultResources(r, g.containers)
		for _, c := range ids {
			g.busy.Merge(r.Busy[c])
		}
		if !opt.ByState {
			return
		}
		for _, c := range ids {
			for _, s := range statesOf(r, c) {
				k := slices.IndexFunc(g.states, func(x moments.StateSums) bool { return x.Name == s.Name && x.Type == s.Type })
				if k < 0 {
					g.states = append(g.states, moments.StateSums{Name: s.Name, Type: s.Type, Value: s.Value})
					k = len(g.states) - 1
				}
				g.states[k].Sums.Merge(s.Sums)
			}
		}
	}
	// Analyse a few segments at a time in parallel, then add them up in
	// order so that the sums do not depend on scheduling.
	workers := runtime.GOMAXPROCS(0)
	for first := 0; first < len(cuts)-1; first += workers {
		batch := make([]*moments.Result, min(workers, len(cuts)-1-first))
		errors := make([]error, len(batch))
		var wg sync.WaitGroup
		for j := range batch {
			wg.Go(func() {
				o := opt
				lo, hi := m.SliceStart(int(cuts[first+j])), m.SliceStart(int(cuts[first+j+1]))
				o.Start, o.End = &lo, &hi
				batch[j], errors[j] = moments.Compute(t, o)
			})
		}
		wg.Wait()
		for j, r := range batch {
			if errors[j] != nil {
				return nil, nil, errors[j]
			}
			for i := range aggs {
				if k := first + j; aggs[i].lo <= k && k < aggs[i].hi {
					add(&aggs[i], r)
				}
			}
		}
	}
	var rows []moments.Row
	var index []int32
	for i, p := range part.Parts {
		parent := ""
		if p.Node > 0 {
			parent = m.Tree.Path(m.Tree.Parent[p.Node], arrowio.PathSep)
		}
		row := moments.Row{
			Path: m.Tree.Path(p.Node, arrowio.PathSep), Name: m.Tree.Names[p.Node], Parent: parent,
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
func statesOf(r *moments.Result, c int32) []moments.StateSums {
	lo, _ := slices.BinarySearchFunc(r.States, c, func(s moments.StateSums, c int32) int { return int(s.Container - c) })
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
func resultResources(r *moments.Result, leaves []leafResource) []int32 {
	ids := make([]int32, 0, len(leaves))
	for _, l := range leaves {
		id, ok := r.Resource(l.container, l.stateType)
		if ok && (len(ids) == 0 || ids[len(ids)-1] != id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// aggregateFigure draws the aggregates of each node on a line of their
// own, side by side in time like the blocks of the overview (by state:
// one line per node and state), grouped by node.
func aggregateFigure(rows []moments.Row, by moments.By, start, end trace.Time, opt plots.MomentsOptions) ([]byte, error) {
	if len(rows) == 0 {
		return nil, errs.Argument("rows", "there are no aggregate rows to draw")
	}
	origin, label := plots.TimeOrigin(start, end)
	// By node: rows in their order, norms per resource.
	fig, _, _ := plots.ResultRows(rows, moments.ByNode, origin)
	colors, legend := plots.StateColors(rows)
	lines := make([]int, len(rows))
	keys := []string{} // node of each line
	lineOf := map[[2]string]int{}
	for i, r := range rows {
		// Parts come sorted by node: a node's lines are consecutive.
		k := [2]string{r.Path, r.State}
		l, ok := lineOf[k]
		if !ok {
			l = len(keys)
			lineOf[k] = l
			keys = append(keys, r.Path)
		}
		lines[i] = l
		fig[i].Label = r.Path
		if by == moments.ByState {
			fig[i].Label, fig[i].Color = r.State, colors[r.State]
		}
	}
	if by == moments.ByState {
		states := make([]string, len(rows))
		for i, r := range rows {
			states[i] = r.State
		}
		plots.Recolor(fig, states, legend, opt.StateColors)
	}
	opt.TimeMin, opt.TimeMax = plots.WindowAxis(start, end, origin)
	opt.TimeLabel, opt.Lines, opt.Legend = label, lines, legend
	if by == moments.ByResource || by == moments.ByNode {
		// One line per node: group them by the root's children.
		for l, k := range keys {
			keys[l], _, _ = strings.Cut(k, arrowio.PathSep)
		}
	}
	opt.Groups = plots.RunGroups(keys)
	return plots.MomentsFigure(fig, opt)
}
