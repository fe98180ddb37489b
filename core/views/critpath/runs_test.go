package critpath

import (
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/partition"
	"github.com/macroscope-hpc/macroscope/core/readers/otf2/pyotf2"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestRunsAreApartOTF2 checks that two OTF2 runs read as one trace keep
// their collectives apart: each archive is a whole job (its
// MPI_COMM_WORLD its own), so run a's MPI_Allreduce (rank 0 enters at
// 100, rank 1 at 20) and run b's (20 and 60) are two operations, where
// a's rank 1 waits 80 ns for a's rank 0 and b's rank 0 waits 40 ns for
// b's rank 1. Taken as one operation of four ranks, as they were when the
// runs shared a communicator, three ranks waited for a's rank 0.
func TestRunsAreApartOTF2(t *testing.T) {
	write := func(enter [2]int) string {
		run := pyotf2.HybridRun{Duration: 210}
		for p, at := range enter {
			run.Threads = append(run.Threads, mpiRank(p, [2]int{200, 210}, collective{"MPI_Allreduce", [2]int{at, 120}, "ALLREDUCE", 0, ""}))
		}
		return pyotf2.WriteHybrid(t, run)
	}
	a, b := write([2]int{100, 20}), write([2]int{20, 60})
	plan, err := partition.PlanRuns([]string{a, b}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	src, err := partition.Runs(plan)
	if err != nil {
		t.Fatal(err)
	}
	tr := trace.New()
	if err := src.Read(tr, trace.ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	r, err := Compute(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	type wait struct {
		who, cause string
		wait       trace.Time
	}
	var got []wait
	run := func(path string) string { // "traces.otf2 (2)/machine/node/MPI Rank 1/..." -> "b/MPI Rank 1"
		run, _, _ := strings.Cut(path, "/")
		return map[bool]string{true: "b", false: "a"}[strings.HasSuffix(run, "(2)")] + "/" + strings.Split(path, "/")[3]
	}
	for w := range r.WaitCalls() {
		got = append(got, wait{run(r.Resources[w.Call.Resource]), run(r.Resources[w.Cause.Resource]), w.Wait})
	}
	want := []wait{{"a/MPI Rank 1", "a/MPI Rank 0", 80}, {"b/MPI Rank 0", "b/MPI Rank 1", 40}}
	slices.SortFunc(got, func(x, y wait) int { return strings.Compare(x.who, y.who) })
	if !slices.Equal(got, want) {
		t.Errorf("waits %v, want %v (resources %q)", got, want, r.Resources)
	}
}
