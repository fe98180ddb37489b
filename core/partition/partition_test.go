package partition

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// corpus returns the path of a trace of the shared corpus, skipping the
// test when it is absent.
func corpus(t *testing.T, parts ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{"..", "..", "..", "shared", "traces"}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("corpus trace absent: %v", err)
	}
	return p
}

// distributed builds the model as a cluster would: the extent of every
// part, a partial per part on the window they give, merged in a tree.
func distributed(t *testing.T, plan *Plan, opt micro.Options) *micro.Model {
	t.Helper()
	start, end := trace.Time(math.MaxInt64), trace.Time(math.MinInt64)
	for _, p := range plan.Parts {
		s, e, err := Extent(p, true, trace.ReadOptions{})
		if err != nil {
			t.Fatalf("extent of %s: %v", p.Label, err)
		}
		start, end = min(start, s), max(end, e)
	}
	if opt.Start != nil {
		start = *opt.Start
	}
	if opt.End != nil {
		end = *opt.End
	}
	var partials []*micro.Partial
	for _, p := range plan.Parts {
		part, err := Build(p, opt, start, end, trace.ReadOptions{})
		if err != nil {
			t.Fatalf("partial of %s: %v", p.Label, err)
		}
		// Through the bytes a worker sends.
		data, err := part.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if part, err = micro.UnmarshalPartial(data); err != nil {
			t.Fatal(err)
		}
		partials = append(partials, part)
	}
	// A tree reduction, pairs of neighbours, as the Python side does.
	for len(partials) > 1 {
		var next []*micro.Partial
		for i := 0; i < len(partials); i += 2 {
			if i+1 == len(partials) {
				next = append(next, partials[i])
				continue
			}
			m, err := micro.Merge(plan.Order, partials[i], partials[i+1])
			if err != nil {
				t.Fatal(err)
			}
			next = append(next, m)
		}
		partials = next
	}
	m, err := partials[0].Model()
	if err != nil {
		t.Fatalf("model of the merged partials: %v", err)
	}
	return m
}

// same fails unless the two models are identical, bit for bit.
func same(t *testing.T, what string, got, want *micro.Model) {
	t.Helper()
	if got.Start != want.Start || got.End != want.End || got.Slices != want.Slices || got.Metric != want.Metric {
		t.Fatalf("%s: window %d-%d/%d %q, want %d-%d/%d %q", what, got.Start, got.End, got.Slices, got.Metric,
			want.Start, want.End, want.Slices, want.Metric)
	}
	if !reflect.DeepEqual(got.States, want.States) {
		t.Fatalf("%s: categories\n%q\nwant\n%q", what, got.States, want.States)
	}
	if !reflect.DeepEqual(got.Tree.Names, want.Tree.Names) || !reflect.DeepEqual(got.Tree.Parent, want.Tree.Parent) {
		t.Fatalf("%s: hierarchies differ: %d nodes, want %d", what, got.Tree.Len(), want.Tree.Len())
	}
	if got.IsSparse() != want.IsSparse() {
		t.Fatalf("%s: sparse %v, want %v", what, got.IsSparse(), want.IsSparse())
	}
	gotValues, wantValues := got.Dense(), want.Dense()
	if len(gotValues) != len(wantValues) {
		t.Fatalf("%s: %d cells, want %d", what, len(gotValues), len(wantValues))
	}
	nonzero := 0
	for i, v := range wantValues {
		if math.Float64bits(gotValues[i]) != math.Float64bits(v) {
			t.Fatalf("%s: cell %d is %v, want %v", what, i, gotValues[i], v)
		}
		if v != 0 {
			nonzero++
		}
	}
	if nonzero == 0 {
		t.Fatalf("%s: the model is empty: nothing compared", what)
	}
}

// whole is the single-process model of a file.
func whole(t *testing.T, path, format string, opt micro.Options) *micro.Model {
	t.Helper()
	src, _, err := formats.Open(path, format, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := micro.FromSource(src, opt, trace.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// options are the models every kind of part is checked on.
func options() map[string]micro.Options {
	return map[string]micro.Options{
		"states/innermost/37": {Slices: 37, Depth: micro.Innermost},
		"states/depth0/10":    {Slices: 10, Depth: 0},
		"average/20":          {Slices: 20, Depth: micro.Innermost, Metric: micro.StateAverageDuration},
		"events/13":           {Slices: 13, Metric: micro.EventCount},
		"variables/11":        {Slices: 11, Metric: micro.VariableAverage},
	}
}

func checkFile(t *testing.T, path string, n int, wantParts int, kinds ...string) {
	plan, err := PlanFile(path, "", nil, n)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Parts) != wantParts {
		t.Fatalf("%d parts, want %d", len(plan.Parts), wantParts)
	}
	for name, opt := range options() {
		if !contains(kinds, strings.Split(name, "/")[0]) {
			continue
		}
		t.Run(name, func(t *testing.T) {
			same(t, name, distributed(t, plan, opt), whole(t, path, "", opt))
		})
	}
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func TestOTF2LocationGroups(t *testing.T) {
	for _, tc := range []struct {
		path  []string
		parts int
	}{
		{[]string{"tracer-stencil4d", "stencil4d-otf", "traces-64", "traces.otf2"}, 64},
		{[]string{"pipit", "tests", "data", "ping-pong-otf2", "traces.otf2"}, 2},
		{[]string{"fastotf2", "sample-traces", "simple-mi300-example-run", "traces.otf2"}, -1},
	} {
		t.Run(tc.path[0], func(t *testing.T) {
			path := corpus(t, tc.path...)
			if tc.parts < 0 {
				groups, err := PlanFile(path, "", nil, 1000)
				if err != nil {
					t.Fatal(err)
				}
				tc.parts = len(groups.Parts)
			}
			checkFile(t, path, 1000, tc.parts, "states", "average", "events")
			if tc.parts > 3 {
				// Consecutive location groups together.
				checkFile(t, path, 3, 3, "states", "events")
			}
		})
	}
}

// writePRV writes a small Paraver trace: 2 tasks of 2 threads, states and
// events interleaved in time order.
func writePRV(t *testing.T) string {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("#Paraver (01/01/2024 at 00:00):1000000_ns:0:1:2(2:0,2:0)\n")
	states := []int{1, 2, 3, 1, 7}
	for i := range 400 {
		task, thread := i%2+1, (i/2)%2+1
		begin := i * 2400
		fmt.Fprintf(&b, "1:0:1:%d:%d:%d:%d:%d\n", task, thread, begin, begin+1700+i%500, states[i%len(states)])
		fmt.Fprintf(&b, "2:0:1:%d:%d:%d:5000%d:%d\n", task, thread, begin+10, i%3, i%4)
	}
	path := filepath.Join(dir, "t.prv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	pcf := "STATES\n1 Running\n2 Not created\n3 Waiting\n7 Blocked\n\nEVENT_TYPE\n0 50000 User function\nVALUES\n1 main\n2 solve\n"
	if err := os.WriteFile(filepath.Join(dir, "t.pcf"), []byte(pcf), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestParaverRanges(t *testing.T) {
	path := writePRV(t)
	ranges, _ := PlanFile(path, "", nil, 5)
	if len(ranges.Parts) != 5 {
		t.Fatalf("%d ranges, want 5", len(ranges.Parts))
	}
	checkFile(t, path, 5, 5, "states", "average", "events")
}

func TestParaverCorpus(t *testing.T) {
	path := corpus(t, "paraver-folding", "namd", "444.namd.prv")
	checkFile(t, path, 7, 7, "states", "events")
}

// writeKineto writes the trace of one rank: CPU ops nested in a step,
// kernels on a GPU stream, as PyTorch's profiler does.
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

func checkRuns(t *testing.T, paths []string, kinds ...string) {
	plan, err := PlanRuns(paths, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, opt := range options() {
		if !contains(kinds, strings.Split(name, "/")[0]) {
			continue
		}
		t.Run(name, func(t *testing.T) {
			src, err := Runs(plan)
			if err != nil {
				t.Fatal(err)
			}
			want, _, err := micro.FromSource(src, opt, trace.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got := distributed(t, plan, opt)
			same(t, name, got, want)
			// A level per run at the top of the hierarchy.
			if k := len(got.Tree.Children[0]); k != len(paths) {
				t.Fatalf("%d children of the root, want a run per file (%d)", k, len(paths))
			}
		})
	}
}

func TestKinetoRanks(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for rank := range 4 {
		paths = append(paths, writeKineto(t, dir, rank))
	}
	checkRuns(t, paths, "states", "average")
}

func TestKinetoCorpus(t *testing.T) {
	checkRuns(t, []string{
		// Two ranks of one job.
		corpus(t, "hta", "tests", "data", "trace_filter", "sampled_rank-0.json.gz"),
		corpus(t, "hta", "tests", "data", "trace_filter", "sampled_rank-1.json.gz"),
	}, "states", "average")
}

func TestRunsOfOTF2(t *testing.T) {
	checkRuns(t, []string{
		corpus(t, "pipit", "tests", "data", "ping-pong-otf2", "traces.otf2"),
		corpus(t, "pipit", "tests", "data", "ping-pong-otf2-papi", "traces.otf2"),
	}, "states", "average", "events")
}

// A window guessed wrong is never a silent error: the model of the merged
// partials refuses it, and their extent gives the right one.
func TestWrongWindowIsRefused(t *testing.T) {
	path := writePRV(t)
	plan, err := PlanFile(path, "", nil, 3)
	if err != nil {
		t.Fatal(err)
	}
	opt := micro.Options{Slices: 10, Depth: micro.Innermost}
	var parts []*micro.Partial
	for _, p := range plan.Parts {
		part, err := Build(p, opt, 0, 500_000, trace.ReadOptions{}) // the trace lasts 1 ms
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, part)
	}
	merged, err := micro.Merge(plan.Order, parts...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := merged.Model(); !errors.Is(err, micro.ErrWindow) {
		t.Fatalf("model on a wrong window: %v, want ErrWindow", err)
	}
	if merged.Start != 0 || merged.End != 1_000_000 {
		t.Fatalf("merged extent [%d, %d], want [0, 1000000] (the header's duration)", merged.Start, merged.End)
	}
}

// The OTF2 guess of the extent, from the clock properties, is the extent
// of the corpus archives.
func TestOTF2ProbeIsTheExtent(t *testing.T) {
	path := corpus(t, "tracer-stencil4d", "stencil4d-otf", "traces-64", "traces.otf2")
	plan, err := PlanFile(path, "", nil, 64)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range plan.Parts[:4] {
		gs, ge, err := Extent(p, true, trace.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		s, e, err := Extent(p, false, trace.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if gs != s || ge < e {
			t.Fatalf("%s: guessed [%d, %d], read [%d, %d]", p.Label, gs, ge, s, e)
		}
	}
}

// TestParaverSideFileNotesOnce: the remarks on a .pcf and .row, which
// every part of a Paraver trace makes, are said once.
func TestParaverSideFileNotesOnce(t *testing.T) {
	path := writePRV(t)
	dir := filepath.Dir(path)
	if err := os.WriteFile(filepath.Join(dir, "t.row"), []byte("LEVEL THREAD SIZE 1\nmain\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "t.pcf"), []byte("STATES\n1 Running\n1 Run\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plan, err := PlanFile(path, "", nil, 5)
	if err != nil || len(plan.Parts) != 5 {
		t.Fatalf("%v, %d parts", err, len(plan.Parts))
	}
	notes := &trace.Notes{}
	if _, _, err := Local(plan, micro.Options{Slices: 10, Depth: micro.Innermost}, trace.ReadOptions{Notes: notes}, 2); err != nil {
		t.Fatal(err)
	}
	want := []string{
		filepath.Join(dir, "t.pcf") + ":3: STATES: state 1 is given again (first at line 2); the last one is kept, as Paraver keeps it",
		filepath.Join(dir, "t.row") + ":1: LEVEL THREAD names 1 resources, the trace has 4: the last 3 keep their default names, as Paraver names them",
	}
	if got := notes.Messages(); !slices.Equal(got, want) {
		t.Errorf("notes\n%q\nwant\n%q", got, want)
	}
}
