package micro

import (
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Containers with states of several types.
//
// A container can hold states of several state types at once: a SimGrid
// host has a SERVICE state and a PM state, a thread an MPI state and a
// user-code state. The states of one type follow each other (or nest) on
// the container, but the states of two types overlap freely: nothing
// orders an MPI call against a user phase. Counting them in one row would
// make a slice's proportions add up to the number of types.
//
// So a resource is a (container, state type) pair: when the containers of
// a type hold states of several selected state types, each container gets
// one leaf per such state type, named "name [type]", and each leaf's
// proportions add up to at most 1 in every slice. Containers of a type
// holding states of a single selected state type keep one leaf, named
// after the container, as before. Selecting the state types
// (Options.StateTypes) chooses which rows there are.
//
// Which types are split depends on the definitions and on which state
// types have states somewhere in the trace (a state type defined but never
// used does not make rows of zeros), so that every container of a type
// gets the same rows, and streaming and in-memory builds agree.

// typeLeaves tells, for the state metrics, which state types get a leaf of
// their own on each container type.
type typeLeaves struct {
	// byContainerType lists, by container type, the state types that get
	// a leaf each, in definition order; nil when the type's containers
	// have a single leaf.
	byContainerType [][]int32
	// slot is, by type, the rank of a state type among the leaves of its
	// container: a state of type typ on container c counts in leaf
	// leafOf[c] + slot[typ]. Zero for every type when nothing is split.
	slot []int32
}

// splitTypes finds the container types whose containers hold states of
// several selected state types, used says which types have entities in
// the trace. Only state metrics split (events are counts and variables
// are categories of their own).
func splitTypes(t *trace.Trace, kind trace.Kind, typeSel, used []bool) typeLeaves {
	tl := typeLeaves{byContainerType: make([][]int32, len(t.Types)), slot: make([]int32, len(t.Types))}
	if kind != trace.KindState {
		return tl
	}
	held := make([][]int32, len(t.Types))
	for i, ty := range t.Types {
		if typeSel[i] && used[i] && ty.Parent != trace.None && int(ty.Parent) < len(t.Types) {
			held[ty.Parent] = append(held[ty.Parent], int32(i))
		}
	}
	for ct, types := range held {
		if len(types) < 2 {
			continue
		}
		tl.byContainerType[ct] = types
		for rank, typ := range types {
			tl.slot[typ] = int32(rank)
		}
	}
	return tl
}

// leafName names the leaf of state type typ on a container named name.
func leafName(name, typ string) string { return name + " [" + typ + "]" }
