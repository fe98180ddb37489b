package pjdump

import (
	"sort"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// index orders a trace the way PajeNG's dump walks it: the types a
// container type holds and the children of a container sorted by
// identifier, and the entities of one type in one container in the order
// PajeNG recorded them.
type index struct {
	t     *trace.Trace
	opt   writeOptions
	prec  int               // decimals of entity times and values
	types map[int32][]int32 // contained types by container type (trace.None: the root type)
	kids  [][]int32         // children of each container, sorted by identifier
	ents  map[slot]*dumpEntities
}

type slot struct{ container, typ int32 }

// entities lists indices into the trace's columns.
type dumpEntities struct {
	states, variables, links, events []int32
}

func newIndex(t *trace.Trace, opt writeOptions) *index {
	x := &index{t: t, opt: opt, prec: opt.decimals(), types: map[int32][]int32{}, kids: make([][]int32, len(t.Containers)), ents: map[slot]*dumpEntities{}}
	for i := range t.Types {
		p := t.Types[i].Parent
		x.types[p] = append(x.types[p], int32(i))
	}
	for p, list := range x.types {
		sort.SliceStable(list, func(i, j int) bool { return x.typeKey(list[i]) < x.typeKey(list[j]) })
		x.types[p] = list
	}
	for i := range t.Containers {
		kids := append([]int32(nil), t.Containers[i].Children...)
		sort.SliceStable(kids, func(a, b int) bool { return x.containerKey(kids[a]) < x.containerKey(kids[b]) })
		x.kids[i] = kids
	}
	at := func(c, ty int32) *dumpEntities {
		k := slot{c, ty}
		e := x.ents[k]
		if e == nil {
			e = &dumpEntities{}
			x.ents[k] = e
		}
		return e
	}
	for i := range t.States.Len() {
		s := t.States.At(i)
		e := at(s.Container, s.Type)
		e.states = append(e.states, int32(i))
	}
	for i, v := range t.Variables.All() {
		e := at(v.Container, v.Type)
		e.variables = append(e.variables, int32(i))
	}
	for i, l := range t.Links.Unkeyed() { // the keys are not needed
		e := at(l.Container, l.Type)
		e.links = append(e.links, int32(i))
	}
	for i, ev := range t.Events.All() {
		e := at(ev.Container, ev.Type)
		e.events = append(e.events, int32(i))
	}
	for _, e := range x.ents {
		// States in the order they began; variable pieces in time order.
		// Links and events are already in PajeNG's order: completion and
		// occurrence.
		sort.SliceStable(e.states, func(i, j int) bool {
			return t.States.At(int(e.states[i])).Order < t.States.At(int(e.states[j])).Order
		})
		sort.SliceStable(e.variables, func(i, j int) bool {
			return t.Variables.At(int(e.variables[i])).Start < t.Variables.At(int(e.variables[j])).Start
		})
	}
	return x
}

// typeKey is the identifier PajeNG files a type under: its alias, or its
// name as written in the file.
func (x *index) typeKey(id int32) string {
	ty := &x.t.Types[id]
	if ty.Alias != "" {
		return ty.Alias
	}
	return x.quote(ty.Name, ty.Quoted)
}

func (x *index) containerKey(id int32) string {
	c := &x.t.Containers[id]
	if c.Alias != "" && id != 0 {
		return c.Alias
	}
	return x.quote(c.Name, c.Quoted)
}

func (x *index) valueKey(id int32) string {
	v := &x.t.Values[id]
	if v.Alias != "" {
		return v.Alias
	}
	return x.quote(v.Name, v.Quoted)
}

// quote gives a name as the chosen PajeNG prints it.
func (x *index) quote(name string, quoted bool) string {
	if quoted && x.opt.Style == upstream {
		return `"` + name + `"`
	}
	return name
}

func (x *index) typeName(id int32) string {
	if id == trace.None {
		return "0"
	}
	return x.quote(x.t.Types[id].Name, x.t.Types[id].Quoted)
}

func (x *index) containerName(id int32) string {
	if id == 0 {
		return "0"
	}
	return x.quote(x.t.Containers[id].Name, x.t.Containers[id].Quoted)
}

func (x *index) valueName(id int32) string {
	return x.quote(x.t.Values[id].Name, x.t.Values[id].Quoted)
}

func (x *index) containerType(id int32) int32 {
	if id == 0 {
		return trace.None
	}
	return x.t.Containers[id].Type
}

// walk visits the containers depth first as PajeNG's dump does: a
// container, then for each type it holds (in identifier order) either its
// entities of that type or, for a container type, nothing yet: the children
// go on a stack, so the last child of the last container type comes next.
func (x *index) walk(visitContainer func(c int32), visitType func(c, ty int32)) {
	stack := []int32{0}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		visitContainer(c)
		for _, ty := range x.types[x.containerType(c)] {
			if x.t.Types[ty].Kind == trace.KindContainer {
				for _, k := range x.kids[c] {
					if x.t.Containers[k].Type == ty {
						stack = append(stack, k)
					}
				}
				continue
			}
			visitType(c, ty)
		}
	}
}
