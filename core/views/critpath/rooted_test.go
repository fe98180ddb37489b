package critpath

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/otf2/pyotf2"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// rootedRun is three ranks, in ns: MPI_Reduce to rank 0, which enters
// last (at 100), then MPI_Bcast from rank 1, which enters (at 250) after
// rank 0 (200) and before rank 2 (300); each call, enter and leave.
var rootedRun = []struct{ reduce, bcast [2]int }{
	{[2]int{100, 110}, [2]int{200, 260}},
	{[2]int{20, 25}, [2]int{250, 255}},
	{[2]int{30, 35}, [2]int{300, 305}},
}

// writeRootedOTF2 writes rootedRun as Score-P would, the collective
// records naming the operation and its root, through
// testdata/gen/hybrid_otf2.py.
func writeRootedOTF2(t *testing.T) string {
	t.Helper()
	run := pyotf2.HybridRun{Duration: 410}
	for p, r := range rootedRun {
		run.Threads = append(run.Threads, mpiRank(p, [2]int{400 + p, 410},
			collective{"MPI_Reduce", r.reduce, "REDUCE", 0, ""}, collective{"MPI_Bcast", r.bcast, "BCAST", 1, ""}))
	}
	return pyotf2.WriteHybrid(t, run)
}

// collective is a collective call of an OTF2 test run: its region, entry
// and exit, operation, root rank and communicator (the key of one of the
// run's Comms, "MPI_COMM_SELF", or "" for MPI_COMM_WORLD).
type collective struct {
	name string
	span [2]int
	op   string
	root int
	comm string
}

// mpiRank is rank p's main thread: main, MPI_Init over [0, 10], the
// collectives, then MPI_Finalize over finalize.
func mpiRank(p int, finalize [2]int, calls ...collective) pyotf2.Thread {
	th := pyotf2.Thread{Process: p}
	th.Add(0, "enter", "main")
	th.Add(0, "enter", "MPI_Init")
	th.Add(10, "leave", "MPI_Init")
	for _, c := range calls {
		th.Add(c.span[0], "enter", c.name)
		th.Add(c.span[0], "coll_begin")
		if c.comm == "" {
			th.Add(c.span[1], "coll_end", c.op, c.root)
		} else {
			th.Add(c.span[1], "coll_end", c.op, c.root, c.comm)
		}
		th.Add(c.span[1], "leave", c.name)
	}
	th.Add(finalize[0], "enter", "MPI_Finalize")
	th.Add(finalize[1], "leave", "MPI_Finalize")
	th.Add(finalize[1], "leave", "main")
	return th
}

// TestRootedCollectivesOTF2 checks that the roots OTF2's collective
// records name decide who waits: MPI_Reduce's ranks 1 and 2 do not wait
// for their root (all-to-one: only the root waits, and it came last),
// MPI_Bcast's rank 0 waits 50 ns for its root, rank 1, and rank 2, which
// entered after the root, not at all. Taken as all-to-all, as they were
// when the OTF2 reader dropped the roots, ranks 1 and 2 waited 5 ns in
// MPI_Reduce and ranks 0 and 1 for rank 2 in MPI_Bcast, and the path
// went through rank 0.
func TestRootedCollectivesOTF2(t *testing.T) {
	path := writeRootedOTF2(t)
	r, err := Compute(read(t, path, "otf2"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := waitsOf(r)
	want := []waitState{{"MPI Rank 0/Master thread", "MPI Rank 1/Master thread", 200, 50}}
	if !slices.Equal(got, want) {
		t.Errorf("wait states %+v, want %+v", got, want)
	}
	if len(r.Segments) != 1 || r.Resources[r.Segments[0].Resource] != "machine/node/MPI Rank 2/Master thread" ||
		r.Segments[0].Start != 10 || r.Segments[0].End != 402 {
		t.Errorf("path:\n%s", r)
	}
	sameAsReplay(t, r, path)
}

// TestSelfCommunicatorOTF2 checks that the collectives of several ranks
// on MPI_COMM_SELF, one OTF2 definition for all, are each rank's own: rank
// 0 reduces on it from 100 to 105 and rank 1 from 20 to 25, so no one
// waits. Paired as one collective, as they were when the communicator's
// name alone told collectives apart, rank 1 waited 5 ns for rank 0.
func TestSelfCommunicatorOTF2(t *testing.T) {
	run := pyotf2.HybridRun{Duration: 210}
	for p, reduce := range [][2]int{{100, 105}, {20, 25}} {
		run.Threads = append(run.Threads, mpiRank(p, [2]int{200, 210}, collective{"MPI_Reduce", reduce, "REDUCE", 0, "MPI_COMM_SELF"}))
	}
	path := pyotf2.WriteHybrid(t, run)
	r, err := Compute(read(t, path, "otf2"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for w, c := range r.WaitCalls() {
		t.Errorf("%s's call at %v waits %v for %s", r.Resources[w.Call.Resource], c.Enter, w.Wait, r.Resources[w.Cause.Resource])
	}
	sameAsReplay(t, r, path)
}

// TestCommunicatorsNamedAlike checks that communicators of different
// groups that share a name (an application naming each of its row
// communicators "row") are not one: ranks 0 and 1 reduce on one row, 0
// entering at 20 and 1 at 50; ranks 2 and 3 on the other, entering at 30
// and 31. Rank 0 waits 30 ns for rank 1 and rank 2 waits 1 ns for rank 3.
// Paired as one collective by the name, ranks 2 and 3 waited for rank 1.
func TestCommunicatorsNamedAlike(t *testing.T) {
	run := pyotf2.HybridRun{Duration: 210, Comms: map[string]pyotf2.Comm{
		"row0": {Name: "row", Ranks: []int{0, 1}},
		"row1": {Name: "row", Ranks: []int{2, 3}},
	}}
	for p, span := range [][2]int{{20, 55}, {50, 55}, {30, 35}, {31, 35}} {
		run.Threads = append(run.Threads, mpiRank(p, [2]int{200, 210}, collective{"MPI_Allreduce", span, "ALLREDUCE", 0, "row" + strconv.Itoa(p/2)}))
	}
	path := pyotf2.WriteHybrid(t, run)
	r, err := Compute(read(t, path, "otf2"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := waitsOf(r)
	want := []waitState{
		{"MPI Rank 0/Master thread", "MPI Rank 1/Master thread", 20, 30},
		{"MPI Rank 2/Master thread", "MPI Rank 3/Master thread", 30, 1},
	}
	if !slices.Equal(got, want) {
		t.Errorf("wait states %+v, want %+v", got, want)
	}
	sameAsReplay(t, r, path)
}

// waitState is a wait state as the tests above state them: the waiting
// and the causing resource (process/thread), the call's entry and the
// time waited.
type waitState struct {
	resource, cause string
	enter, wait     trace.Time
}

// waitsOf lists r's wait states by waiting resource, then entry.
func waitsOf(r *Result) []waitState {
	var got []waitState
	for w, c := range r.WaitCalls() {
		got = append(got, waitState{lastTwo(r.Resources[w.Call.Resource]), lastTwo(r.Resources[w.Cause.Resource]), c.Enter, w.Wait})
	}
	slices.SortStableFunc(got, func(a, b waitState) int {
		return cmp.Or(strings.Compare(a.resource, b.resource), cmp.Compare(a.enter, b.enter))
	})
	return got
}
