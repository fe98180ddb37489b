package partition

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// writeSteps writes a Kineto trace of steps training steps, each an
// annotation numbered as PyTorch numbers them ("ProfilerStep#N"), with
// CPU operators nested in it and a kernel on a GPU stream.
func writeSteps(t *testing.T, path string, steps int) {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"traceEvents":[`)
	for step := range steps {
		base := 1000 * step
		if step > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"ph":"X","cat":"user_annotation","name":"ProfilerStep#%d","pid":1,"tid":1,"ts":%d,"dur":900},`, step, base)
		fmt.Fprintf(&b, `{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":%d,"dur":300},`, base+50)
		fmt.Fprintf(&b, `{"ph":"X","cat":"cpu_op","name":"aten::add_","pid":1,"tid":1,"ts":%d,"dur":200},`, base+400)
		fmt.Fprintf(&b, `{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":%d,"dur":%d}`, base+100, 200+step%7)
	}
	b.WriteString(`]}`)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// The partial models of a run's files are all held until they are merged
// (Local): each must weigh what its categories need, not a column of
// every slice per numbered instance ("ProfilerStep#N", which the model
// counts as one category), or the read of many files peaks at the sum
// of theirs. Measured on the live heap (allocations, not time): the
// growth with each partial held stays near what its definitions weigh,
// and the partials' columns are the (container, category) pairs that
// received time, counted apart. The model of the merged partials is the
// one stream's.
func TestManyFilesBoundedPartials(t *testing.T) {
	const steps, files, slices = 4000, 6, 100
	path := filepath.Join(t.TempDir(), "rank.json")
	writeSteps(t, path, steps)
	paths := make([]string, files)
	for i := range paths {
		paths[i] = path
	}
	plan, err := PlanRuns(paths, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	start, end, err := Extent(plan.Parts[0], true, trace.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, metric := range []micro.Metric{micro.StateDuration, micro.StateAverageDuration} {
		t.Run(string(metric), func(t *testing.T) {
			// The step annotations are the profiler's spans, left out of a
			// default model: kept here, they are the value per step whose
			// definitions each partial must hold in bounded memory.
			opt := micro.Options{Slices: slices, Depth: micro.Innermost, Metric: metric, ProfilerSpans: true}
			partials := make([]*micro.Partial, 0, files)
			before := liveHeap()
			for _, p := range plan.Parts {
				part, err := Build(p, opt, start, end, trace.ReadOptions{})
				if err != nil {
					t.Fatal(err)
				}
				partials = append(partials, part)
			}
			grown := liveHeap() - before
			// Thread 1's innermost time falls on the step annotations (one
			// category, their group) and two operators; the stream's on
			// its kernel: 4 columns, where a column per value made 4002.
			for i, p := range partials {
				if len(p.ColCont) != 4 {
					t.Fatalf("partial %d: %d columns, want 4 (containers x categories)", i, len(p.ColCont))
				}
			}
			// What a partial must hold: its definitions (a value per step,
			// some 100 bytes each with its name) and its 4 columns. A
			// column of every slice per step would be 3.2 MB (8 bytes a
			// cell, 4,000 steps, 100 slices).
			perFile := grown / files
			t.Logf("%d bytes live per partial held", perFile)
			if limit := uint64(200*steps + 64<<10); perFile > limit {
				t.Errorf("each partial held keeps %d bytes live, want at most %d", perFile, limit)
			}
			merged, err := micro.Merge(plan.Order, partials...)
			if err != nil {
				t.Fatal(err)
			}
			got, err := merged.Model()
			if err != nil {
				t.Fatal(err)
			}
			src, err := Runs(plan)
			if err != nil {
				t.Fatal(err)
			}
			opt.Start, opt.End = &start, &end
			want, _, err := micro.FromSource(src, opt, trace.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			same(t, string(metric), got, want)
			// On the cores, the parts merged as they come (in order,
			// whichever finishes first): the same model.
			for _, workers := range []int{1, 3} {
				local, _, err := Local(plan, opt, trace.ReadOptions{}, workers)
				if err != nil {
					t.Fatal(err)
				}
				same(t, fmt.Sprintf("%s, %d workers", metric, workers), local, want)
			}
			if len(got.States) != 4 {
				t.Fatalf("states %q, want the step group, 2 operators, the kernel", got.States)
			}
			runtime.KeepAlive(partials)
		})
	}
}
