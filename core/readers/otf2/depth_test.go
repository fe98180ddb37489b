package otf2

import (
	"errors"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// chainDefs defines a chain of nodes system tree nodes, each the parent
// of the next, listed deepest first (each placed after its ancestors, a
// descent as long as the chain), with a process and its thread under the
// deepest: containers nodes + 2 levels deep.
func chainDefs(nodes int) *enc {
	e := &enc{}
	defClock(e, 1e9, 1000, 100)
	for id, s := range []string{"", "machine", "m0", "process", "P0", "P1", "thread", "main", "work", "MPI_COMM_WORLD", "power", "temp", "W"} {
		defStr(e, uint32(id), s)
	}
	for id := nodes - 1; id >= 0; id-- {
		parent := uint32(id - 1)
		if id == 0 {
			parent = undefined32
		}
		defNode(e, uint32(id), sM0, sMachine, parent)
	}
	defLGroup(e, 0, sP0, groupProcess, uint32(nodes-1))
	defLoc(e, 0, sThread, locationCPUThread, 0, 0)
	defRegionRec(e, regionMain, sMain)
	return e
}

// TestSystemTreeDepth: a system tree as deep as trace.MaxDepth allows is
// read whole; one level more is refused naming the node, where a chain of
// any length was read (a million nodes in 12 MB of definitions), into a
// hierarchy whose recursive walks overflow a goroutine's stack, a fatal
// error.
func TestSystemTreeDepth(t *testing.T) {
	tr, err := readSynthetic(t, testArchive{defs: chainDefs(trace.MaxDepth - 2).b})
	if err != nil {
		t.Fatal(err)
	}
	depth := 0
	for c := int32(len(tr.Containers) - 1); c > 0; c = tr.Containers[c].Parent {
		depth++
	}
	if depth != trace.MaxDepth {
		t.Errorf("the thread is %d levels deep, want %d", depth, trace.MaxDepth)
	}
	for _, nodes := range []int{trace.MaxDepth - 1, 20000} {
		_, err = readSynthetic(t, testArchive{defs: chainDefs(nodes).b})
		var fe *errs.FormatError
		if !errors.As(err, &fe) || !strings.HasSuffix(fe.File, "traces.def") ||
			!strings.Contains(err.Error(), "levels deep with its location groups and locations") {
			t.Errorf("%d nodes: %v, want a FormatError of traces.def saying the tree is too deep", nodes, err)
		}
	}
}
