package formats

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

var shared = filepath.Join("..", "..", "..", "shared", "traces")

func TestDetectCorpus(t *testing.T) {
	cases := map[string]string{
		"pajeng/traces/simu-mardi.trace":                         "paje",
		"pipit/tests/data/ping-pong-otf2":                        "otf2",
		"pipit/tests/data/ping-pong-otf2/traces.otf2":            "otf2",
		"hta/tests/data/trace_diff/control/control.json.gz":      "chrome",
		"paraver/test/cutter/qsort_beo3.prv":                     "paraver",
		"paraver/test/cutter/qsort_beo3.prv.gz":                  "paraver",
		"pajeng/oracles/032_pj_dump_simu_mardi_trace.out":        "pjdump",
		"starvz/inst/extdata/lu_trace":                           "pjdump",
		"smpi-nas/is_B_64.trace":                                 "paje",
		"hatchet/perfflow_hist/laghos_1iter.pfw":                 "chrome",
		"nsys/h100_2gpu_1s.sqlite":                               "nsys",
		"pipit/hist/data/saxpy-mpi-cuda_nsys_perlmutter0.sqlite": "nsys",
		"hpctoolkit-db/vectorAdd":                                "hpctoolkit",
		"hpctoolkit-db/vectorAdd/meta.db":                        "hpctoolkit",
		"hpctoolkit-db/xml/vectorAdd":                            "hpctoolkit",
		"pipit/tests/data/ping-pong-hpctoolkit":                  "hpctoolkit",
		"perfetto/perfetto/nested_tracks.perfetto-trace":         "perfetto",
		"perfetto/perfetto/track_event_typed_args.pb":            "perfetto",
	}
	for rel, want := range cases {
		path := filepath.Join(shared, rel)
		if _, err := os.Stat(path); err != nil {
			t.Logf("skipping %s: %v", rel, err)
			continue
		}
		f, err := Detect(path)
		if err != nil || f.Name != want {
			t.Errorf("Detect(%s) = %q, %v; want %q", rel, f.Name, err, want)
		}
	}
}

func TestDetectByContent(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"paje":    "# comment\n%EventDef PajeDefineContainerType 0\n",
		"chrome":  "  [{\"ph\": \"X\"}]",
		"paraver": "#Paraver (01/01/04 at 00:00):100_ns:0:1:1(1:1)\n",
		"pjdump":  "Container, 0, 0, 0, 1, 1, 0\n",
	} {
		path := filepath.Join(dir, name+".data")
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if f, err := Detect(path); err != nil || f.Name != name {
			t.Errorf("content %q detected as %q, %v", body, f.Name, err)
		}
	}
	unknown := filepath.Join(dir, "x.data")
	os.WriteFile(unknown, []byte("hello"), 0o644)
	if _, err := Detect(unknown); err == nil {
		t.Error("unknown content was given a format")
	}
	if _, err := ByName("nope"); err == nil {
		t.Error("unknown format name accepted")
	}
}

// TestDetectDirSaysTheWayOut checks that a directory no format reads
// says what is read instead: a trace file, or several of one format.
func TestDetectDirSaysTheWayOut(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "rank-0.json"), []byte(`{"traceEvents":[]}`), 0o644)
	_, err := Detect(dir)
	if err == nil || !strings.Contains(err.Error(), "two or more trace files of one format") ||
		!strings.Contains(err.Error(), "give a trace file") {
		t.Errorf("error %v", err)
	}
}

// TestDetectFileSaysWhatItIs checks that a file no format reads but one
// format's producer writes without a trace (rocprof's statistics
// summaries, rocprofv3's agent list, systrace's text and HTML) is refused
// as what it is, with the way to the trace, rather than by the reader its
// extension picks (pjdump's, for .csv) or as a file of no known format,
// and that a reader asked by name refuses it alike.
func TestDetectFileSaysWhatItIs(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"1234_hip_api_stats.csv": "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\",\"MinNs\",\"MaxNs\",\"StdDev\"\n\"hipGetDeviceCount\",1,32505687,32505687.000000,10.54,32505687,32505687,0\n",
		"results.stats.csv":      "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\n\"Cijk_Ailk\",4,1200,300,100.0\n",
		"1234_agent_info.csv":    "\"Node_Id\",\"Logical_Node_Id\",\"Agent_Type\",\"Cpu_Cores_Count\"\n0,0,\"CPU\",64\n",
		// rocprofv3's thread trace decoder, for rocprof-compute-viewer.
		"stats_ui_output_agent_5600_dispatch_1.csv": "\"CodeObj\",\"Vaddr\",\"Instruction\",\"Hitcount\",\"Latency\",\"Stall\",\"Idle\",\"Source\"\n" +
			"1,18432,\"s_load_dwordx2 s[2:3], s[0:1], 0x0\",0,0,0,0,\"\"\n",
	}
	for name, content := range files {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(content), 0o644)
		want := "a rocprof statistics summary"
		switch {
		case strings.HasPrefix(name, "stats_ui"):
			want = "rocprofv3's thread trace (--att) statistics"
		case strings.Contains(name, "agent"):
			want = "rocprofv3's list of the run's agents"
		}
		_, err := Detect(path)
		var fe *errs.FormatError
		if !errors.As(err, &fe) || fe.File != path || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "_kernel_trace.csv") {
			t.Errorf("%s: detected with error %v, want %q and the way to the trace", name, err, want)
		}
		if _, _, err := Open(path, "rocprofv3-csv", nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s read as rocprofv3-csv: error %v, want %q", name, err, want)
		}
	}
	// Android's text traces and trace viewer pages, told by their first
	// bytes whatever their names.
	for name, content := range map[string]string{
		"trace.systrace": "# tracer: nop\n#\n     hwc_eventmon-336   [000] 50260.929925: 0: C|124|VSYNC|1\n",
		"trace.txt":      "# tracer: nop\n",
		"trace.html":     "<!DOCTYPE html>\n<html><head><title>Android System Trace</title></head></html>\n",
	} {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(content), 0o644)
		if _, err := Detect(path); err == nil || !strings.Contains(err.Error(), "Perfetto protobuf trace") {
			t.Errorf("%s: detected with error %v, want what it is and the way to a Perfetto trace", name, err)
		}
	}
	// tsc --generateTrace's type dump, beside its trace.json: told by its
	// first entry, detected or named as chrome.
	types := filepath.Join(dir, "types.json")
	os.WriteFile(types, []byte(`[{"id":1,"intrinsicName":"any","recursionId":0,"flags":["Any"]},
{"id":2,"intrinsicName":"any","recursionId":1,"flags":["Any"]}]`), 0o644)
	const typesWant = "TypeScript's dump of the program's types (types.json"
	if _, err := Detect(types); err == nil || !strings.Contains(err.Error(), typesWant) || !strings.Contains(err.Error(), "trace.json") {
		t.Errorf("types.json: detected with error %v, want %q and the way to the trace", err, typesWant)
	}
	if err := openRead(types, "chrome"); err == nil || !strings.Contains(err.Error(), typesWant) {
		t.Errorf("types.json read as chrome: error %v, want %q", err, typesWant)
	}
	// A PyTorch execution trace (the operators' graph, without times),
	// as torch 2.x writes it (the head of PARAM's et_replay test input
	// resnet_1gpu_et.json.gz), and the older schema 1.0.1: told by its
	// keys, detected or named as chrome.
	for name, content := range map[string]string{
		"resnet_et.json": `{
  "schema": "1.0.3-chakra.0.0.4", "pid": 3233936, "time": "2024-04-17 16:29:57", "start_ts": 3035474097,
  "nodes": [
    {
      "id": 2, "name": "[pytorch|profiler|execution_trace|thread]", "ctrl_deps": 1,
      "inputs": {"values": [], "shapes": [], "types": []},
      "outputs": {"values": [], "shapes": [], "types": []},
      "attrs": [{"name": "rf_id", "type": "uint64", "value": 0}]
    }
  ],
  "finish_ts": 3035474999
}`,
		"linear_et.json": `{"schema": "1.0.1", "pid": 24248, "time": "2023-07-12 12:47:27", "start_ts": 69838573,
  "nodes": [{"name": "[pytorch|profiler|execution_graph|thread]", "id": 2, "rf_id": 0, "parent": 1}]}`,
	} {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(content), 0o644)
		const etWant = "is a PyTorch execution trace (ExecutionTraceObserver, schema"
		if _, err := Detect(path); err == nil || !strings.Contains(err.Error(), etWant) || !strings.Contains(err.Error(), ".pt.trace.json") {
			t.Errorf("%s: detected with error %v, want %q and the way to the Kineto trace", name, err, etWant)
		}
		if err := openRead(path, "chrome"); err == nil || !strings.Contains(err.Error(), etWant) {
			t.Errorf("%s read as chrome: error %v, want %q", name, err, etWant)
		}
	}
	// A Hatchet profile, as Triton's Proton writes it by default
	// (name.hatchet, nlohmann's sorted keys: a node's children before its
	// frame), and as hatchet's to_literal does: told by its nodes,
	// detected or named as chrome, whatever its extension.
	proton := `[
  {
    "children": [
      {
        "children": [],
        "frame": {"name": "matmul_kernel", "type": "function"},
        "metrics": {"count": 10, "device_id": "0", "device_type": "CUDA", "time (ns)": 204800}
      }
    ],
    "frame": {"name": "ROOT", "type": "function"},
    "metrics": {"count": 0, "time (ns)": 0}
  },
  {"CUDA": {"0": {"arch": "90", "num_sms": 132}}}
]`
	for _, name := range []string{"matmul.hatchet", "matmul.json"} {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(proton), 0o644)
		const hatchetWant = "is a Hatchet profile"
		if _, err := Detect(path); err == nil || !strings.Contains(err.Error(), hatchetWant) || !strings.Contains(err.Error(), `data="trace"`) {
			t.Errorf("%s: detected with error %v, want %q and the way to Proton's trace", name, err, hatchetWant)
		}
		if err := openRead(path, "chrome"); err == nil || !strings.Contains(err.Error(), hatchetWant) {
			t.Errorf("%s read as chrome: error %v, want %q", name, err, hatchetWant)
		}
	}
	// Hatchet's own order (frame and metrics before children), and a deep
	// tree, indented, whose first leaf is past the bytes looked at.
	deep := "[" + strings.Repeat("{\n  \"children\": [\n"+strings.Repeat(" ", 300), 40) + "{}"
	for name, content := range map[string]string{
		"literal.json": `[{"frame": {"name": "main", "type": "function"}, "metrics": {"time (inc)": 1.0}, "children": []}]`,
		"deep.hatchet": deep,
	} {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(content), 0o644)
		if _, err := Detect(path); err == nil || !strings.Contains(err.Error(), "is a Hatchet profile") {
			t.Errorf("%s: detected with error %v, want a Hatchet profile", name, err)
		}
	}
	// Trace events whose args hold a frame and metrics are still a trace.
	argsFrame := filepath.Join(dir, "args_frame.json")
	os.WriteFile(argsFrame, []byte(`[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":1,"args":{"children":[],"frame":{"name":"f"},"metrics":{}}}]`), 0o644)
	if f, err := Detect(argsFrame); err != nil || f.Name != "chrome" {
		t.Errorf("a trace-event array with a frame in args detected as %q, %v", f.Name, err)
	}
	// A trace-event object with a key "schema" and "nodes" after its
	// events is still a trace.
	withNodes := filepath.Join(dir, "with_nodes.json")
	os.WriteFile(withNodes, []byte(`{"traceEvents": [{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":1}], "schema": "x", "pid": 1, "nodes": []}`), 0o644)
	if f, err := Detect(withNodes); err != nil || f.Name != "chrome" {
		t.Errorf("a trace-event object with nodes detected as %q, %v", f.Name, err)
	}
	// A trace-event array is no type dump.
	events := filepath.Join(dir, "events.json")
	os.WriteFile(events, []byte(`[{"id":1,"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":1,"flags":[],"recursionId":0}]`), 0o644)
	if f, err := Detect(events); err != nil || f.Name != "chrome" {
		t.Errorf("a trace-event array detected as %q, %v", f.Name, err)
	}
	pj := filepath.Join(dir, "dump.csv")
	os.WriteFile(pj, []byte("Container, 0, 0, 0, 1, 1, 0\n"), 0o644)
	if f, err := Detect(pj); err != nil || f.Name != "pjdump" {
		t.Errorf("a pj_dump table detected as %q, %v", f.Name, err)
	}
}

// A trace saved as UTF-16 or UTF-32 (a Windows shell's redirection, an
// editor) is refused naming its encoding and the way to convert it,
// whether the format is detected or named (chrome), plain or compressed,
// instead of an error about its first byte.
func TestWideTextSaysTheEncoding(t *testing.T) {
	dir := t.TempDir()
	events := `[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":1}]`
	utf16 := []byte{0xff, 0xfe}
	for _, r := range events {
		utf16 = append(utf16, byte(r), 0)
	}
	var gz bytes.Buffer
	z := gzip.NewWriter(&gz)
	z.Write(utf16)
	z.Close()
	for name, data := range map[string][]byte{"w.json": utf16, "w.json.gz": gz.Bytes(), "w.trace": utf16, "w": utf16} {
		path := filepath.Join(dir, name)
		os.WriteFile(path, data, 0o644)
		const want = "is UTF-16LE text (it starts with its byte-order mark): traces are read as UTF-8; convert it first (iconv -f UTF-16 -t UTF-8)"
		_, err := Detect(path)
		var fe *errs.FormatError
		if !errors.As(err, &fe) || fe.File != path || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: detected with error %v, want %q", name, err, want)
		}
		if src, _, err := Open(path, "chrome", nil); err != nil {
			t.Errorf("%s opened as chrome: %v", name, err)
		} else if err := src.Read(trace.New(), trace.ReadOptions{}); !errors.As(err, &fe) || fe.File != path || !strings.Contains(err.Error(), "byte 0: not a Chrome trace: it "+want) {
			t.Errorf("%s read as chrome: error %v, want %q", name, err, want)
		}
	}
}

// A rocpd database (rocprofv3, ROCm 7) is told by its tables whatever its
// name; RPD files and Nsight Systems exports, SQLite too, are not taken
// for one.
func TestDetectRocpd(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "readers", "rocprof", "testdata", "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{"results.db", "4101_results.db", "run.sqlite", "profile.rpd", "noext"} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if f, err := Detect(path); err != nil || f.Name != "rocpd" {
			t.Errorf("%s detected as %q, %v", name, f.Name, err)
		}
	}
	for rel, want := range map[string]string{
		filepath.Join("..", "readers", "nsys", "testdata", "tiny.sqlite"): "nsys",
		filepath.Join(shared, "rocprof", "rpd", "matmul_result.rpd"):      "rpd",
	} {
		if _, err := os.Stat(rel); err != nil {
			t.Logf("skipping %s: %v", rel, err)
			continue
		}
		if f, err := Detect(rel); err != nil || f.Name != want {
			t.Errorf("%s detected as %q, %v; want %q", rel, f.Name, err, want)
		}
	}
}

// TestDetectNsysStatsCSV: the CSV tables of `nsys stats` (here the first
// lines of nvtx_pushpop_trace from JAX-Toolbox's nsys-jax test data, and
// of cuda_api_sum, current and before 2021) were read as pjdump CSV by
// their extension and refused with "expected Container, State...": they
// are refused as what they are, with the way to the report's export. So
// are its tables as text in columns, which were "cannot tell the trace
// format".
func TestDetectNsysStatsCSV(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"report_nvtx_pushpop_trace.csv": "Start (ns),End (ns),Duration (ns),DurChild (ns),DurNonChild (ns),Name,PID,TID,Lvl,NumChild,RangeId,ParentId,RangeStack,NameTree\n" +
			"26940649047,26940822025,172978,0,172978,\"TSL:XlaDumpHloModule:#module=jit__psum,program_id=1#\",215733,215733,0,0,25204,,:25204,\"TSL:XlaDumpHloModule:#module=jit__psum,program_id=1#\"\n",
		"report_cuda_api_sum.csv": "Time (%),Total Time (ns),Num Calls,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n65.2,1000,2,500.0,500.0,400,600,141.4,cudaMalloc\n",
		"old_cudaapisum.csv":      "\"Time(%)\",\"Total Time (ns)\",\"Num Calls\",\"Average\",\"Minimum\",\"Maximum\",\"Name\"\n65.2,1000,2,500.0,400,600,\"cudaMalloc\"\n",
		// cuda_kern_exec_trace and nvtx_gpu_proj_trace, whose first
		// columns are "API Start (ns)" and "Name"; and a table captured
		// from stdout, after the lines nsys prints before it.
		"report_cuda_kern_exec_trace.csv": "API Start (ns),API Dur (ns),Queue Start (ns),Queue Dur (ns),Kernel Start (ns),Kernel Dur (ns),Total Dur (ns),PID,TID,DevId,API Function,GridXYZ,BlockXYZ,Kernel Name\n" +
			"43703966,78512,,,43769847,75200,141081,1,1,0,cuLaunchKernelEx,\" 148    1    1\",\" 256    1    1\",gemm\n",
		"report_nvtx_gpu_proj_trace.csv": "Name,Projected Start (ns),Projected Duration (ns),Orig Start (ns),Orig Duration (ns),Style,PID,TID,NumGPUOps,Lvl,NumChild,RangeId,ParentId,RangeStack\n" +
			"step,100,10000,1000,900,PushPop,42,77,2,0,2,100,,step\n",
		"stats_stdout.csv": "Generating SQLite file report1.sqlite from report1.nsys-rep\n" +
			"Processing [report1.sqlite] with [/opt/nvidia/nsight-systems/2024.6.1/host-linux-x64/reports/cuda_gpu_trace.py]... \n\n" +
			" ** CUDA GPU Trace (cuda_gpu_trace):\n\n" +
			"\"Start (us)\",\"Duration (us)\",\"CorrId\",\"Name\"\n\"20.5\",\"4.2\",\"1\",\"gemm\"\n",
		// The same tables as text in columns (nsys stats without --format
		// csv, or nsys profile --stats=true), whose rows hold commas too.
		"stats.txt": "Processing [report1.sqlite] with [/opt/nvidia/nsight-systems/2024.6.1/host-linux-x64/reports/cuda_api_sum.py]... \n\n" +
			" ** CUDA API Summary (cuda_api_sum):\n\n" +
			" Time (%)  Total Time (ns)  Num Calls    Avg (ns)      Med (ns)    Min (ns)   Max (ns)     StdDev (ns)      Name   \n" +
			" --------  ---------------  ---------  ------------  ------------  --------  -----------  -------------  ----------\n" +
			"     89.4      301,366,218          2  150683109.0  150683109.0    19,560  301,346,658  213,072,373.0  cudaMalloc\n",
		"profile.log": "Done.\nGenerating '/tmp/nsys-report-2ee6.qdstrm'\n[1/8] [========================100%] run.nsys-rep\n" +
			"[2/8] [========================100%] run.sqlite\n[3/8] Executing 'cuda_gpu_trace' stats report\n\n" +
			" Start (ns)  Duration (ns)  CorrId  Name\n ----------  -------------  ------  ----\n 43,769,847         75,200     120  gemm\n",
		"old_stats": "Generating CUDA API Statistics...\nCUDA API Statistics (nanoseconds)\n\n" +
			"Time(%)      Total Time       Calls         Average  Name      \n" +
			"-------  --------------  ----------  --------------  ----------\n" +
			"   50.3      1709124966         195       8764743.4  cudaMalloc\n",
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Detect(path)
		var fe *errs.FormatError
		if !errors.As(err, &fe) || fe.File != path || !strings.Contains(err.Error(), "nsys stats") || !strings.Contains(err.Error(), "nsys export --type sqlite") {
			t.Errorf("%s: detected with error %v, want a table of nsys stats and the export", name, err)
		}
	}
}

// TestDetectArchive: an archive of a run's files (nsys-jax's .zip of
// JAX-Toolbox's test data; a tar) was "cannot tell the trace format", or
// refused by the reader of its name's extension: it is refused as an
// archive, to extract.
func TestDetectArchive(t *testing.T) {
	dir := t.TempDir()
	tarHead := make([]byte, 512)
	copy(tarHead, "trace.json")
	copy(tarHead[257:], "ustar\x0000")
	for name, content := range map[string][]byte{
		"pax_fsdp4_4proc_proc0.zip": append([]byte("PK\x03\x04\x14\x00\x00\x00\x08\x00"), make([]byte, 64)...),
		"run.json":                  append([]byte("PK\x03\x04\x14\x00\x00\x00\x08\x00"), make([]byte, 64)...),
		"traces.tar":                tarHead,
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Detect(path)
		var fe *errs.FormatError
		if !errors.As(err, &fe) || fe.File != path || !strings.Contains(err.Error(), "archive, not a trace") {
			t.Errorf("%s: detected with error %v, want an archive to extract", name, err)
		}
	}
}

// openRead opens the file at path as format name and reads it: the error
// of either (a file the door explains is refused by Open, before its
// reader would refuse it).
func openRead(path, name string) error {
	src, _, err := Open(path, name, nil)
	if err != nil {
		return err
	}
	return src.Read(trace.New(), trace.ReadOptions{})
}

// TestDetectLFSPointer: a Git LFS pointer in place of a trace (a checkout
// that did not fetch its large files: Chakra-file-test's kineto_trace.json
// of 564 MB) was refused by the reader of its extension as a damaged file
// ("not a Chrome trace: expected '[' or '{', found 'v'", "not a SQLite
// database") or as of no format one could tell; it is refused as the
// pointer it is, with the command that fetches the file, also when a
// format is named.
func TestDetectLFSPointer(t *testing.T) {
	dir := t.TempDir()
	pointer := "version https://git-lfs.github.com/spec/v1\n" +
		"oid sha256:d7e7251d32f1e511e9fe67786e22ef385f16cd3c07f3591d7b74da434d21518e\nsize 564133236\n"
	for _, name := range []string{"kineto_trace.json", "report1.sqlite", "trace.perfetto-trace", "trace.prv", "trace"} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(pointer), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Detect(path)
		var fe *errs.FormatError
		if !errors.As(err, &fe) || fe.File != path || !strings.Contains(err.Error(), "Git LFS pointer") ||
			!strings.Contains(err.Error(), "564133236 bytes") || !strings.Contains(err.Error(), "git lfs pull") {
			t.Errorf("%s: detected with error %v, want a Git LFS pointer to fetch", name, err)
		}
	}
	path := filepath.Join(dir, "kineto_trace.json")
	if _, _, err := Open(path, "chrome", nil); err == nil || !strings.Contains(err.Error(), "Git LFS pointer") {
		t.Errorf("read as chrome: error %v, want a Git LFS pointer to fetch", err)
	}
}
