package pjdump

import (
	"bufio"
	"io"
	"sort"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// writeEntityHierarchy writes the container hierarchy as pj_dump
// --entity-hierarchy does: one line per container and, under it, one line
// per entity type its type holds.
func writeEntityHierarchy(w io.Writer, t *trace.Trace, opt writeOptions) error {
	x := newIndex(t, opt)
	bw := bufio.NewWriter(w)
	bw.WriteString("Parent, Name, Type, Nature\n")
	x.walk(func(c int32) {
		parent := "0"
		if c != 0 {
			parent = x.containerName(t.Containers[c].Parent)
		}
		bw.WriteString(parent + ", " + x.containerName(c) + ", " + x.typeName(x.containerType(c)) + ", Container\n")
	}, func(c, ty int32) {
		name := x.typeName(ty)
		bw.WriteString(x.containerName(c) + ", " + name + ", " + name + ", " + t.Types[ty].Kind.String() + "\n")
	})
	return bw.Flush()
}

// writeTypeHierarchy writes the type hierarchy as pj_dump --type-hierarchy
// does: depth first, the types a container type holds in reverse identifier
// order, each followed by its values in identifier order.
func writeTypeHierarchy(w io.Writer, t *trace.Trace, opt writeOptions) error {
	x := newIndex(t, opt)
	values := map[int32][]int32{}
	for i := range t.Values {
		values[t.Values[i].Type] = append(values[t.Values[i].Type], int32(i))
	}
	for _, list := range values {
		sort.SliceStable(list, func(i, j int) bool { return x.valueKey(list[i]) < x.valueKey(list[j]) })
	}
	bw := bufio.NewWriter(w)
	bw.WriteString("Parent, Name, Nature\n")
	stack := []int32{trace.None}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if p != trace.None && t.Types[p].Kind != trace.KindContainer {
			continue
		}
		children := x.types[p]
		for i := len(children) - 1; i >= 0; i-- {
			ty := children[i]
			bw.WriteString(x.typeName(p) + ", " + x.typeName(ty) + ", " + t.Types[ty].Kind.String() + "\n")
			switch t.Types[ty].Kind {
			case trace.KindState, trace.KindEvent, trace.KindLink:
				for _, v := range values[ty] {
					bw.WriteString(x.typeName(ty) + ", " + x.valueName(v) + ", Value\n")
				}
			}
			stack = append(stack, ty)
		}
	}
	return bw.Flush()
}
