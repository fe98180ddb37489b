package kaleido

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TraceOptions select the states a call tree is built from.
type TraceOptions struct {
	// StateTypes names the state types to use; empty for all.
	StateTypes []string
	// Containers names containers (by name or "/"-separated path from
	// the root's child) whose states are used, with those of their
	// descendants; empty for all.
	Containers []string
	// Root is the procedure name of the synthetic root; "" for "program".
	Root string
	// PerContainer puts one node per container between the root and the
	// container's outermost states, so that each container's call tree is
	// a subtree of its own (its procedure is the container's type).
	PerContainer bool
	// Cancel, once closed, stops FromTrace, which returns
	// trace.ErrComputationCanceled and no tree. Nil: never.
	Cancel <-chan struct{}
}

// PathSep separates container names in PE names.
const PathSep = "/"

// FromTrace builds the call tree of the nested states of t. The state at
// depth d+1 that began while a state at depth d of the same container and
// type was open is its callee. The outermost states of every container
// become children of a synthetic root (procedure "program", no PE, starting
// with the earliest state), grouped by container in container order, then
// by state type in type order, then in the order they began; with
// PerContainer, each container's group hangs from a node of its own. A
// node's PE is its state's container (named by its path), its procedure the
// state's value and its start the state's start; Row is the state's index
// in t.States (None for the root and container nodes).
//
// A state whose depth has no open state below it, or that is not inside
// the state it nests in, is a *errs.FormatError.
func FromTrace(t *trace.Trace, opt TraceOptions) (*Tree, error) {
	useType, err := selectTypes(t, trace.KindState, "state_types", opt.StateTypes)
	if err != nil {
		return nil, err
	}
	useContainer, err := selectContainers(t, opt.Containers)
	if err != nil {
		return nil, err
	}
	var states []int32
	for i, s := range t.States.All() {
		if i%trace.StopEvery == 0 {
			if err := trace.Stopped(opt.Cancel); err != nil {
				return nil, err
			}
		}
		if useType[s.Type] && useContainer[s.Container] {
			states = append(states, int32(i))
		}
	}
	if len(states) == 0 && len(opt.StateTypes) == 0 && len(opt.Containers) == 0 {
		// Nothing was left out: the trace itself has no states, which no
		// argument can mend.
		return nil, errs.Empty("", "the trace has no states to build a call tree from")
	}
	if len(states) == 0 {
		return nil, errs.Argument("state_types", "no states to build a call tree from (%d states in the trace, none selected)", t.States.Len())
	}
	// Stack order: states of a container and type by the moment they
	// began (Order breaks ties of equal starts where the reader knows it;
	// otherwise the outer state began first).
	// The sort of millions of states takes seconds: it looks too.
	if err := trace.SortFunc(states, func(a, b int32) int {
		x, y := t.States.At(int(a)), t.States.At(int(b))
		return cmp.Or(cmp.Compare(x.Container, y.Container), cmp.Compare(x.Type, y.Type),
			cmp.Compare(x.Start, y.Start), cmp.Compare(x.Order, y.Order), cmp.Compare(x.Depth, y.Depth),
			cmp.Compare(a, b))
	}, &trace.Looker{Cancel: opt.Cancel}); err != nil {
		return nil, err
	}
	// Rows: 0 is the root, then each state in stack order, preceded by
	// its container's row when PerContainer is set. stateOf[row] is the
	// state of a row, None for the root, -2 - c for container c.
	parent := []int32{None}
	stateOf := []int32{None}
	var open []int32  // rows of the open states, by depth
	outer := int32(0) // the parent of outermost states
	for i, si := range states {
		if i%trace.StopEvery == 0 {
			if err := trace.Stopped(opt.Cancel); err != nil {
				return nil, err
			}
		}
		s := t.States.At(int(si))
		newContainer := i == 0 || t.States.At(int(states[i-1])).Container != s.Container
		if i > 0 && (newContainer || t.States.At(int(states[i-1])).Type != s.Type) {
			open = open[:0]
		}
		if newContainer && opt.PerContainer {
			outer = int32(len(parent))
			parent = append(parent, 0)
			stateOf = append(stateOf, -2-s.Container)
		}
		row := int32(len(parent))
		parent = append(parent, None)
		stateOf = append(stateOf, si)
		d := int(s.Depth)
		if d < 0 || d > len(open) {
			return nil, traceError(t, "state %d (%s) has no enclosing state at depth %d", si, describeState(t, si), d-1)
		}
		if d == 0 {
			parent[row] = outer
		} else {
			p := open[d-1]
			ps := t.States.At(int(stateOf[p]))
			if s.Start < ps.Start || s.End > ps.End {
				return nil, traceError(t, "state %d (%s) is not inside the state it nests in, state %d (%s)",
					si, describeState(t, si), stateOf[p], describeState(t, stateOf[p]))
			}
			parent[row] = p
		}
		open = append(open[:d], row)
	}
	if err := trace.Stopped(opt.Cancel); err != nil {
		return nil, err
	}
	// No sort (children in stack order), so no look.
	shape, unreached, _ := preorder(parent, 0, nil, nil)
	if unreached != nil { // parents always come earlier in stack order
		return nil, fmt.Errorf("kaleido: internal error: %d states unreachable", len(unreached))
	}

	tree := &Tree{Parent: shape.parent, Depth: shape.depth, End: shape.end, Height: shape.height, Origin: t.Start}
	n := len(shape.row)
	tree.Row = make([]int32, n)
	tree.Procedure = make([]int32, n)
	tree.PE = make([]int32, n)
	tree.Start = make([]trace.Time, n)
	procOf := map[string]int32{}
	procedure := func(name string) int32 {
		p, ok := procOf[name]
		if !ok {
			p = int32(len(tree.Procedures))
			procOf[name] = p
			tree.Procedures = append(tree.Procedures, name)
		}
		return p
	}
	root := opt.Root
	if root == "" {
		root = "program"
	}
	peOf := make([]int32, len(t.Containers))
	for c := range peOf {
		peOf[c] = None
	}
	for c := range t.Containers { // PEs in container order
		if useContainer[c] && hasStates(t, states, int32(c)) {
			peOf[c] = int32(len(tree.PEs))
			tree.PEs = append(tree.PEs, t.ContainerPath(int32(c), PathSep))
		}
	}
	for node, row := range shape.row {
		switch si := stateOf[row]; {
		case si >= 0:
			s := t.States.At(int(si))
			tree.Row[node] = si
			tree.Procedure[node] = procedure(t.ValueName(s.Value))
			tree.PE[node] = peOf[s.Container]
			tree.Start[node] = s.Start
		case si == None:
			tree.Row[node], tree.Procedure[node], tree.PE[node] = None, procedure(root), None
		default:
			c := -2 - si
			tree.Row[node], tree.Procedure[node], tree.PE[node] = None, procedure(t.TypeName(t.Containers[c].Type)), peOf[c]
		}
	}
	// A procedure's colour is that of the first of its values that has one.
	tree.ProcedureColors = make([]string, len(tree.Procedures))
	for node, si := range tree.Row {
		if p := tree.Procedure[node]; si != None && tree.ProcedureColors[p] == "" {
			if v := t.States.At(int(si)).Value; v != trace.None {
				tree.ProcedureColors[p] = t.Values[v].Color
			}
		}
	}
	if err := trace.Stopped(opt.Cancel); err != nil {
		return nil, err
	}
	// The root and container nodes start with their first state.
	for v := len(shape.row) - 1; v >= 0; v-- {
		if tree.Row[v] == None {
			tree.Start[v] = earliestBelow(tree, int32(v))
		}
	}
	return tree, nil
}

// earliestBelow returns the earliest start among the descendants of v
// that are states.
func earliestBelow(tree *Tree, v int32) trace.Time {
	first := true
	var t trace.Time
	for u := v + 1; u < tree.End[v]; u++ {
		if tree.Row[u] != None && (first || tree.Start[u] < t) {
			t, first = tree.Start[u], false
		}
	}
	return t
}

// hasStates reports whether container c holds one of the states; states
// are sorted by container first.
func hasStates(t *trace.Trace, states []int32, c int32) bool {
	i, _ := slices.BinarySearchFunc(states, c, func(s, c int32) int { return cmp.Compare(t.States.At(int(s)).Container, c) })
	return i < len(states) && t.States.At(int(states[i])).Container == c
}

// selectTypes marks the types of kind named in names (all of them when
// names is empty); an unknown name is an ArgumentError about param that
// lists the kind's types.
func selectTypes(t *trace.Trace, kind trace.Kind, param string, names []string) ([]bool, error) {
	use := make([]bool, len(t.Types))
	for i, ty := range t.Types {
		use[i] = ty.Kind == kind && len(names) == 0
	}
	for _, name := range names {
		found := false
		for i, ty := range t.Types {
			if ty.Kind == kind && (ty.Name == name || ty.Alias == name) {
				use[i], found = true, true
			}
		}
		if !found {
			var known []string
			for _, ty := range t.Types {
				if ty.Kind == kind {
					known = append(known, ty.Name)
				}
			}
			what := strings.ToLower(kind.String())
			return nil, errs.Argument(param, "no %s type %q in the trace (%s types: %s)", what, name, what, strings.Join(known, ", "))
		}
	}
	return use, nil
}

func selectContainers(t *trace.Trace, names []string) ([]bool, error) {
	use := make([]bool, len(t.Containers))
	if len(names) == 0 {
		for c := range use {
			use[c] = true
		}
		return use, nil
	}
	for _, name := range names {
		found := false
		for c := range t.Containers {
			if c > 0 && (t.Containers[c].Name == name || t.ContainerPath(int32(c), PathSep) == name) {
				found = true
				markSubtree(t, int32(c), use)
			}
		}
		if !found {
			return nil, errs.Argument("containers", "no container named %q in the trace", name)
		}
	}
	return use, nil
}

func markSubtree(t *trace.Trace, c int32, use []bool) {
	use[c] = true
	for _, k := range t.Containers[c].Children {
		markSubtree(t, k, use)
	}
}

func describeState(t *trace.Trace, si int32) string {
	s := t.States.At(int(si))
	return fmt.Sprintf("%q of type %q on %s, %s-%s s, depth %d", t.ValueName(s.Value), t.TypeName(s.Type),
		t.ContainerPath(s.Container, PathSep), s.Start, s.End, s.Depth)
}

func traceError(t *trace.Trace, format string, args ...any) error {
	return errs.Format(strings.Join(t.Files, ", "), 0, format, args...)
}
