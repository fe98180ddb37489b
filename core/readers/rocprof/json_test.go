package rocprof

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// The counts come from Python's json module on the file:
//
//	d = json.load(gzip.open(f))["rocprofiler-sdk-tool"][0]
//	len(d["buffer_records"]["kernel_dispatch"])           # 43915
//	Counter(queue_id handle)  # 18: 38761, 19: 3034, 20: 1309, 17: 500, 16: 311
func TestJSONCorpus(t *testing.T) {
	path := corpus(t, "rocprofv3-tracelens", "908_results.json.gz")
	tr, notes := load(t, func(s trace.Sink, o trace.ReadOptions) error { return readJSONFile(path, s, o) })
	if got := fmt.Sprint(statesByType(tr)); got != "map[Kernel:43915]" {
		t.Errorf("states %s", got)
	}
	perQueue := map[string]int{}
	for _, s := range tr.States.All() {
		// overlap lanes count with their queue
		name := fullName(tr, s.Container)
		if i := strings.Index(name, " (overlap lane"); i >= 0 {
			name = name[:i]
		}
		perQueue[strings.TrimPrefix(name, "smci350-zts-gtu-c6-25/Agent 2 (AMD Instinct MI350X)/")]++
	}
	if got := fmt.Sprint(perQueue); got != "map[Queue 16:311 Queue 17:500 Queue 18:38761 Queue 19:3034 Queue 20:1309]" {
		t.Errorf("per queue %s", got)
	}
	// min(start_timestamp), max(end_timestamp)
	if tr.Start != 63857982592000 || tr.End != 63873104615494 {
		t.Errorf("extent %d %d", tr.Start, tr.End)
	}
	// The last record: kernel_id 251.
	found := false
	for _, s := range tr.States.All() {
		if s.Start == 63872976934414 {
			found = s.End == 63873104615494 && tr.Values[s.Value].Name == "ncclDevKernel_Generic_1(ncclDevKernelArgsStorage<4096ul>)"
		}
	}
	if !found {
		t.Error("the last kernel record is not there, exact")
	}
	if len(notes.Messages()) != 0 {
		t.Errorf("notes %q", notes.Messages())
	}
}

// syntheticJSON has a record of each kind modelled, with the string
// tables after the records, as the format allows.
const syntheticJSON = `{"rocprofiler-sdk-tool": [{
 "metadata": {"pid": 42, "node": {"hostname": "node1"}},
 "agents": [{"id": {"handle": 100}, "type": 1, "node_id": 0, "name": "CPU"},
            {"id": {"handle": 101}, "type": 2, "node_id": 1, "name": "gfx942", "product_name": "MI300X"}],
 "buffer_records": {
  "hip_api": [{"kind": 1, "operation": 1, "thread_id": 43, "correlation_id": {"internal": 7, "external": 0}, "start_timestamp": 1000, "end_timestamp": 2000}],
  "hsa_api": [{"kind": 2, "operation": 0, "thread_id": 43, "correlation_id": {"internal": 8}, "start_timestamp": 1100, "end_timestamp": 1200},
              {"kind": 2, "operation": 0, "thread_id": 43, "correlation_id": {"internal": 9}, "start_timestamp": 1300, "end_timestamp": 1299}],
  "marker_api": [{"kind": 3, "operation": 0, "thread_id": 43, "correlation_id": {"internal": 10}, "start_timestamp": 500, "end_timestamp": 5000},
                 {"kind": 3, "operation": 1, "thread_id": 43, "correlation_id": {"internal": 11}, "start_timestamp": 1500, "end_timestamp": 1500}],
  "kernel_dispatch": [{"kind": 4, "operation": 2, "thread_id": 43, "correlation_id": {"internal": 7}, "start_timestamp": 2500, "end_timestamp": 3000,
                       "dispatch_info": {"agent_id": {"handle": 101}, "queue_id": {"handle": 5}, "kernel_id": 3}}],
  "memory_copy": [{"kind": 5, "operation": 1, "thread_id": 43, "correlation_id": {"internal": 12}, "start_timestamp": 3100, "end_timestamp": 3200,
                   "src_agent_id": {"handle": 100}, "dst_agent_id": {"handle": 101}, "bytes": 4096}],
  "scratch_memory": [{"kind": 9}, {"kind": 9}]
 },
 "callback_records": {"counter_collection": [{}, {}, {}]},
 "kernel_symbols": [{"kernel_id": 3, "kernel_name": "k.kd", "formatted_kernel_name": "k(int)"}],
 "strings": {
  "buffer_records": [{"kind": "NONE", "operations": []},
                     {"kind": "HIP_RUNTIME_API", "operations": ["hipMalloc", "hipLaunchKernel"]},
                     {"kind": "HSA_CORE_API", "operations": ["hsa_signal_wait"]},
                     {"kind": "MARKER_CORE_RANGE_API", "operations": ["roctxThreadRangeA", "roctxMarkA"]},
                     {"kind": "KERNEL_DISPATCH", "operations": ["NONE", "ENQUEUE", "COMPLETE"]},
                     {"kind": "MEMORY_COPY", "operations": ["NONE", "MEMORY_COPY_HOST_TO_DEVICE"]}],
  "marker_api": [{"key": 10, "value": "step 1"}, {"key": 11, "value": "checkpoint"}]
 }
}]}`

func TestJSONSynthetic(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "1_results.json", syntheticJSON)
	tr, notes := load(t, func(s trace.Sink, o trace.ReadOptions) error { return readJSONFile(path, s, o) })
	var got []string
	for _, s := range tr.States.All() {
		got = append(got, fmt.Sprintf("%s|%s|%s|%d|%d|%d", fullName(tr, s.Container), tr.Types[s.Type].Name,
			tr.Values[s.Value].Name, s.Start, s.End, s.Depth))
	}
	want := []string{
		"node1/Process 42/Thread 43|HIP API|hipLaunchKernel|1000|2000|0",
		"node1/Process 42/Thread 43|HSA API|hsa_signal_wait|1100|1200|0",
		"node1/Process 42/Thread 43|Marker|step 1|500|5000|0",
		"node1/Agent 1 (MI300X)/Queue 5|Kernel|k(int)|2500|3000|0",
		"node1/Agent 1 (MI300X)/Memory copies|Memory copy|MEMORY_COPY_HOST_TO_DEVICE|3100|3200|0",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("states\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if tr.Events.Len() != 1 || tr.Values[tr.Events.At(0).Value].Name != "checkpoint" || tr.Events.At(0).Time != 1500 {
		t.Errorf("events %+v", tr.Events)
	}
	if tr.Links.Len() != 1 || tr.Links.At(0).Start != 1000 || tr.Links.At(0).End != 2500 || tr.Links.At(0).Key != "7" {
		t.Errorf("links %+v", tr.Links)
	}
	sk := notes.Skipped()
	if sk[`buffer records of kind "scratch_memory" (not modelled)`] != 2 ||
		sk[`callback records of kind "counter_collection" (not modelled)`] != 3 ||
		sk["records ending before they start"] != 1 {
		t.Errorf("skipped %v", sk)
	}

	// The same, gzip-compressed.
	gzPath := writeFile(t, dir, "2_results.json.gz", string(readertest.Compress(t, []byte(syntheticJSON), "gzip")))
	tr2, _ := load(t, func(s trace.Sink, o trace.ReadOptions) error { return readJSONFile(gzPath, s, o) })
	if tr2.States.Len() != tr.States.Len() {
		t.Errorf("gzip: %d states", tr2.States.Len())
	}

	// In two streams, and followed by bytes that are not compressed data.
	t.Run("trailing", func(t *testing.T) { readertest.CheckTrailing(t, JSONFormat, "3_results.json", []byte(syntheticJSON)) })
}

// TestJSONCorrupt cuts the document everywhere and flips bytes: every
// failure is a FormatError naming the file with a byte offset, and
// nothing panics.
func TestJSONCorrupt(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.json")
	check := func(text string, wantErr bool) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		err := readJSONFile(path, trace.New(), trace.ReadOptions{})
		var fe *errs.FormatError
		switch {
		case err == nil && wantErr:
			t.Errorf("no error on %q", text)
		case err != nil && (!errors.As(err, &fe) || fe.File != path || fe.Offset <= 0):
			t.Errorf("%v: not a FormatError with an offset", err)
		}
	}
	for n := 0; n < len(syntheticJSON)-1; n += 7 {
		check(syntheticJSON[:n], true)
	}
	for i := 0; i < len(syntheticJSON); i += 11 {
		b := []byte(syntheticJSON)
		b[i] ^= 0x21
		check(string(b), false)
	}
	check(`{"traceEvents": []}`, true)
	check(`{"rocprofiler-sdk-tool": []} x`, true)

	// A cut gzip stream.
	gz := readertest.Compress(t, []byte(syntheticJSON), "gzip")
	check(string(gz[:len(gz)/2]), true)
}

func TestJSONCancel(t *testing.T) {
	path := corpus(t, "rocprofv3-tracelens", "908_results.json.gz")
	_, _, reports := readertest.Cancel(t, 43915, func(s trace.Sink, o trace.ReadOptions) error { return readJSONFile(path, s, o) })
	if reports != 1 {
		t.Errorf("%d progress reports after the cancel", reports)
	}
}

// TestJSONTwoProcesses: each element of rocprofiler-sdk-tool is a process
// with its own tables; here the second lists its tables before its
// records, as rocprofv3 does, and numbers its kinds differently.
func TestJSONTwoProcesses(t *testing.T) {
	second := `{"metadata": {"pid": 77, "node": {"hostname": "node1"}},
 "agents": [{"id": {"handle": 9}, "type": 2, "node_id": 1, "product_name": "MI300X"}],
 "strings": {"buffer_records": [{"kind": "NONE", "operations": []}, {"kind": "KERNEL_DISPATCH", "operations": []},
                                {"kind": "HIP_RUNTIME_API_EXT", "operations": ["hipLaunchKernel"]}]},
 "kernel_symbols": [{"kernel_id": 1, "kernel_name": "z.kd"}],
 "buffer_records": {
  "hip_api": [{"kind": 2, "operation": 0, "thread_id": 78, "correlation_id": {"internal": 7}, "start_timestamp": 10, "end_timestamp": 20}],
  "kernel_dispatch": [{"kind": 1, "thread_id": 78, "correlation_id": {"internal": 7}, "start_timestamp": 30, "end_timestamp": 40,
                       "dispatch_info": {"agent_id": {"handle": 9}, "queue_id": {"handle": 2}, "kernel_id": 1}}]}}`
	doc := syntheticJSON[:strings.LastIndex(syntheticJSON, "}]}")] + "}, " + second + "]}"
	path := writeFile(t, t.TempDir(), "x.json", doc)
	tr, _ := load(t, func(s trace.Sink, o trace.ReadOptions) error { return readJSONFile(path, s, o) })
	var got []string
	for _, s := range tr.States.All() {
		if strings.Contains(fullName(tr, s.Container), "77") || strings.Contains(tr.Values[s.Value].Name, "z.kd") {
			got = append(got, fmt.Sprintf("%s|%s|%d", fullName(tr, s.Container), tr.Values[s.Value].Name, s.Start))
		}
	}
	want := "node1/Process 77/Thread 78|hipLaunchKernel|10 node1/Agent 1 (MI300X)/Queue 2|z.kd|30"
	if strings.Join(got, " ") != want {
		t.Errorf("second process: %v", got)
	}
	// Both processes use correlation id 7: each launch links within its
	// process.
	if tr.Links.Len() != 2 {
		t.Fatalf("%d links", tr.Links.Len())
	}
	for _, l := range tr.Links.All() {
		from, to := fullName(tr, l.From), fullName(tr, l.To)
		if strings.Contains(from, "77") != strings.Contains(to, "Queue 2") {
			t.Errorf("link from %s to %s", from, to)
		}
	}
}
