package moments

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/names"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Result holds the power sums of every container once a trace is read.
type Result struct {
	// Start and End bound the analysed window [Start, End): the options'
	// window, completed by the trace's bounds.
	Start, End trace.Time
	// Origin is the trace's first instant: the times shown to a person
	// count from it.
	Origin trace.Time
	// traceEnd is the trace's last instant (Stream checks its guesses).
	traceEnd trace.Time
	// Containers describes the hierarchy, by container id (0 is the root).
	Containers []Container
	// Resources lists the containers whose type holds a selected state
	// type, in depth-first order (children in creation order; a
	// container's per-type resources first): the rows of a Gantt chart.
	// A container with a resource per state type is not one itself.
	Resources []int32
	// Busy holds, by container id, the sums of the container's own busy
	// function (not its descendants'; see Subtree), 0 or 1 at every
	// instant.
	Busy []Sums
	// States holds with Options.ByState the sums of each value's busy
	// time on each container that has some, ordered by container id and
	// value id; the gaps of Options.Gaps come first, with value
	// trace.None. A container's per-value sums add up to its Busy sums.
	States []StateSums
	// Types and Values are the trace's definitions: a view colours the
	// states of States as the model of the trace does
	// (micro.StateCategories). Results decoded or merged from parts have
	// none.
	Types  []trace.Type
	Values []trace.Value
}

// Container is a node of the resource hierarchy.
//
// Ids past the trace's containers are resources of one state type on a
// container holding states of several (see statetypes.go): a child of
// that container named "name [type]", with the container's type and
// life, and StateType set.
type Container struct {
	Name       string
	Type       string // container type name; "" for the root
	Parent     int32  // trace.None for the root
	Children   []int32
	Start, End trace.Time // life of the container
	// StateType names the state type of a per-type resource; "" for a
	// trace container.
	StateType string
}

// StateSums is the busy time of one state value on one container.
type StateSums struct {
	Container int32
	Value     int32  // trace value id; trace.None for time in no state
	Name      string // value name; NoStateName for time in no state
	Type      string // state type name; "" for time in no state
	Sums      Sums
}

// Result returns the sums once Finish has been called. It reports the
// first inconsistency found in the stream, and an *errs.ArgumentError
// when a state type or value named in the options is not in the trace or
// the window does not meet the trace.
func (a *Accumulator) Result() (*Result, error) {
	if a.err != nil {
		return nil, a.err
	}
	if !a.finished {
		return nil, errors.New("moments: the trace is not finished (Finish was not called)")
	}
	for i, ok := range a.typeMatched {
		if !ok {
			return nil, errs.Argument("state_types", "the trace has no state type %q", a.opt.StateTypes[i])
		}
	}
	for i, ok := range a.valueMatched {
		if !ok {
			return nil, errs.Argument("values", "no selected state type has a value named %q", a.opt.Values[i])
		}
	}
	r := &Result{Start: a.start, End: a.end, Origin: a.start, traceEnd: a.end, Types: a.defTypes, Values: a.defValues}
	if a.opt.Start != nil {
		r.Start = *a.opt.Start
	}
	if a.opt.End != nil {
		r.End = *a.opt.End
	}
	if r.End <= r.Start {
		if a.opt.Start == nil && a.opt.End == nil && a.start == a.end {
			return nil, errs.NoDuration(a.start.Seconds())
		}
		return nil, errs.Argument("window", "the window [%s, %s) does not meet the trace [%s, %s]", r.Start, r.End, a.start, a.end)
	}
	holds := map[int32]string{} // container type -> a selected state type it holds
	for _, t := range a.types {
		if !t.selected {
			continue
		}
		if other, dup := holds[t.parent]; dup && a.opt.Gaps {
			return nil, errs.Argument("gaps", "%s containers hold several selected state types (%q, %q), and time in no state is defined for one only; choose it with state_types",
				a.typeLabel(t.parent), other, t.name)
		}
		holds[t.parent] = t.name
	}
	r.Containers = make([]Container, len(a.containers))
	r.Busy = make([]Sums, len(a.containers))
	// perType[id][k]: the resource of the k-th split type of container id.
	perType := map[int32][]int32{}
	split := map[int32][]int32{} // by container type, see splitTypes
	for id := range a.containers {
		c := &a.containers[id]
		for i := range c.streams {
			c.streams[i].flushRun()
		}
		typ := ""
		if c.typ >= 0 && int(c.typ) < len(a.types) {
			typ = a.types[c.typ].name
		}
		r.Containers[id] = Container{Name: c.name, Type: typ, Parent: c.parent,
			Children: slices.Clone(c.children), Start: c.start, End: c.end}
		types, ok := split[c.typ]
		if !ok {
			types = a.splitTypes(c.typ)
			split[c.typ] = types
		}
		switch {
		case a.acrossTypes(c):
			r.Busy[id] = c.union.sums()
		case types != nil:
			// A resource per state type, before the container's children.
			var kids []int32
			for _, st := range types {
				k := int32(len(r.Containers))
				kids = append(kids, k)
				r.Containers = append(r.Containers, Container{Name: TypeResourceName(c.name, a.types[st].name), Type: typ,
					Parent: int32(id), Start: c.start, End: c.end, StateType: a.types[st].name})
				var busy Sums
				for i := range c.streams {
					if c.streams[i].typ == st {
						busy = c.streams[i].busy
					}
				}
				r.Busy = append(r.Busy, busy)
			}
			r.Containers[id].Children = append(kids, r.Containers[id].Children...)
			perType[int32(id)] = kids
		default:
			for i := range c.streams {
				r.Busy[id].Merge(c.streams[i].busy)
			}
		}
	}
	for _, id := range r.Order() {
		if int(id) >= len(a.containers) {
			r.Resources = append(r.Resources, id)
		} else if _, ok := holds[a.containers[id].typ]; ok && perType[id] == nil {
			r.Resources = append(r.Resources, id)
		}
	}
	// A resource's states are named by group (names.GroupsOf): the values
	// of a state type whose names group alike add up, under the first.
	written, typeName := make([]string, len(a.values)), make([]string, len(a.values))
	thread := make([]bool, len(a.values))
	for i, v := range a.values {
		written[i], typeName[i], thread[i] = v.name, a.types[v.typ].name, v.thread
	}
	grouped := names.GroupsOf(written, typeName, thread)
	type groupKey struct {
		container, typ int32
		name           string
	}
	index := map[groupKey]int{}
	r.States = r.States[:0]
	for _, s := range a.states {
		if s.Value == trace.None {
			s.Name = NoStateName
			r.States = append(r.States, s)
			continue
		}
		v := a.values[s.Value]
		s.Name, s.Type = grouped[s.Value], a.types[v.typ].name
		if kids := perType[s.Container]; kids != nil {
			s.Container = kids[slices.Index(split[a.containers[s.Container].typ], v.typ)]
		}
		k := groupKey{s.Container, v.typ, s.Name}
		if i, ok := index[k]; ok {
			r.States[i].Sums.Merge(s.Sums)
			r.States[i].Value = min(r.States[i].Value, s.Value)
			continue
		}
		index[k] = len(r.States)
		r.States = append(r.States, s)
	}
	slices.SortFunc(r.States, func(x, y StateSums) int {
		if x.Container != y.Container {
			return int(x.Container - y.Container)
		}
		return int(x.Value - y.Value)
	})
	return r, nil
}

// Order returns every container id in depth-first preorder from the root,
// children in creation order.
func (r *Result) Order() []int32 {
	order := make([]int32, 0, len(r.Containers))
	stack := []int32{0}
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		order = append(order, id)
		ch := r.Containers[id].Children
		for i := len(ch) - 1; i >= 0; i-- {
			stack = append(stack, ch[i])
		}
	}
	return order
}

// Subtree returns, by container id, the sums of every hierarchy node: the
// busy functions of the container itself and of all its descendants,
// added. A container's own states thus count in its node.
//
// A node's busy function counts how many of its resources are busy, so
// its m0 is their total busy time and 2 m2 >= m0 no longer holds; divide
// m0 by the number of resources for a per-resource scale.
func (r *Result) Subtree() []Sums {
	sub := slices.Clone(r.Busy)
	// A child is created after its parent: its id is larger.
	for id := len(sub) - 1; id > 0; id-- {
		sub[r.Containers[id].Parent].Merge(sub[id])
	}
	return sub
}

// Group returns the sums of the busy functions of the given containers'
// own states, added (a container listed twice counts twice).
func (r *Result) Group(ids []int32) (Sums, error) {
	var s Sums
	for _, id := range ids {
		if id < 0 || int(id) >= len(r.Busy) {
			return Sums{}, errs.Argument("containers", "no container %d (the trace has %d)", id, len(r.Busy))
		}
		s.Merge(r.Busy[id])
	}
	return s, nil
}

// Path returns the names from the root's child down to container id,
// joined by sep.
func (r *Result) Path(id int32, sep string) string {
	var names []string
	for c := id; c > 0; c = r.Containers[c].Parent {
		names = append(names, r.Containers[c].Name)
	}
	slices.Reverse(names)
	return strings.Join(names, sep)
}

func (a *Accumulator) typeLabel(id int32) string {
	if id == trace.None {
		return "root"
	}
	return fmt.Sprintf("%q", a.types[id].name)
}
