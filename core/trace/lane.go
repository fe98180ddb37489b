package trace

import "strconv"

// LaneSuffix begins the suffix of the sibling containers readers create
// for what overlaps without nesting (a thread's slices that outlive their
// parent, an async track's operations open at once): "<name> (overlap
// lane k)". Views that take a container and its lanes as one (the
// critical path's GPU streams) find the lanes by it.
const LaneSuffix = " (overlap lane "

// LaneName is the name of lane k of the container named name: name
// itself for lane 0, else "<name> (overlap lane k)".
func LaneName(name string, k int) string {
	if k == 0 {
		return name
	}
	return name + LaneSuffix + strconv.Itoa(k) + ")"
}
