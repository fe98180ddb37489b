package critpath

import (
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// kinetoEvents returns the events of a gzipped Kineto trace and the
// document holding them; the test is skipped where the corpus is not
// (as read skips it).
func kinetoEvents(t *testing.T, path string) (map[string]any, []map[string]any) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Skipf("trace not available: %v", err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.NewDecoder(z).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	var events []map[string]any
	for _, e := range doc["traceEvents"].([]any) {
		events = append(events, e.(map[string]any))
	}
	return doc, events
}

// writeKineto writes events in doc as a Chrome trace and returns its
// critical path.
func writeKineto(t *testing.T, doc map[string]any, events []map[string]any, name string) *Result {
	t.Helper()
	doc["traceEvents"] = events
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Compute(read(t, path, "chrome"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// withoutSyncs leaves out Kineto's GPU-side synchronisations (cuda_sync),
// which PyTorch 1.8 and 1.9 did not record, and the flows that joined
// them to their calls (the flows without a start).
func withoutSyncs(events []map[string]any) []map[string]any {
	started := map[any]bool{}
	for _, e := range events {
		if e["ph"] == "s" {
			started[e["id"]] = true
		}
	}
	var kept []map[string]any
	for _, e := range events {
		flow := e["ph"] == "s" || e["ph"] == "f"
		if e["cat"] != "cuda_sync" && (!flow || started[e["id"]]) {
			kept = append(kept, e)
		}
	}
	return kept
}

// renamed returns the events with their categories renamed by cats and,
// for flows, their names by flowName (when not empty).
func renamed(events []map[string]any, cats map[string]string, flowName string) []map[string]any {
	var out []map[string]any
	for _, e := range events {
		c := make(map[string]any, len(e))
		for k, v := range e {
			c[k] = v
		}
		if cat, ok := c["cat"].(string); ok && cats[cat] != "" {
			c["cat"] = cats[cat]
		}
		if flow := c["ph"] == "s" || c["ph"] == "f"; flow && flowName != "" {
			c["name"] = flowName
		}
		out = append(out, c)
	}
	return out
}

func samePath(t *testing.T, got, want *Result) {
	t.Helper()
	if got.Semantics != HTA || got.Length() != want.Length() || len(got.Segments) != len(want.Segments) {
		t.Fatalf("%s, %d ns, %d segments; want %s, %d ns, %d segments",
			got.Semantics, got.Length(), len(got.Segments), want.Semantics, want.Length(), len(want.Segments))
	}
	for i := range got.Segments {
		g, w := got.Segments[i], want.Segments[i]
		if g.Start != w.Start || g.End != w.End || g.Via != w.Via || g.Name != w.Name ||
			got.Resources[g.Resource] != want.Resources[w.Resource] {
			t.Fatalf("segment %d: %+v, want %+v", i, g, w)
		}
	}
}

// TestOlderKinetoDialects reads HTA's Kineto traces (whose critical path
// TestAgainstHTA checks) as the earlier PyTorch releases wrote them: the
// launch flows of category async_cpu_to_gpu (PyTorch 1.10 to 1.12), then
// those of 1.8 and 1.9 (flows of category async named "launch", and the
// categories Operator, Runtime, Kernel, Memcpy, Memset), which recorded
// no synchronisation on the GPU side. Each must give the path of the
// trace as written (the second without its synchronisations), segment
// for segment, where they gave the longest state of the trace: the
// profiler's own span over the whole recording, "PyTorch Profiler (0)".
func TestOlderKinetoDialects(t *testing.T) {
	for _, name := range []string{
		"critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz",
		"critical_path/simple_add/benchmark_result_493459_1694039959_trace.json.gz",
	} {
		t.Run(name, func(t *testing.T) {
			doc, events := kinetoEvents(t, htaData+name)
			want := writeKineto(t, doc, events, "ac2g.json")
			got := writeKineto(t, doc, renamed(events, map[string]string{"ac2g": "async_cpu_to_gpu"}, ""), "pytorch1.12.json")
			samePath(t, got, want)

			events = withoutSyncs(events)
			want = writeKineto(t, doc, events, "nosync.json")
			first := map[string]string{"ac2g": "async", "cpu_op": "Operator", "cuda_runtime": "Runtime",
				"kernel": "Kernel", "gpu_memcpy": "Memcpy", "gpu_memset": "Memset"}
			got = writeKineto(t, doc, renamed(events, first, "launch"), "pytorch1.8.json")
			samePath(t, got, want)
		})
	}
}
