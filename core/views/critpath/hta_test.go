package critpath

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// peersPython is the interpreter of the peers' environment, where
// bench/compare.py installs Holistic Trace Analysis.
const peersPython = "../../../bench/.peers-venv/bin/python"

// htaKinds maps HTA's edge types to ours (its operator edges are our
// compute and kernel edges).
var htaKinds = map[string]string{
	"critical_path_operator":            "operator",
	"critical_path_dependency":          EdgeDependency,
	"critical_path_kernel_launch_delay": EdgeLaunch,
	"critical_path_kernel_kernel_delay": EdgeKernelGap,
	"critical_path_sync_dependency":     EdgeSyncWait,
}

type htaEdge struct {
	weight     trace.Time // µs
	kind, name string
}

// TestAgainstHTA compares the critical path of the corpus's Kineto traces
// with Holistic Trace Analysis' own (critical_path_analysis over the
// whole trace, run by testdata/hta_critical_path.py): the same length and
// the same edges in the same order, each with its weight, kind and the
// event HTA attributes it to, the waits for CUDA events
// (cudaStreamWaitEvent, cudaEventSynchronize: cuda_event_sync, alexnet)
// included.
func TestAgainstHTA(t *testing.T) {
	if _, err := os.Stat(peersPython); err != nil {
		t.Skip("Holistic Trace Analysis is not installed in bench/.peers-venv (python bench/compare.py installs it)")
	}
	traces := []string{
		"critical_path/simple_add/benchmark_result_493459_1694039959_trace.json.gz",
		"critical_path/end_to_end/simple_add/input/trace.json.gz",
		"critical_path/cuda_event_sync_multi_stream/event_sync_trace.json.gz",
		"critical_path/cuda_event_sync/event_sync_trace.json.gz",
		"critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz",
		"execution_trace/benchmark_simple_add_trace.json.gz",
	}
	for _, name := range traces {
		t.Run(name, func(t *testing.T) {
			path := htaData + name
			if _, err := os.Stat(path); err != nil {
				t.Skip("corpus trace missing:", err)
			}
			out, err := exec.Command(peersPython, filepath.Join("testdata", "hta_critical_path.py"), path).Output()
			if err != nil {
				t.Fatalf("HTA: %v", err)
			}
			var hta struct {
				Version string
				Total   int64
				Edges   [][5]any
			}
			if err := json.Unmarshal(out, &hta); err != nil {
				t.Fatal(err)
			}
			var want []htaEdge
			for _, e := range hta.Edges {
				want = append(want, htaEdge{trace.Time(e[2].(float64)), htaKinds[e[3].(string)], e[4].(string)})
			}
			r, err := Compute(read(t, path, "chrome"), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Semantics != HTA {
				t.Errorf("semantics %q", r.Semantics)
			}
			if r.Length() != trace.Time(hta.Total)*1000 {
				t.Errorf("length %d ns, HTA %s: %d µs", r.Length(), hta.Version, hta.Total)
			}
			var got []htaEdge
			for _, s := range r.Segments {
				kind := s.Via
				if kind == EdgeCompute || kind == EdgeKernel {
					kind = "operator"
				}
				got = append(got, htaEdge{(s.End - s.Start) / 1000, kind, s.Name})
			}
			if len(got) != len(want) {
				t.Errorf("%d edges, HTA %d", len(got), len(want))
			}
			for i := range min(len(got), len(want)) {
				if got[i] != want[i] {
					t.Fatalf("edge %d: %+v, HTA %+v", i, got[i], want[i])
				}
			}
			t.Logf("HTA %s: %d edges, %d µs", hta.Version, len(want), hta.Total)
		})
	}
}

// TestWithoutFlows reads HTA's Kineto test traces with their flow events
// taken out: the launches then come from the correlation ids alone, and
// the critical path must be the one HTA computes from them (which the
// flows give in TestAgainstHTA), segment for segment.
func TestWithoutFlows(t *testing.T) {
	for _, name := range []string{
		"critical_path/cuda_event_sync_multi_stream/event_sync_trace.json.gz",
		"critical_path/cuda_event_sync/event_sync_trace.json.gz",
		"critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz",
	} {
		t.Run(name, func(t *testing.T) {
			path := htaData + name
			want, err := Compute(read(t, path, "chrome"), Options{})
			if err != nil {
				t.Fatal(err)
			}
			doc, events := kinetoEvents(t, path)
			var kept []map[string]any
			for _, e := range events {
				if ph, _ := e["ph"].(string); ph != "s" && ph != "f" && ph != "t" {
					kept = append(kept, e)
				}
			}
			if len(kept) == len(events) {
				t.Fatal("no flows to take out")
			}
			got := writeKineto(t, doc, kept, "noflows.json")
			if got.Semantics != HTA || got.Length() != want.Length() || len(got.Segments) != len(want.Segments) {
				t.Fatalf("without flows: %s, %d ns, %d segments; with: %s, %d ns, %d segments",
					got.Semantics, got.Length(), len(got.Segments), want.Semantics, want.Length(), len(want.Segments))
			}
			for i := range got.Segments {
				g, w := got.Segments[i], want.Segments[i]
				if g.Start != w.Start || g.End != w.End || g.Via != w.Via || g.Name != w.Name {
					t.Fatalf("segment %d: %+v, with flows %+v", i, g, w)
				}
			}
		})
	}
}
