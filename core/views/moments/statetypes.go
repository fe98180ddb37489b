package moments

import (
	"cmp"
	"slices"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Containers with states of several types.
//
// A container can hold states of several state types at once: a SimGrid
// host has a SERVICE and a PM state, a thread an MPI and a user-code
// state. The states of one type follow each other or nest, but those of
// two types overlap freely, so adding their busy functions would make a
// resource "busy twice" (m0 above the window's length). The rule:
//
//   - With Innermost nesting (the default), each (container, state type)
//     pair is a resource of its own, when the container's type holds
//     states of several selected state types: the result gives the
//     container a child per state type, named "name [type]" (see
//     Container.StateType), which holds that type's busy function, and
//     the container itself has none. The microscopic model names its
//     leaves the same way.
//   - With Union nesting, the container is one resource, busy while any
//     busy state of any selected type is open: the union of the types'
//     busy intervals.
//
// Either way a resource's busy function is 0 or 1. Selecting a single
// state type (Options.StateTypes) gives one resource per container too.
//
// The union across types needs the busy intervals themselves, since the
// states of two types arrive in no common order: the accumulator keeps,
// for each such container, its busy periods (overlapping and adjacent
// intervals merged) until the end, which costs memory in proportion to the
// number of separate busy periods of these containers.

// intervalSet is a set of disjoint, non-adjacent intervals [a, b), sorted.
type intervalSet struct {
	ivs [][2]trace.Time
}

// add adds [x, y) (y > x), merging what it overlaps or touches. Intervals
// mostly arrive in time order: appending or extending the last is O(1).
func (s *intervalSet) add(x, y trace.Time) {
	n := len(s.ivs)
	if n == 0 || x > s.ivs[n-1][1] {
		s.ivs = append(s.ivs, [2]trace.Time{x, y})
		return
	}
	if x >= s.ivs[n-1][0] {
		s.ivs[n-1][1] = max(s.ivs[n-1][1], y)
		return
	}
	// The first interval ending at or after x, and the first starting
	// after y: those in between merge with [x, y).
	lo, _ := slices.BinarySearchFunc(s.ivs, x, func(iv [2]trace.Time, t trace.Time) int { return cmp.Compare(iv[1], t) })
	hi, _ := slices.BinarySearchFunc(s.ivs, y, func(iv [2]trace.Time, t trace.Time) int {
		if iv[0] <= t {
			return -1
		}
		return 1
	})
	if lo < hi {
		x, y = min(x, s.ivs[lo][0]), max(y, s.ivs[hi-1][1])
	}
	s.ivs = slices.Replace(s.ivs, lo, hi, [2]trace.Time{x, y})
}

// sums returns the power sums of the set's busy function.
func (s *intervalSet) sums() Sums {
	var out Sums
	for _, iv := range s.ivs {
		out.Add(iv[0], iv[1])
	}
	return out
}

// acrossTypes tells whether the busy function of c is the union of
// several state types' states (Union nesting, c's type holding several
// selected state types).
func (a *Accumulator) acrossTypes(c *container) bool {
	return a.opt.Nesting == Union && a.held[c.typ] >= 2
}

// holdType records a selected state type held by containers of type
// parent. When it makes their busy function a union across types after
// some of them already have busy time as sums, the stream cannot be
// followed.
func (a *Accumulator) holdType(parent int32, name string) {
	a.held[parent]++
	if a.opt.Nesting != Union || a.held[parent] != 2 {
		return
	}
	for id := range a.containers {
		c := &a.containers[id]
		if c.typ != parent {
			continue
		}
		for i := range c.streams {
			if st := &c.streams[i]; st.run || !st.busy.Empty() {
				a.fail("state type %q is defined after states of another type on container %q: the union of their states needs every state type defined first", name, c.name)
				return
			}
		}
	}
}

// splitTypes returns the state types that get a resource each on the
// containers of type ctyp: with Innermost nesting, the selected state
// types held by ctyp that have states in the trace, when there are
// several; nil otherwise.
func (a *Accumulator) splitTypes(ctyp int32) []int32 {
	if a.opt.Nesting != Innermost {
		return nil
	}
	var out []int32
	for i, t := range a.types {
		if t.selected && t.parent == ctyp && a.typeUsed[i] {
			out = append(out, int32(i))
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// TypeResourceName names the resource of state type typ on a container
// named name.
func TypeResourceName(name, typ string) string { return name + " [" + typ + "]" }

// Resource returns the id in r.Containers of the resource holding the
// states of state type stateType on container id: the container itself,
// or its child for that type when the container has one per type. ok is
// false when the container has children per type and none for stateType.
func (r *Result) Resource(id int32, stateType string) (int32, bool) {
	if id < 0 || int(id) >= len(r.Containers) {
		return id, false
	}
	perType := false
	for _, k := range r.Containers[id].Children {
		if st := r.Containers[k].StateType; st != "" {
			perType = true
			if st == stateType {
				return k, true
			}
		}
	}
	return id, !perType
}
