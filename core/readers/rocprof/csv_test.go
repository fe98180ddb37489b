package rocprof

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

func readCSVFiles(t testing.TB, files []string) (*trace.Trace, *trace.Notes) {
	t.Helper()
	return load(t, func(s trace.Sink, o trace.ReadOptions) error { return ReadCSV(files, false, s, o) })
}

// The counts come from Python's csv module on the files:
//
//	len(list(csv.DictReader(open(f))))
//
// and the links from the kernels whose Correlation_Id is one of the API
// file's.
func TestCSVDecodeRun(t *testing.T) {
	kernels := corpus(t, "rocprofv3-csv", "decode_kernel_trace.csv")
	files, err := csvFiles(kernels, true)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	// decode_stall_counter_collection.csv has another prefix
	// ("decode_stall_"): it is not of the run.
	if got := strings.Join(names, " "); got != "decode_hip_api_trace.csv decode_kernel_trace.csv" {
		t.Errorf("siblings %s", got)
	}
	tr, notes := readCSVFiles(t, files)
	if got := fmt.Sprint(statesByType(tr)); got != "map[HIP API:920 Kernel:144]" {
		t.Errorf("states %s", got)
	}
	if tr.Links.Len() != 27 {
		t.Errorf("%d links, want 27", tr.Links.Len())
	}
	if m := notes.Messages(); len(m) != 0 {
		t.Errorf("notes %q", m)
	}
	// First data row of decode_kernel_trace.csv.
	found := false
	for _, s := range tr.States.All() {
		if s.Start == 342331487558371 {
			found = true
			if s.End != 342331487561256 || tr.Values[s.Value].Name != "scale_f32(float const*, float*, float, float, long)" {
				t.Errorf("first kernel %+v %q", s, tr.Values[s.Value].Name)
			}
			if got := fullName(tr, s.Container); got != "Host/Agent 1/Queue 2" {
				t.Errorf("first kernel on %s", got)
			}
		}
	}
	if !found {
		t.Error("first kernel missing")
	}
	// Each link goes from hipLaunchKernel-like calls on the thread to the queue.
	for _, l := range tr.Links.All() {
		if fullName(tr, l.From) != "Host/Process 2684120/Thread 2684120" || fullName(tr, l.To) != "Host/Agent 1/Queue 2" || l.End < l.Start {
			t.Errorf("link %+v", l)
		}
	}
}

// TestCSVDocsDir reads the directory of the documentation's examples (one
// run per file): python csv gives 17 HIP (hip_trace.csv), 10 HSA, 9
// kernel, 5 marker (2 of zero length: marks), 4 copy, 21 RCCL rows, 4
// counter samples and 79 PC samples; 11 kernels and copies have the
// correlation id of a HIP or HSA call.
func TestCSVDocsDir(t *testing.T) {
	dir := corpus(t, "rocprofv3-docs")
	files, err := csvFiles(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	tr, notes := readCSVFiles(t, files)
	want := "map[HIP API:17 HSA API:10 Kernel:9 Marker:3 Memory copy:4 RCCL API:21]"
	if got := fmt.Sprint(statesByType(tr)); got != want {
		t.Errorf("states %s, want %s", got, want)
	}
	if got := fmt.Sprint(eventsByType(tr)); got != "map[Marker event:2]" {
		t.Errorf("events %s", got)
	}
	if tr.Links.Len() != 11 {
		t.Errorf("%d links, want 11", tr.Links.Len())
	}
	sk := notes.Skipped()
	if sk["counter samples (counter_collection: one per kernel dispatch and counter)"] != 4 ||
		sk["records of traces not modelled (memory allocations, scratch memory, PC samples)"] != 79 {
		t.Errorf("skipped %v", sk)
	}
	// memory_copy_trace.csv row 4: DEVICE_TO_HOST from Agent 4, on Agent 4.
	for _, s := range tr.States.All() {
		if s.Start == 1057963497396292 {
			if s.End != 1057963497471732 || fullName(tr, s.Container) != "Host/Agent 4/Memory copies" ||
				tr.Values[s.Value].Name != "MEMORY_COPY_DEVICE_TO_HOST" {
				t.Errorf("copy %+v on %s", s, fullName(tr, s.Container))
			}
		}
	}
}

func TestCSVPrefillAlone(t *testing.T) {
	path := corpus(t, "rocprofv3-csv", "prefill_kernel_trace.csv")
	files, err := csvFiles(path, true)
	if err != nil || len(files) != 1 {
		t.Fatalf("files %v, %v", files, err)
	}
	tr, _ := readCSVFiles(t, files)
	if got := fmt.Sprint(statesByType(tr)); got != "map[Kernel:1128]" {
		t.Errorf("states %s", got)
	}
	queues := map[string]int{}
	for _, s := range tr.States.All() {
		queues[fullName(tr, s.Container)]++
	}
	// python: Counter(r['Queue_Id'] for r in rows) -> {'2': ..., '1': ...}
	if len(queues) < 2 {
		t.Errorf("queues %v", queues)
	}
}

func writeFile(t testing.TB, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const apiHeader = `"Domain","Function","Process_Id","Thread_Id","Correlation_Id","Start_Timestamp","End_Timestamp"` + "\n"
const kernelHeader = `"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp"` + "\n"

// TestCSVSynthetic checks nesting, overlap lanes, marks, reversed and
// unreadable rows, and the order of delivery.
func TestCSVSynthetic(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "7_hip_api_trace.csv", apiHeader+
		`"HIP_RUNTIME_API","hipMemcpy",7,8,1,100,200`+"\n"+
		`"HIP_RUNTIME_API","hipLaunchKernel",7,8,2,110,120`+"\n"+
		`"HIP_RUNTIME_API","inner",7,8,3,110,115`+"\n"+
		`"HIP_RUNTIME_API","overlap",7,8,4,150,250`+"\n"+
		`"HIP_RUNTIME_API","reversed",7,8,5,300,299`+"\n"+
		`"HIP_RUNTIME_API","bad",7,8,6,x,299`+"\n")
	writeFile(t, dir, "7_hsa_api_trace.csv", apiHeader+
		`"HSA_CORE_API","hsa_signal_wait",7,8,9,105,190`+"\n")
	writeFile(t, dir, "7_marker_api_trace.csv", apiHeader+
		`"MARKER_CORE_API","mark",7,8,10,130,130`+"\n"+
		`"MARKER_CORE_API","range ""quoted"", with comma",7,8,11,90,400`+"\n")
	kern := writeFile(t, dir, "7_kernel_trace.csv", kernelHeader+
		`"KERNEL_DISPATCH","Agent 3",5,0,8,1,1,"k(int, float)",2,130,140`+"\n")
	writeFile(t, dir, "8_kernel_trace.csv", kernelHeader+
		`"KERNEL_DISPATCH","Agent 3",5,0,8,1,1,"other run",2,130,140`+"\n")
	files, err := csvFiles(kern, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 4 {
		t.Fatalf("files %v", files)
	}
	tr, notes := readCSVFiles(t, files)
	t.Run("trailing", func(t *testing.T) {
		text, err := os.ReadFile(kern)
		if err != nil {
			t.Fatal(err)
		}
		readertest.CheckTrailing(t, CSVFormat, "9_kernel_trace.csv", text)
	})
	type st struct {
		cont, typ, name string
		start, end      trace.Time
		depth, order    int32
	}
	var got []string
	for _, s := range tr.States.All() {
		got = append(got, fmt.Sprint(st{fullName(tr, s.Container), tr.Types[s.Type].Name, tr.Values[s.Value].Name, s.Start, s.End, s.Depth, s.Order}))
	}
	// As they complete: the inner calls before hipMemcpy, which holds them;
	// Order ranks them by start.
	want := []string{
		"{Host/Process 7/Thread 8 HIP API inner 110 115 2 2}",
		"{Host/Process 7/Thread 8 HIP API hipLaunchKernel 110 120 1 1}",
		"{Host/Process 7/Thread 8 HIP API hipMemcpy 100 200 0 0}",
		"{Host/Process 7/Thread 8 HSA API hsa_signal_wait 105 190 0 0}",
		`{Host/Process 7/Thread 8 Marker range "quoted", with comma 90 400 0 0}`,
		"{Host/Process 7/Thread 8 (overlap lane 1) HIP API overlap 150 250 0 0}",
		"{Host/Agent 3/Queue 5 Kernel k(int, float) 130 140 0 0}",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("states\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if tr.Events.Len() != 1 || tr.Events.At(0).Time != 130 {
		t.Errorf("events %+v", tr.Events)
	}
	if tr.Links.Len() != 1 || tr.Links.At(0).Start != 110 || tr.Links.At(0).End != 130 || tr.Values[tr.Links.At(0).Value].Name != "hipLaunchKernel" {
		t.Errorf("links %+v", tr.Links)
	} else if r := tr.Types[tr.Links.At(0).Type].Role; r != trace.RoleLaunch {
		// The analyses know the launches by their role, not their name.
		t.Errorf("launch type: role %d, want %d", r, trace.RoleLaunch)
	}
	sk := notes.Skipped()
	if sk["API calls ending before they start"] != 1 || sk["7_hip_api_trace.csv rows that cannot be read"] != 1 {
		t.Errorf("skipped %v", sk)
	}
	if tr.Start != 90 || tr.End != 400 {
		t.Errorf("extent %v %v", tr.Start, tr.End)
	}

	// The whole directory: run 8's kernel has run 7's correlation id 2,
	// but ids are unique within a run only: it is not linked.
	all, err := csvFiles(dir, true)
	if err != nil || len(all) != 5 {
		t.Fatalf("directory: %v, %v", all, err)
	}
	both, _ := readCSVFiles(t, all)
	if both.Links.Len() != 1 {
		t.Errorf("directory: %d links, want 1", both.Links.Len())
	}

	// strict: the bad row is an error naming the file and line.
	err = ReadCSV(files, true, trace.New(), trace.ReadOptions{})
	var fe *errs.FormatError
	if !errors.As(err, &fe) || fe.Line != 7 || !strings.HasSuffix(fe.File, "7_hip_api_trace.csv") {
		t.Errorf("strict: %v", err)
	}
}

// TestCSVCut checks that a cut last line makes the trace incomplete, and
// that an unknown header is an error.
func TestCSVCut(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "1_kernel_trace.csv", kernelHeader+
		`"KERNEL_DISPATCH","Agent 3",5,0,8,1,1,"k(int, float)",2,130,140`+"\n"+
		`"KERNEL_DISPATCH","Agent 3",5,0,8,1,1,"k(int, fl`)
	tr, notes := readCSVFiles(t, []string{p})
	if tr.States.Len() != 1 || len(notes.IncompleteReasons()) != 1 || !strings.Contains(notes.IncompleteReasons()[0], ":3") &&
		!strings.Contains(notes.IncompleteReasons()[0], "(3)") {
		t.Errorf("%d states, incomplete %q", tr.States.Len(), notes.IncompleteReasons())
	}
	q := writeFile(t, dir, "2_kernel_trace.csv", "a,b,c\n1,2,3\n")
	err := ReadCSV([]string{q}, false, trace.New(), trace.ReadOptions{})
	var fe *errs.FormatError
	if !errors.As(err, &fe) || fe.Line != 1 {
		t.Errorf("unknown header: %v", err)
	}
}

func TestCSVCancel(t *testing.T) {
	path := corpus(t, "rocprofv3-csv", "prefill_kernel_trace.csv")
	partial := trace.New()
	stop := make(chan struct{})
	close(stop)
	err := ReadCSV([]string{path}, false, partial, trace.ReadOptions{Cancel: stop})
	if !errors.Is(err, trace.ErrCanceled) || partial.States.Len() != 0 {
		t.Errorf("canceled read: %v, %d states", err, partial.States.Len())
	}
}

// TestCSVCutCompressed: a gzip-compressed CSV file cut short is an error
// naming the file and the line where the text broke.
func TestCSVCutCompressed(t *testing.T) {
	src := corpus(t, "rocprofv3-csv", "prefill_kernel_trace.csv")
	text, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	gz := readertest.Compress(t, text, "gzip")
	cut := gz[:len(gz)/2]
	p := writeFile(t, t.TempDir(), "1_kernel_trace.csv.gz", string(cut))
	plain := writeFile(t, t.TempDir(), "1_kernel_trace.csv", string(readertest.Decompressible(t, cut, "gzip")))
	got, notes := readCSVFiles(t, []string{p})
	want, _ := readCSVFiles(t, []string{plain})
	if diff := readertest.Difference(got, want); diff != "" || got.States.Len() == 0 {
		t.Errorf("cut gzip: %d states, not those of the plain cut: %s", got.States.Len(), diff)
	}
	where := fmt.Sprintf("%s: the compressed data ends at byte %d,", p, len(cut))
	if r := notes.IncompleteReasons(); len(r) == 0 || !strings.HasPrefix(r[0], where) {
		t.Errorf("cut gzip: incomplete %q, want %q", r, where)
	}
}

// TestCSVDuplicateColumns: a header naming a column twice still counts its
// fields right.
func TestCSVDuplicateColumns(t *testing.T) {
	p := writeFile(t, t.TempDir(), "1_kernel_trace.csv", strings.TrimSuffix(kernelHeader, "\n")+`,"Kind"`+"\n"+
		`"KERNEL_DISPATCH","Agent 3",5,0,8,1,1,"k",2,130,140,"x"`+"\n")
	tr, notes := readCSVFiles(t, []string{p})
	if tr.States.Len() != 1 || len(notes.Messages()) != 0 {
		t.Errorf("%d states, notes %q", tr.States.Len(), notes.Messages())
	}
}

// TestCSVCorrupt flips bytes of a corpus file: each read gives a trace
// (rows that cannot be read skipped and counted) or a FormatError naming
// the file, never a panic; a row skipped is never a state.
func TestCSVCorrupt(t *testing.T) {
	text, err := os.ReadFile(corpus(t, "rocprofv3-csv", "decode_kernel_trace.csv"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for i := 0; i < 200; i++ {
		b := bytes.Clone(text)
		at := (i*104729 + 17) % len(b)
		b[at] ^= byte(1 + i%255)
		p := writeFile(t, dir, "1_kernel_trace.csv", string(b))
		tr := trace.New()
		notes := &trace.Notes{}
		err := ReadCSV([]string{p}, false, tr, trace.ReadOptions{Notes: notes})
		var fe *errs.FormatError
		if err != nil && (!errors.As(err, &fe) || fe.File != p) {
			t.Fatalf("flip at %d: %v", at, err)
		}
		if err == nil {
			skipped := int64(0)
			for _, n := range notes.Skipped() {
				skipped += n
			}
			if int64(tr.States.Len())+skipped < 144-1 || tr.States.Len() > 144 {
				t.Errorf("flip at %d: %d states, %d skipped, of 144 rows", at, tr.States.Len(), skipped)
			}
		}
	}
}

// TestCSVHostDirs reads rocprofv3's layout <output>/<hostname>/<pid>_*.csv
// from the output directory: one host per subdirectory.
func TestCSVHostDirs(t *testing.T) {
	out := t.TempDir()
	for _, host := range []string{"nodeA", "nodeB"} {
		if err := os.Mkdir(filepath.Join(out, host), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(out, host), "9_kernel_trace.csv", kernelHeader+
			`"KERNEL_DISPATCH","Agent 1",1,0,8,1,1,"k",2,130,140`+"\n")
	}
	files, err := csvFiles(out, true)
	if err != nil || len(files) != 2 {
		t.Fatalf("files %v, %v", files, err)
	}
	tr, _ := readCSVFiles(t, files)
	var got []string
	for _, s := range tr.States.All() {
		got = append(got, fullName(tr, s.Container))
	}
	if strings.Join(got, " ") != "nodeA/Agent 1/Queue 1 nodeB/Agent 1/Queue 1" {
		t.Errorf("states on %v", got)
	}
}

// TestCommunicationKernelRole: RCCL's kernels, named as NCCL names its
// own, communicate (trace.RoleCommunicationKernel, which the critical
// path reads); other kernels and host calls of such names do not.
func TestCommunicationKernelRole(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "7_hip_api_trace.csv", apiHeader+
		`"HIP_RUNTIME_API","ncclKernelLaunch",7,8,1,100,200`+"\n"+
		`"HIP_RUNTIME_API","hipLaunchKernel",7,8,6,210,220`+"\n"+
		`"HIP_RUNTIME_API","hipMemcpyAsync",7,8,7,230,240`+"\n"+
		`"HIP_RUNTIME_API","hipMalloc",7,8,8,250,260`+"\n")
	kern := writeFile(t, dir, "7_kernel_trace.csv", kernelHeader+
		`"KERNEL_DISPATCH","Agent 3",5,0,8,1,1,"hipLaunchKernel",9,300,310`+"\n"+
		`"KERNEL_DISPATCH","Agent 3",5,0,8,1,1,"ncclKernel_AllReduce_RING_LL_Sum_float",2,130,140`+"\n"+
		`"KERNEL_DISPATCH","Agent 3",5,0,8,1,1,"ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)",3,150,160`+"\n"+
		`"KERNEL_DISPATCH","Agent 3",5,0,8,1,1,"nccl_reduce",4,170,180`+"\n"+
		`"KERNEL_DISPATCH","Agent 3",5,0,8,1,1,"k(int, float)",5,190,195`+"\n")
	files, err := csvFiles(kern, true)
	if err != nil {
		t.Fatal(err)
	}
	tr, _ := readCSVFiles(t, files)
	got := map[string]trace.Role{}
	for _, s := range tr.States.All() {
		got[tr.Values[s.Value].Name] = tr.Values[s.Value].Role
	}
	want := map[string]trace.Role{"ncclKernelLaunch": trace.RoleNone,
		"ncclKernel_AllReduce_RING_LL_Sum_float":                  trace.RoleCommunicationKernel,
		"ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)": trace.RoleCommunicationKernel,
		"nccl_reduce": trace.RoleNone, "k(int, float)": trace.RoleNone,
		// HIP's launching calls, not a kernel of such a name.
		"hipLaunchKernel": trace.RoleLaunchCall, "hipMemcpyAsync": trace.RoleLaunchCall, "hipMalloc": trace.RoleNone}
	got["hipLaunchKernel"] = trace.RoleNone
	for _, s := range tr.States.All() {
		if v := tr.Values[s.Value]; v.Name == "hipLaunchKernel" && tr.Types[v.Type].Name == kindHIP {
			got[v.Name] = v.Role
		} else if v.Name == "hipLaunchKernel" && v.Role != trace.RoleNone {
			t.Errorf("the kernel named hipLaunchKernel has role %v", v.Role)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("roles %v, want %v", got, want)
	}
}

// TestMarkerSteps: the roctx ranges named as PyTorch profiler's steps
// have trace.RoleStep and their number as Step; a mark of that name, a
// HIP call and other ranges have no step.
func TestMarkerSteps(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "7_marker_api_trace.csv", apiHeader+
		`"MARKER_CORE_RANGE_API","ProfilerStep#3",7,8,1,100,200`+"\n"+
		`"MARKER_CORE_RANGE_API","ProfilerStep#4, op_id = 77",7,8,2,200,300`+"\n"+
		`"MARKER_CORE_RANGE_API","aten::mm, op_id = 78",7,8,3,210,220`+"\n"+
		`"MARKER_CORE_RANGE_API","ProfilerStep",7,8,4,300,310`+"\n"+
		`"MARKER_CORE_API","ProfilerStep#9",7,8,5,320,320`+"\n")
	kern := writeFile(t, dir, "7_hip_api_trace.csv", apiHeader+
		`"HIP_RUNTIME_API","ProfilerStep#5",7,8,6,110,120`+"\n")
	files, err := csvFiles(kern, true)
	if err != nil {
		t.Fatal(err)
	}
	tr, _ := readCSVFiles(t, files)
	got := map[string][2]int32{}
	for _, v := range tr.Values {
		got[tr.Types[v.Type].Name+"|"+v.Name] = [2]int32{int32(v.Role), v.Step}
	}
	step := int32(trace.RoleStep)
	want := map[string][2]int32{"Marker|ProfilerStep#3": {step, 3}, "Marker|ProfilerStep#4, op_id = 77": {step, 4},
		"Marker|aten::mm, op_id = 78": {}, "Marker|ProfilerStep": {}, "Marker event|ProfilerStep#9": {},
		"HIP API|ProfilerStep#5": {}}
	if !maps.Equal(got, want) {
		t.Errorf("roles and steps %v, want %v", got, want)
	}
}
