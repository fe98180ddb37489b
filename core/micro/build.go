package micro

import (
	"fmt"
	"math"
	"slices"

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

// Options choose the window, the resolution and the states of a model.
type Options struct {
	Slices int         // number of equal time slices, 1..MaxSlices
	Start  *trace.Time // window start; nil for the trace start
	End    *trace.Time // window end; nil for the trace end
	// StateTypes restricts the model to states of these type names; empty
	// means every state type.
	StateTypes []string
	// Depth selects how nested states count: Innermost (the default) counts
	// the top of the stack only, so a resource is in exactly one state at a
	// time; Depth >= 0 counts the states at that nesting depth only.
	Depth int
}

// Build computes the microscopic model of t.
//
// Resources are the containers of the types that can hold the selected
// states; their ancestors form the hierarchy above them and containers of
// other types are left out. A resource without any state in the window is
// kept as an all-zero leaf (as Ocelotl does in spatiotemporal mode). A
// resource that has states of its own and also resources below it gets a
// synthetic leaf child, named "name (self)", for its own states.
func Build(t *trace.Trace, opt Options) (*Model, error) {
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
	typeSel, err := selectStateTypes(t, opt.StateTypes)
	if err != nil {
		return nil, err
	}
	stateOf, labels := stateIndex(t, typeSel)
	m := &Model{States: labels, Slices: opt.Slices, Start: start, End: end}
	leafOf := buildTree(t, typeSel, m)
	if len(m.Tree.Leaves) == 0 {
		return nil, errs.Argument("state_types", "no container can hold the selected states")
	}
	acc := accumulator{
		start: start, end: end, n: int64(opt.Slices), nStates: len(labels),
		cells: make([]int64, len(m.Tree.Leaves)*opt.Slices*len(labels)),
	}
	add := func(c, value int32, a, b trace.Time) {
		leaf := leafOf[c]
		if leaf < 0 {
			return
		}
		acc.add(int(leaf), int(stateOf[value]), a, b)
	}
	if opt.Depth == Innermost {
		forEachExclusive(t, typeSel, add)
	} else {
		for _, s := range t.States {
			if typeSel[s.Type] && s.Depth == int32(opt.Depth) {
				add(s.Container, s.Value, s.Start, s.End)
			}
		}
	}
	m.Values = acc.proportions()
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

func selectStateTypes(t *trace.Trace, names []string) ([]bool, error) {
	sel := make([]bool, len(t.Types))
	any := false
	for i, ty := range t.Types {
		if ty.Kind == trace.KindState && (len(names) == 0 || slices.Contains(names, ty.Name)) {
			sel[i], any = true, true
		}
	}
	for _, n := range names {
		found := false
		for i, ty := range t.Types {
			if ty.Name == n && ty.Kind == trace.KindState {
				found = sel[i]
			}
		}
		if !found {
			return nil, errs.Argument("state_types", "the trace has no state type %q", n)
		}
	}
	if !any {
		return nil, errs.Argument("state_types", "the trace has no state type")
	}
	return sel, nil
}

// stateIndex numbers the values of the selected state types. A label is the
// value's name, prefixed by its type's name when two selected types share
// a value name.
func stateIndex(t *trace.Trace, typeSel []bool) (stateOf []int32, labels []string) {
	stateOf = make([]int32, len(t.Values))
	count := map[string]int{}
	for _, v := range t.Values {
		if typeSel[v.Type] {
			count[v.Name]++
		}
	}
	for i, v := range t.Values {
		stateOf[i] = -1
		if !typeSel[v.Type] {
			continue
		}
		label := v.Name
		if count[v.Name] > 1 {
			label = fmt.Sprintf("%s:%s", t.Types[v.Type].Name, v.Name)
		}
		stateOf[i] = int32(len(labels))
		labels = append(labels, label)
	}
	return stateOf, labels
}

// buildTree fills m.Tree and m.Container and returns, for each trace
// container, its leaf index (-1 when it is not a resource).
func buildTree(t *trace.Trace, typeSel []bool, m *Model) []int32 {
	holds := make([]bool, len(t.Types)) // container types that hold selected states
	for i, ty := range t.Types {
		if typeSel[i] && ty.Parent != trace.None {
			holds[ty.Parent] = true
		}
	}
	isResource := func(c int32) bool { return c > 0 && holds[t.Containers[c].Type] }
	hasData := make([]bool, len(t.Containers))
	for _, s := range t.States {
		if typeSel[s.Type] {
			hasData[s.Container] = true
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
