package kaleido

import (
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// FromSpawnLinks builds the spawn tree that the links of type linkType
// draw between containers: a link from container A to container B says
// that A created B (a goroutine its child, a process the one it forked).
// Each container at an end of such a link is one node. A container that
// no link creates hangs from a synthetic root (procedure "program", no
// PE); siblings are ordered by the moment they were created (the link's
// start; a root container's own start), ties in container order.
//
// A node's procedure is the value of the link that created it (the
// function a goroutine runs), or for a root container its name; its PE is
// its container (named by its path), so that a node tells which goroutine
// or process it is; its start is the link's start, the container's for a
// root. Row is the index of the creating link in t.Links, None for the
// root containers and the synthetic root. The container's own lifetime,
// from its Start to its End, is that of the invocation.
//
// A container created by two links, or links that close a cycle, are a
// *errs.FormatError; a link type the trace lacks, or with no links, an
// *errs.ArgumentError.
func FromSpawnLinks(t *trace.Trace, linkType string) (*Tree, error) {
	return FromSpawnLinksCancel(t, linkType, nil)
}

// FromSpawnLinksCancel is FromSpawnLinks stopped by cancel (nil: never):
// once it is closed, it returns trace.ErrComputationCanceled and no tree.
// It looks every trace.StopEvery links and nodes, and between its steps.
func FromSpawnLinksCancel(t *trace.Trace, linkType string, cancel <-chan struct{}) (*Tree, error) {
	use, err := selectTypes(t, trace.KindLink, "link_type", []string{linkType})
	if err != nil {
		return nil, err
	}
	inTree := make([]bool, len(t.Containers))
	created := make([]int32, len(t.Containers)) // the creating link + 1, 0 if none
	some := false
	for i, l := range t.Links.Unkeyed() { // the keys are not needed
		if i%trace.StopEvery == 0 {
			if err := trace.Stopped(cancel); err != nil {
				return nil, err
			}
		}
		if !use[l.Type] {
			continue
		}
		if created[l.To] != 0 {
			return nil, traceError(t, "container %s is created twice, by links %d and %d of type %q",
				t.ContainerPath(l.To, PathSep), created[l.To]-1, i, linkType)
		}
		created[l.To] = int32(i) + 1
		inTree[l.From], inTree[l.To], some = true, true, true
	}
	if !some {
		return nil, errs.Argument("link_type", "no links of type %q in the trace to build a spawn tree from", linkType)
	}
	// Row 0 is the synthetic root, then a row per container in container
	// order, so that ties of start times keep it.
	rowOf := make([]int32, len(t.Containers))
	var order []int32 // the container of row r+1
	for c, in := range inTree {
		if in {
			order = append(order, int32(c))
			rowOf[c] = int32(len(order))
		}
	}
	n := len(order) + 1
	parent := make([]int32, n)
	start := make([]trace.Time, n)
	link := make([]int32, n)
	parent[0], link[0] = None, None
	first := true
	for r, c := range order {
		if r%trace.StopEvery == 0 {
			if err := trace.Stopped(cancel); err != nil {
				return nil, err
			}
		}
		row := r + 1
		if l := created[c] - 1; l >= 0 {
			by := t.Links.At(int(l))
			parent[row], link[row], start[row] = rowOf[by.From], l, by.Start
		} else {
			parent[row], link[row], start[row] = 0, None, t.Containers[c].Start
		}
		if first || start[row] < start[0] {
			start[0], first = start[row], false
		}
	}
	shape, unreached, err := preorder(parent, 0, byStart(start), &trace.Looker{Cancel: cancel})
	if err != nil {
		return nil, err
	}
	if err := trace.Stopped(cancel); err != nil {
		return nil, err
	}
	if unreached != nil {
		return nil, traceError(t, "links of type %q form a cycle through container %s",
			linkType, t.ContainerPath(order[unreached[0]-1], PathSep))
	}

	tree := &Tree{Parent: shape.parent, Depth: shape.depth, End: shape.end, Height: shape.height,
		Start: permute(start, shape.row), Row: permute(link, shape.row), Origin: t.Start}
	tree.Procedure = make([]int32, n)
	tree.PE = make([]int32, n)
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
	for _, c := range order { // PEs in container order
		tree.PEs = append(tree.PEs, t.ContainerPath(c, PathSep))
	}
	for v, row := range shape.row {
		if v%trace.StopEvery == 0 {
			if err := trace.Stopped(cancel); err != nil {
				return nil, err
			}
		}
		if row == 0 {
			tree.Procedure[v], tree.PE[v] = procedure("program"), None
			continue
		}
		c := order[row-1]
		if l := link[row]; l != None {
			tree.Procedure[v] = procedure(t.ValueName(t.Links.At(int(l)).Value))
		} else {
			tree.Procedure[v] = procedure(t.Containers[c].Name)
		}
		tree.PE[v] = row - 1
	}
	return tree, nil
}
