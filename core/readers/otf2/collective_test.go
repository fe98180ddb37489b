package otf2

import (
	"fmt"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// OTF2's MpiCollectiveEnd names its root as a rank of the communicator,
// or by one of OTF2_CollectiveRoot's special values.
const (
	rootNone      = 1<<32 - 1 // OTF2_COLLECTIVE_ROOT_NONE (OTF2_UNDEFINED_UINT32): an unrooted operation
	rootSelf      = 1<<32 - 2 // OTF2_COLLECTIVE_ROOT_SELF: MPI_ROOT, on an inter-communicator
	rootThisGroup = 1<<32 - 3 // OTF2_COLLECTIVE_ROOT_THIS_GROUP: MPI_PROC_NULL, likewise
)

// OTF2's CollectiveOp codes of the operations below.
const opBcast, opGather, opAllreduce, opReduce = 1, 2, 11, 12

// TestCollectiveRoots checks that the "MPI collective" event has the alias
// "root" on the location that holds the record's root rank through the
// communicator's rank table, and only there: on "R", whose rank 0 is
// location 1 (P1), rank 0 is not location 0; on MPI_COMM_WORLD rank 0 is
// location 0; on a self communicator rank 0 is the caller, and each
// location's is a communicator of its own (named apart, else the two
// MPI_Reduce would be paired as one collective of two members). The special
// values and a rank past the communicator's size mark no root, and are
// not errors.
func TestCollectiveRoots(t *testing.T) {
	const sR, commReversed = 13, 2
	defs := baseDefs(false)
	defStr(defs, sR, "R")
	defGroupRec(defs, 3, groupTypeCommGroup, paradigmMPI, 1, 0)
	defCommRec(defs, commReversed, sR, 3)

	collective := func(e *enc, at uint64, op uint8, comm, root uint32) {
		evTime(e, at)
		e.rec(evMpiCollectiveEnd, false, func(r *enc) { r.u8(op).u32(comm).u32(root).u64(8).u64(8) })
	}
	l0, l1 := &enc{}, &enc{}
	collective(l0, 1001, opReduce, commReversed, 0)
	collective(l1, 1001, opReduce, commReversed, 0)
	collective(l0, 1002, opBcast, commWorld, 0)
	collective(l1, 1002, opBcast, commWorld, 0)
	collective(l0, 1003, opReduce, commSelf, 0)
	collective(l1, 1003, opReduce, commSelf, 0)
	collective(l0, 1004, opAllreduce, commWorld, rootNone)
	collective(l0, 1005, opBcast, commWorld, rootSelf)
	collective(l1, 1005, opBcast, commWorld, rootThisGroup)
	collective(l0, 1006, opGather, commWorld, 2)
	tr, err := readSynthetic(t, testArchive{defs: defs.b, locations: map[uint64][]byte{
		0: chunked(false, 0, l0.b), 1: chunked(false, 0, l1.b),
	}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range tr.Events.All() {
		v := tr.Values[e.Value]
		got = append(got, fmt.Sprintf("%s %s on %s alias %q at %v",
			tr.Containers[tr.Containers[e.Container].Parent].Name, v.Name, v.Category, v.Alias, e.Time))
		// The roles the analyses of message passing read (trace.Role).
		if r := tr.Types[e.Type].Role; r != trace.RoleCollectiveEnd {
			t.Errorf("type %s has role %d, want RoleCollectiveEnd", tr.Types[e.Type].Name, r)
		}
		if want := map[bool]trace.Role{true: trace.RoleRoot}[v.Alias == "root"]; v.Role != want {
			t.Errorf("value %s alias %q has role %d, want %d", v.Name, v.Alias, v.Role, want)
		}
		if ty := tr.Types[tr.Containers[e.Container].Type]; ty.Role != trace.RoleThread {
			t.Errorf("location type %s has role %d, want RoleThread", ty.Name, ty.Role)
		}
	}
	sameList(t, got, []string{
		`P0 REDUCE on R alias "" at 0.000000001`,
		`P1 REDUCE on R alias "root" at 0.000000001`,
		`P0 BCAST on MPI_COMM_WORLD alias "root" at 0.000000002`,
		`P1 BCAST on MPI_COMM_WORLD alias "" at 0.000000002`,
		`P0 REDUCE on Comm 1 of location 0 alias "root" at 0.000000003`,
		`P1 REDUCE on Comm 1 of location 1 alias "root" at 0.000000003`,
		`P0 ALLREDUCE on MPI_COMM_WORLD alias "" at 0.000000004`,
		`P0 BCAST on MPI_COMM_WORLD alias "" at 0.000000005`,
		`P1 BCAST on MPI_COMM_WORLD alias "" at 0.000000005`,
		`P0 GATHER on MPI_COMM_WORLD alias "" at 0.000000006`,
	})
}

// TestCommNamedLikeAnID: communicators without a name of their own are
// named by their ID, "Comm 1"; when the file defines another communicator
// by that very name, the two stay apart in the "MPI collective" events'
// categories, which the analyses pair calls by: the unnamed self
// communicator 1 beside a communicator named "Comm 1", the unnamed
// communicator 4 of the world's group beside one named "Comm 4", an
// undefined communicator 9 beside one named "Comm 9". An ID no name takes
// keeps its plain name.
func TestCommNamedLikeAnID(t *testing.T) {
	const sComm1, sComm9, sComm4, commNamed1, commNamed9, commUnnamed4, commNamed4 = 13, 14, 15, 2, 3, 4, 5
	defs := baseDefs(false)
	defStr(defs, sComm1, "Comm 1")
	defStr(defs, sComm9, "Comm 9")
	defStr(defs, sComm4, "Comm 4")
	defCommRec(defs, commNamed1, sComm1, 1)
	defCommRec(defs, commNamed9, sComm9, 1)
	defCommRec(defs, commUnnamed4, sEmpty, 1)
	defCommRec(defs, commNamed4, sComm4, 1)

	collective := func(e *enc, at uint64, comm uint32) {
		evTime(e, at)
		e.rec(evMpiCollectiveEnd, false, func(r *enc) { r.u8(opAllreduce).u32(comm).u32(rootNone).u64(8).u64(8) })
	}
	l0 := &enc{}
	collective(l0, 1001, commSelf)
	collective(l0, 1002, commNamed1)
	collective(l0, 1003, 9)
	collective(l0, 1004, commNamed9)
	collective(l0, 1005, 7)
	collective(l0, 1006, commUnnamed4)
	collective(l0, 1007, commNamed4)
	tr, err := readSynthetic(t, testArchive{defs: defs.b, locations: map[uint64][]byte{0: chunked(false, 0, l0.b)}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range tr.Events.All() {
		got = append(got, tr.Values[e.Value].Category)
	}
	sameList(t, got, []string{"Comm 1 (unnamed) of location 0", "Comm 1", "Comm 9 (unresolved)", "Comm 9", "Comm 7", "Comm 4 (unnamed)", "Comm 4"})
}
