package moments

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/partition"
	"github.com/macroscope-hpc/macroscope/core/readers/hpctoolkit/hpcsynth"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// corpus returns the path of a trace of the shared corpus, skipping the
// test when it is absent.
func corpus(t *testing.T, parts ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{"..", "..", "..", "..", "shared", "traces"}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("corpus trace absent: %v", err)
	}
	return p
}

// writeKineto writes the Kineto trace of a rank of a PyTorch job: six
// profiler steps, each a matrix product and its kernels.
func writeKineto(t *testing.T, dir string, rank int) string {
	var ev []string
	for step := range 6 {
		base := 1000*step + 37*rank
		ev = append(ev,
			fmt.Sprintf(`{"ph":"X","cat":"cpu_op","name":"ProfilerStep#%d","pid":%d,"tid":1,"ts":%d,"dur":900}`, step, 100+rank, base),
			fmt.Sprintf(`{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":%d,"tid":1,"ts":%d,"dur":300}`, 100+rank, base+50),
			fmt.Sprintf(`{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":%d,"tid":1,"ts":%d,"dur":20}`, 100+rank, base+60),
			fmt.Sprintf(`{"ph":"X","cat":"kernel","name":"gemm_%d","pid":0,"tid":7,"ts":%d,"dur":%d}`, step%2, base+100, 200+rank*10),
			fmt.Sprintf(`{"ph":"X","cat":"kernel","name":"nccl:all_reduce","pid":0,"tid":8,"ts":%d,"dur":150}`, base+400))
	}
	doc := fmt.Sprintf(`{"distributedInfo":{"rank":%d},"traceEvents":[%s]}`, rank, strings.Join(ev, ","))
	path := filepath.Join(dir, fmt.Sprintf("rank%d.json", rank))
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// momentsOf computes the moments of a plan's parts apart, on the window of
// their extents, and merges them in a tree, as a cluster does.
func momentsOf(t *testing.T, plan *partition.Plan) []Row {
	t.Helper()
	start, end := trace.Time(math.MaxInt64), trace.Time(math.MinInt64)
	for _, p := range plan.Parts {
		s, e, err := partition.Extent(p, false, trace.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		start, end = min(start, s), max(end, e)
	}
	var results []*Result
	for _, p := range plan.Parts {
		r, err := ComputePart(p, Options{}, start, end, trace.ReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", p.Label, err)
		}
		data, err := r.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if r, err = UnmarshalResult(data); err != nil {
			t.Fatal(err)
		}
		results = append(results, r)
	}
	for len(results) > 1 {
		var next []*Result
		for i := 0; i+1 < len(results); i += 2 {
			m, err := Merge(results[i], results[i+1])
			if err != nil {
				t.Fatal(err)
			}
			next = append(next, m)
		}
		if len(results)%2 == 1 {
			next = append(next, results[len(results)-1])
		}
		results = next
	}
	rows, err := results[0].Rows(ByResource)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func wholeMoments(t *testing.T, src *ingest.Source) []Row {
	t.Helper()
	acc, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Read(acc, trace.ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	r, err := acc.Result()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := r.Rows(ByResource)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func sameRows(t *testing.T, got, want []Row) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	busy := 0
	for i := range want {
		g, w := got[i], want[i]
		if g.Path != w.Path || g.Start != w.Start || g.End != w.End || g.Resources != w.Resources {
			t.Fatalf("row %d: %s [%d, %d], want %s [%d, %d]", i, g.Path, g.Start, g.End, w.Path, w.Start, w.End)
		}
		gm, wm := g.Sums.Moments(), w.Sums.Moments()
		// Printed, so that the NaN moments of a resource without states
		// compare equal.
		if fmt.Sprintf("%+v", gm) != fmt.Sprintf("%+v", wm) {
			t.Fatalf("row %d (%s): moments %+v, want %+v", i, w.Path, gm, wm)
		}
		for k := range 4 {
			if math.Float64bits(g.Sums.Power(k)) != math.Float64bits(w.Sums.Power(k)) {
				t.Fatalf("row %d (%s): P%d = %v, want %v", i, w.Path, k, g.Sums.Power(k), w.Sums.Power(k))
			}
		}
		if !w.Sums.Empty() {
			busy++
		}
	}
	if busy == 0 {
		t.Fatal("no resource is busy: nothing compared")
	}
}

func TestMomentsOTF2LocationGroups(t *testing.T) {
	path := corpus(t, "tracer-stencil4d", "stencil4d-otf", "traces-64", "traces.otf2")
	plan, err := partition.PlanFile(path, "", nil, 7)
	if err != nil {
		t.Fatal(err)
	}
	src, _, err := formats.Open(path, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	sameRows(t, momentsOf(t, plan), wholeMoments(t, src))
}

func TestMomentsRuns(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for rank := range 3 {
		paths = append(paths, writeKineto(t, dir, rank))
	}
	plan, err := partition.PlanRuns(paths, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	src, err := partition.Runs(plan)
	if err != nil {
		t.Fatal(err)
	}
	sameRows(t, momentsOf(t, plan), wholeMoments(t, src))
}

// The moments of pj_dump output: one part (byte ranges would split a
// resource's states), equal to the whole read's; the reader destroys the
// containers at the end, after their entities, which the moments follow.
func TestPjdumpMoments(t *testing.T) {
	path := corpus(t, "pajeng", "oracles", "032_pj_dump_simu_mardi_trace.out")
	plan, err := partition.PlanFile(path, "pjdump", nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	src, _, err := formats.Open(path, "pjdump", nil)
	if err != nil {
		t.Fatal(err)
	}
	got := momentsOf(t, plan)
	sameRows(t, got, wholeMoments(t, src))
	// 202 rows: the 101 HOST container lines times the two state types
	// of HOST (PM and SERVICE in pj_dump's type hierarchy, oracle 063),
	// a resource each.
	if len(got) != 202 {
		t.Fatalf("%d rows", len(got))
	}
}

// The parts of an HPCToolkit database are its trace lines, a resource
// each: the moments add up exactly.
func TestHPCToolkitMoments(t *testing.T) {
	check := func(t *testing.T, path string, counts ...int) {
		for _, n := range counts {
			t.Run(fmt.Sprint(n), func(t *testing.T) {
				plan, err := partition.PlanFile(path, "", nil, n)
				if err != nil {
					t.Fatal(err)
				}
				src, _, err := formats.Open(path, "", nil)
				if err != nil {
					t.Fatal(err)
				}
				sameRows(t, momentsOf(t, plan), wholeMoments(t, src))
			})
		}
	}
	// 2 ranks x 3 threads and a GPU stream: 7 lines.
	t.Run("synthetic", func(t *testing.T) {
		dir := t.TempDir()
		if err := hpcsynth.Write(dir, 2, 3); err != nil {
			t.Fatal(err)
		}
		check(t, dir, 1, 2, 3, 7, 100)
	})
	for _, db := range [][]string{{"hpctoolkit-db", "multithread"}, {"hpctoolkit-db", "issue-233-lulesh"}, {"hpctoolkit-db", "xml", "vectorAdd"}} {
		t.Run(strings.Join(db, "/"), func(t *testing.T) { check(t, corpus(t, db...), 1, 2, 3, 7, 1000) })
	}
}
