package trace

import "strconv"

// LaneSuffix begins the suffix of the sibling containers readers create
// for what overlaps without nesting (a thread's slices that outlive their
// parent, an async track's operations open at once): "<name> (overlap
// lane k)". Views that take a container and its lanes as one (the
// critical path's GPU streams) find the lanes by it.
const LaneSuffix = " (overlap lane "

// LaneName is the name of lane k of the container named name: name
// itself for lane 0, else "<name> (overlap lane k)". Readers name lanes
// through Lanes, which keeps the name of every lane apart from its
// siblings'.
func LaneName(name string, k int) string {
	if k == 0 {
		return name
	}
	return name + LaneSuffix + strconv.Itoa(k) + ")"
}

// Lanes names the overlap lanes of the containers under one parent, so
// that no two containers of that parent share a name, which would give
// them one path (the tables, the analyses and the figures tell
// containers by their paths). A trace may name a container as a lane is
// named: a track "X (overlap lane 1)" beside a track "X", written by a
// tool that drew lanes itself, or by Macroscope, converting a trace. A
// lane whose name is taken takes the next number free: X's lanes are
// then "X (overlap lane 2)", "X (overlap lane 3)"... The zero value
// names lanes as LaneName does, knowing no sibling.
type Lanes struct {
	// Taken reports whether a container of the parent, other than the
	// lanes named here, has the name, or will have it: readers that
	// create containers as their events come know the names to come from
	// the trace's definitions. Nil: none has.
	Taken func(name string) bool
	given map[string]bool // the lane names given
	next  map[string]int  // for each container, the number after its last lane's
}

// Name returns the name of lane k of the container named name: name
// itself for lane 0, else LaneName(name, k), or, when that name is taken
// or given to another lane, LaneName(name, n) for the least n past k and
// past the container's other lanes that is neither. The lanes of a
// container are named in order of k.
func (l *Lanes) Name(name string, k int) string {
	if k == 0 {
		return name
	}
	if l.given == nil {
		l.given, l.next = map[string]bool{}, map[string]int{}
	}
	for n := max(k, l.next[name]); ; n++ {
		s := LaneName(name, n)
		if !l.given[s] && (l.Taken == nil || !l.Taken(s)) {
			l.given[s], l.next[name] = true, n+1
			return s
		}
	}
}
