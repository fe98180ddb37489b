package moments

import (
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// By says what one row of a table or figure of moments stands for.
type By uint8

// The row kinds.
const (
	// ByResource gives one row per resource: its own busy function.
	ByResource By = iota
	// ByState gives one row per resource and state value with busy time
	// on it (Options.ByState must be set); a resource's rows add up to
	// its ByResource row.
	ByState
	// ByNode gives one row per hierarchy node holding at least one
	// resource: the busy functions of every resource of its subtree,
	// added (see Result.Subtree).
	ByNode
)

var byNames = [...]string{"resource", "state", "node"}

func (b By) String() string {
	if int(b) < len(byNames) {
		return byNames[b]
	}
	return "By(?)"
}

// ParseBy accepts "resource", "state" or "node", in any case.
func ParseBy(s string) (By, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "resource", "":
		return ByResource, nil
	case "state":
		return ByState, nil
	case "node":
		return ByNode, nil
	}
	return 0, errs.Argument("by", "%q is none of resource, state, node", s)
}

// Row is the power sums of one resource, state of a resource, hierarchy
// node or other group, labelled for tables and figures.
type Row struct {
	// Path names the resource or node from the root's child down, with
	// PathSep between names; the root's path is empty.
	Path string
	// Name is the last element of Path (the root's own name for the root)
	// and Parent the path of the node above.
	Name, Parent string
	// State and StateType name the state value (NoStateName for time in
	// no state) of a per-state row; both are empty otherwise.
	State, StateType string
	// Resources counts the resources whose busy functions the row adds.
	Resources int
	// Start and End bound the window the busy time was clipped to.
	Start, End trace.Time
	Sums       Sums
}

// PathSep separates names in the paths of rows.
const PathSep = "/"

// Rows lists the result by resource, state or node, in hierarchy order
// (depth first, children in creation order). ByState needs a result
// computed with Options.ByState.
func (r *Result) Rows(by By) ([]Row, error) {
	row := func(id int32, s Sums, resources int) Row {
		c := r.Containers[id]
		parent := ""
		if id > 0 {
			parent = r.Path(c.Parent, PathSep)
		}
		return Row{Path: r.Path(id, PathSep), Name: c.Name, Parent: parent, Resources: resources,
			Start: r.Start, End: r.End, Sums: s}
	}
	var rows []Row
	switch by {
	case ByResource:
		rows = make([]Row, 0, len(r.Resources))
		for _, id := range r.Resources {
			rows = append(rows, row(id, r.Busy[id], 1))
		}
	case ByState:
		// With Options.ByState the per-state sums add up to the busy
		// sums, so busy time without them means they were not asked for.
		if len(r.States) == 0 && r.hasBusyTime() {
			return nil, errs.Argument("by", "per-state rows need the per-state sums (Options.ByState)")
		}
		// r.States is ordered by container id; find each resource's run.
		first := make(map[int32]int, len(r.Resources))
		for i := len(r.States) - 1; i >= 0; i-- {
			first[r.States[i].Container] = i
		}
		for _, id := range r.Resources {
			i, ok := first[id]
			if !ok {
				continue
			}
			for ; i < len(r.States) && r.States[i].Container == id; i++ {
				s := r.States[i]
				x := row(id, s.Sums, 1)
				x.State, x.StateType = s.Name, s.Type
				rows = append(rows, x)
			}
		}
	case ByNode:
		sub := r.Subtree()
		count := r.resourceCounts()
		for _, id := range r.Order() {
			if count[id] > 0 {
				rows = append(rows, row(id, sub[id], count[id]))
			}
		}
	default:
		return nil, errs.Argument("by", "unknown row kind %d", by)
	}
	return rows, nil
}

// resourceCounts returns, by container id, the number of resources in the
// container's subtree, itself included.
func (r *Result) resourceCounts() []int {
	count := make([]int, len(r.Containers))
	for _, id := range r.Resources {
		count[id]++
	}
	// A child's id is larger than its parent's.
	for id := len(count) - 1; id > 0; id-- {
		count[r.Containers[id].Parent] += count[id]
	}
	return count
}

func (r *Result) hasBusyTime() bool {
	for _, s := range r.Busy {
		if !s.Empty() {
			return true
		}
	}
	return false
}
