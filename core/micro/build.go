package micro

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/hier"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Innermost selects, at every instant, the state on top of the nesting
// stack (exclusive time), as Options.Depth.
const Innermost = -1

// MaxSlices bounds the number of slices: beyond it the quadratic
// aggregation algorithms stop being interactive (Ocelotl's limit).
const MaxSlices = 10000

// Options choose the window, the resolution, the metric and the entities
// of a model.
type Options struct {
	Slices int         // number of equal time slices, 1..MaxSlices
	Start  *trace.Time // window start; nil for the trace start
	End    *trace.Time // window end; nil for the trace end
	// Metric is what each cell measures; empty means StateDuration.
	Metric Metric
	// StateTypes restricts the model to entities of these type names (state
	// types for the state metrics, event types for EventCount, variable
	// types for VariableAverage); empty means every type of the metric's
	// kind. Types is a synonym, added to it.
	StateTypes []string
	Types      []string
	// Depth selects how nested states count: Innermost (the default) counts
	// the top of the stack only, so a resource is in exactly one state at a
	// time; Depth >= 0 counts the states at that nesting depth only.
	Depth int
}

// Build computes the microscopic model of t.
//
// Resources are the containers of the types that can hold the selected
// entities; their ancestors form the hierarchy above them and containers of
// other types are left out. A resource without any entity in the window is
// kept as an all-zero leaf (as Ocelotl does in spatiotemporal mode). A
// resource that has entities of its own and also resources below it gets a
// synthetic leaf child, named "name (self)", for its own entities.
//
// Slices are half-open, [start_k, start_k+1), except the last, which also
// holds the window's end: an event exactly at the end counts in the last
// slice, and one exactly on an inner boundary in the slice it opens.
func Build(t *trace.Trace, opt Options) (*Model, error) {
	metric, err := ParseMetric(string(opt.Metric))
	if err != nil {
		return nil, err
	}
	start, end, err := window(t, opt)
	if err != nil {
		return nil, err
	}
	if opt.Slices < 1 || opt.Slices > MaxSlices {
		return nil, errs.Argument("slices", "must be between 1 and %d, got %d", MaxSlices, opt.Slices)
	}
	if int64(end-start) > math.MaxInt64/int64(opt.Slices) {
		return nil, errs.Argument("slices", "a %s s window cut into %d slices exceeds the nanosecond arithmetic; use a shorter window or fewer slices", end-start, opt.Slices)
	}
	if int64(end-start) < int64(opt.Slices) {
		return nil, errs.Argument("slices", "%d slices do not fit in a window of %d ns", opt.Slices, end-start)
	}
	if opt.Depth < Innermost {
		return nil, errs.Argument("depth", "must be -1 (innermost) or a nesting depth >= 0, got %d", opt.Depth)
	}
	kind := metric.entityKind()
	typeSel, err := selectTypes(t, kind, append(append([]string(nil), opt.StateTypes...), opt.Types...))
	if err != nil {
		return nil, err
	}
	categoryOf, labels := categories(t, kind, typeSel)
	m := &Model{States: labels, Slices: opt.Slices, Start: start, End: end, Metric: metric}
	leafOf := buildTree(t, kind, typeSel, m)
	if len(m.Tree.Leaves) == 0 {
		return nil, errs.Argument("state_types", "no container can hold the selected %ss", metric.Dimension())
	}
	g := grid{start: start, end: end, n: int64(opt.Slices), nCat: len(labels), leaves: len(m.Tree.Leaves)}
	switch metric {
	case StateDuration, StateAverageDuration:
		m.Values = buildStates(t, g, leafOf, categoryOf, typeSel, opt.Depth, metric == StateAverageDuration)
	case EventCount:
		m.Values = buildEvents(t, g, leafOf, categoryOf, typeSel)
	case VariableAverage:
		if m.Values, err = buildVariables(t, g, leafOf, categoryOf, typeSel); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func window(t *trace.Trace, opt Options) (start, end trace.Time, err error) {
	start, end = t.Start, t.End
	if opt.Start != nil {
		start = *opt.Start
	}
	if opt.End != nil {
		end = *opt.End
	}
	if end <= start {
		return 0, 0, errs.Argument("window", "empty time window [%s, %s] s", start, end)
	}
	return start, end, nil
}

// selectTypes marks the types of the given kind named in names (all of
// them when names is empty).
func selectTypes(t *trace.Trace, kind trace.Kind, names []string) ([]bool, error) {
	sel := make([]bool, len(t.Types))
	any := false
	for i, ty := range t.Types {
		if ty.Kind == kind && (len(names) == 0 || slices.Contains(names, ty.Name)) {
			sel[i], any = true, true
		}
	}
	for _, n := range names {
		found := false
		for i, ty := range t.Types {
			if ty.Name == n && ty.Kind == kind {
				found = sel[i]
			}
		}
		if !found {
			return nil, errs.Argument("state_types", "the trace has no %s type %q", strings.ToLower(kind.String()), n)
		}
	}
	if !any {
		return nil, errs.Argument("state_types", "the trace has no %s type", strings.ToLower(kind.String()))
	}
	return sel, nil
}

// categories numbers the categories of the selected types: the values of
// state and event types (an event or state without a value counts under
// its type's name), or the variable types themselves. A label is the
// value's name, prefixed by its type's name when two selected types share
// a name. categoryOf maps a value (states, events) or a type (variables)
// to its category; for states and events, categoryOf[len(t.Values)+typ]
// is the category of type typ's entities without a value (-1 if unused).
func categories(t *trace.Trace, kind trace.Kind, typeSel []bool) (categoryOf []int32, labels []string) {
	if kind == trace.KindVariable {
		categoryOf = make([]int32, len(t.Types))
		for i, ty := range t.Types {
			categoryOf[i] = -1
			if typeSel[i] {
				categoryOf[i] = int32(len(labels))
				labels = append(labels, ty.Name)
			}
		}
		return categoryOf, labels
	}
	count := map[string]int{}
	for _, v := range t.Values {
		if typeSel[v.Type] {
			count[v.Name]++
		}
	}
	categoryOf = make([]int32, len(t.Values)+len(t.Types))
	for i, v := range t.Values {
		categoryOf[i] = -1
		if !typeSel[v.Type] {
			continue
		}
		label := v.Name
		if count[v.Name] > 1 {
			label = fmt.Sprintf("%s:%s", t.Types[v.Type].Name, v.Name)
		}
		categoryOf[i] = int32(len(labels))
		labels = append(labels, label)
	}
	for i := range t.Types {
		categoryOf[len(t.Values)+i] = -1
	}
	// Entities without a value get a category per type, on first use.
	mark := func(typ, value int32) {
		if value == trace.None && typeSel[typ] && categoryOf[len(t.Values)+int(typ)] < 0 {
			categoryOf[len(t.Values)+int(typ)] = int32(len(labels))
			labels = append(labels, t.Types[typ].Name)
		}
	}
	if kind == trace.KindEvent {
		for _, e := range t.Events {
			mark(e.Type, e.Value)
		}
	} else {
		for _, s := range t.States {
			mark(s.Type, s.Value)
		}
	}
	return categoryOf, labels
}

// category returns the category of an entity of type typ with value value.
func category(categoryOf []int32, nValues int, typ, value int32) int32 {
	if value == trace.None {
		return categoryOf[nValues+int(typ)]
	}
	return categoryOf[value]
}

// buildTree fills m.Tree and m.Container and returns, for each trace
// container, its leaf index (-1 when it is not a resource).
func buildTree(t *trace.Trace, kind trace.Kind, typeSel []bool, m *Model) []int32 {
	holds := make([]bool, len(t.Types)) // container types that hold selected entities
	for i, ty := range t.Types {
		if typeSel[i] && ty.Parent != trace.None {
			holds[ty.Parent] = true
		}
	}
	isResource := func(c int32) bool { return c > 0 && holds[t.Containers[c].Type] }
	hasData := make([]bool, len(t.Containers))
	switch kind {
	case trace.KindState:
		for _, s := range t.States {
			if typeSel[s.Type] {
				hasData[s.Container] = true
			}
		}
	case trace.KindEvent:
		for _, e := range t.Events {
			if typeSel[e.Type] {
				hasData[e.Container] = true
			}
		}
	case trace.KindVariable:
		for _, v := range t.Variables {
			if typeSel[v.Type] {
				hasData[v.Container] = true
			}
		}
	}
	// keep[c]: c is a resource or has one below it.
	keep := make([]bool, len(t.Containers))
	for c := len(t.Containers) - 1; c > 0; c-- {
		if isResource(int32(c)) {
			keep[c] = true
		}
		if keep[c] {
			keep[t.Containers[c].Parent] = true
		}
	}
	rootName := "root"
	b := hier.NewBuilder(rootName)
	builderContainer := []int32{0}
	ownLeaf := map[int32]int{} // container -> builder id of the node holding its states
	var walk func(c int32, node int)
	walk = func(c int32, node int) {
		var kids []int32
		for _, k := range t.Containers[c].Children {
			if keep[k] {
				kids = append(kids, k)
			}
		}
		if isResource(c) {
			if len(kids) == 0 {
				ownLeaf[c] = node
			} else if hasData[c] {
				id := b.Add(node, t.Containers[c].Name+" (self)")
				builderContainer = append(builderContainer, trace.None)
				ownLeaf[c] = id
			}
		}
		for _, k := range kids {
			id := b.Add(node, t.Containers[k].Name)
			builderContainer = append(builderContainer, k)
			walk(k, id)
		}
	}
	walk(0, 0)
	tree, ids := b.Build()
	m.Tree = tree
	m.Container = make([]int32, tree.Len())
	for old, id := range ids {
		m.Container[id] = builderContainer[old]
	}
	leafOf := make([]int32, len(t.Containers))
	for i := range leafOf {
		leafOf[i] = -1
	}
	for c, old := range ownLeaf {
		if node := ids[old]; tree.IsLeaf(node) {
			leafOf[c] = tree.LeafLo[node]
		}
	}
	return leafOf
}
