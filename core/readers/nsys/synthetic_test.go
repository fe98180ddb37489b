package nsys

import (
	"cmp"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

var update = flag.Bool("update", false, "rewrite testdata/tiny.sqlite")

// Global ids of the synthetic database: host 1 (the top 16 bits), two
// processes, pids 100 and 200.
const (
	host = int64(1) << 48
	p1   = host | 100<<24
	p2   = host | 200<<24
	t1   = p1 | 100 // main thread of p1
	t2   = p1 | 101 // worker of p1
	t3   = p2 | 200 // main thread of p2
)

// tinySQL is a small export in the current schema's shape, with one
// instance of each case the reader handles: runtime and driver calls,
// kernels (one of NCCL, one launched by the driver API, one overlapping
// another on its stream), a memcpy and a memset, two processes with the
// same context id on one GPU, NVTX push/pop ranges in two domains,
// start/end ranges that overlap, a mark, a category definition, an OS
// runtime call, rows with a null or reversed time, and a table the model
// leaves out.
var tinySQL = fmt.Sprintf(`
PRAGMA page_size = 512;
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel'), (2, 'cudaMemcpyAsync'), (3, 'cudaMemsetAsync'),
	(4, 'gemm_kernel'), (5, 'void gemm_kernel<float>(float*)'),
	(6, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL'), (7, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)'),
	(8, 'cuLaunchKernel'), (9, 'main-thread'), (10, 'worker'), (11, 'pthread_mutex_lock'), (12, 'forward'),
	(13, 'cudaStreamSynchronize');
CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (1, 'CUDA_MEMCPY_KIND_HTOD', 'Host-to-Device');
CREATE TABLE TARGET_INFO_SYSTEM_ENV (globalVid INTEGER, devStateName TEXT NOT NULL, name TEXT NOT NULL, nameEnum INTEGER NOT NULL, value TEXT NOT NULL);
INSERT INTO TARGET_INFO_SYSTEM_ENV VALUES (%[1]d, 'x', 'Hostname', 0, 'node1');
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, cuDevice INTEGER);
INSERT INTO TARGET_INFO_GPU VALUES (%[1]d, 0, 'H100', 0);
CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);
INSERT INTO PROCESSES VALUES (%[2]d, 100, 'train'), (%[3]d, 200, 'train');
CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
INSERT INTO ThreadNames VALUES (9, 0, %[4]d), (10, 0, %[5]d);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER,
	correlationId INTEGER, nameId INTEGER, returnValue INTEGER, callchainId INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES
	(1000, 1500, 0, %[4]d, 1, 1, 0, NULL), (2000, 2600, 0, %[4]d, 2, 2, 0, NULL), (3000, 3400, 0, %[4]d, 3, 3, 0, NULL),
	(4000, 9000, 0, %[4]d, 4, 13, 0, NULL), (5000, 5200, 0, %[4]d, 5, 1, 0, NULL),
	(7000, 6000, 0, %[4]d, 6, 1, 0, NULL), (8000, NULL, 0, %[4]d, 9, 1, 0, NULL),
	(1000, 1200, 0, %[6]d, 1, 1, 0, NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_DRIVER (start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER,
	correlationId INTEGER, nameId INTEGER, returnValue INTEGER, callchainId INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_DRIVER VALUES (1100, 1400, 0, %[4]d, 7, 8, 0, NULL), (6000, 6100, 0, %[5]d, 8, 8, 0, NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
	contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
	demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
	(1600, 2500, 0, 1, 7, 1, %[2]d, 5, 4, NULL), (5300, 6000, 0, 1, 7, 5, %[2]d, 7, 6, NULL),
	(6200, 6800, 0, 1, 13, 8, %[2]d, 5, 4, NULL), (6500, 7000, 0, 1, 13, 99, %[2]d, 5, 4, NULL),
	(1300, 1900, 0, 1, 7, 1, %[3]d, 5, 4, NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
	contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL,
	copyKind INTEGER NOT NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (2700, 2900, 0, 1, 7, 2, %[2]d, 4096, 1);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
	contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, value INTEGER,
	bytes INTEGER NOT NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (3600, 3700, 0, 1, 7, 3, %[2]d, 0, 128);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
	category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId INTEGER);
INSERT INTO NVTX_EVENTS VALUES
	(400, NULL, 33, NULL, 1, NULL, 'cat', %[4]d, NULL, NULL, 0),
	(500, NULL, 75, NULL, NULL, NULL, 'NCCL', %[4]d, NULL, NULL, 5),
	(510, NULL, 39, NULL, NULL, NULL, 'trainer', %[5]d, NULL, NULL, 0),
	(900, 9500, 59, NULL, NULL, NULL, 'step', %[4]d, NULL, NULL, 0),
	(950, 3000, 59, NULL, NULL, NULL, NULL, %[4]d, NULL, 12, 0),
	(1000, 2000, 59, NULL, NULL, NULL, 'allreduce', %[4]d, NULL, NULL, 5),
	(1000, 5000, 60, NULL, NULL, NULL, 'req A', %[4]d, %[4]d, NULL, 0),
	(2000, 6000, 60, NULL, NULL, NULL, 'req B', %[4]d, %[5]d, NULL, 0),
	(3000, 4000, 60, NULL, NULL, NULL, 'req C', %[4]d, %[4]d, NULL, 0),
	(4500, NULL, 34, NULL, NULL, NULL, 'checkpoint', %[4]d, NULL, NULL, 0),
	(9600, NULL, 59, NULL, NULL, NULL, 'never closed', %[4]d, NULL, NULL, 0);
CREATE TABLE OSRT_API (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL, globalTid INTEGER,
	nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, nestingLevel INTEGER, callchainId INTEGER NOT NULL);
INSERT INTO OSRT_API VALUES (100, 300, 27, %[5]d, 11, 0, 0, 0);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER NOT NULL, end INTEGER NOT NULL, globalTid INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (4100, 8900, %[4]d), (4200, 4300, %[4]d);
`, host, p1, p2, t1, t2, t3)

// writeDB writes a database from a SQL script, with the pure-Go driver,
// so that the test needs no sqlite3 program.
func writeDB(t testing.TB, path, script string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, stmt := range strings.Split(script, ";\n") {
		if strings.TrimSpace(stmt) == "" {
			continue
		}
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%v\n%s", err, stmt)
		}
	}
}

func tinyDB(t testing.TB) string {
	path := filepath.Join(t.TempDir(), "tiny.sqlite")
	writeDB(t, path, tinySQL)
	return path
}

func readTrace(t testing.TB, path string, o readerOptions) (*trace.Trace, *trace.Notes) {
	t.Helper()
	tr := trace.New()
	notes := &trace.Notes{}
	if err := readWith(path, o, tr, trace.ReadOptions{Notes: notes}); err != nil {
		t.Fatal(err)
	}
	checkNesting(t, tr)
	return tr, notes
}

// stateList prints the states of one type, "container|value|start|end|depth".
func stateList(tr *trace.Trace, typ string) []string {
	var out []string
	for _, s := range tr.States.All() {
		if tr.TypeName(s.Type) == typ {
			out = append(out, fmt.Sprintf("%s|%s|%d|%d|%d", tr.ContainerPath(s.Container, "/"), tr.ValueName(s.Value),
				s.Start, s.End, s.Depth))
		}
	}
	return out
}

func TestSynthetic(t *testing.T) {
	tr, notes := readTrace(t, tinyDB(t), readerOptions{})
	var conts []string
	for i := 1; i < len(tr.Containers); i++ {
		c := tr.Containers[i]
		conts = append(conts, tr.TypeName(c.Type)+" "+tr.ContainerPath(int32(i), "/")+" ["+c.Alias+"]")
	}
	want := []string{
		"Host node1 [1]",
		"Process node1/train (100) [100]",
		"Thread node1/train (100)/main-thread (100) [100]",
		"Thread node1/train (100)/main-thread (100) (overlap lane 1) [100#1]",
		"Thread node1/train (100)/trainer (101) [101]",
		"Process node1/train (200) [200]",
		"Thread node1/train (200)/Thread 200 [200]",
		"Device node1/GPU 0 (H100) [0]",
		"Context node1/GPU 0 (H100)/Context 1 (pid 100) [100:1]",
		"Stream node1/GPU 0 (H100)/Context 1 (pid 100)/Stream 7 [7]",
		"Stream node1/GPU 0 (H100)/Context 1 (pid 100)/Stream 13 [13]",
		"Stream node1/GPU 0 (H100)/Context 1 (pid 100)/Stream 13 (overlap lane 1) [13#1]",
		"Context node1/GPU 0 (H100)/Context 1 (pid 200) [200:1]",
		"Stream node1/GPU 0 (H100)/Context 1 (pid 200)/Stream 7 [7]",
	}
	if !reflect.DeepEqual(conts, want) {
		t.Errorf("containers:\n%s\nwant\n%s", strings.Join(conts, "\n"), strings.Join(want, "\n"))
	}

	const (
		main  = "node1/train (100)/main-thread (100)"
		gpu   = "node1/GPU 0 (H100)/Context 1 (pid 100)/"
		other = "node1/GPU 0 (H100)/Context 1 (pid 200)/"
	)
	// States come per container and type in the order they complete.
	for typ, want := range map[string][]string{
		typeRuntime: {
			main + "|cudaLaunchKernel|1000|1500|0", main + "|cudaMemcpyAsync|2000|2600|0", main + "|cudaMemsetAsync|3000|3400|0",
			main + "|cudaLaunchKernel|5000|5200|1", main + "|cudaStreamSynchronize|4000|9000|0",
			"node1/train (200)/Thread 200|cudaLaunchKernel|1000|1200|0",
		},
		typeDriver: {main + "|cuLaunchKernel|1100|1400|0", "node1/train (100)/trainer (101)|cuLaunchKernel|6000|6100|0"},
		typeKernel: {
			gpu + "Stream 7|gemm_kernel|1600|2500|0", gpu + "Stream 13|gemm_kernel|6200|6800|0",
			gpu + "Stream 13 (overlap lane 1)|gemm_kernel|6500|7000|0", other + "Stream 7|gemm_kernel|1300|1900|0",
		},
		typeNCCL:                {gpu + "Stream 7|ncclDevKernel_AllReduce_Sum_f32_RING_LL|5300|6000|0"},
		typeMemcpy:              {gpu + "Stream 7|Memcpy HtoD|2700|2900|0"},
		typeMemset:              {gpu + "Stream 7|Memset|3600|3700|0"},
		typePushPop:             {main + "|forward|950|3000|1", main + "|step|900|9500|0"},
		typePushPop + " (NCCL)": {main + "|allreduce|1000|2000|0"},
		// req B overlaps req A: it goes to lane 1, and req C, inside both,
		// nests in the latest started.
		typeStartEnd: {main + "|req A|1000|5000|0", main + " (overlap lane 1)|req C|3000|4000|1",
			main + " (overlap lane 1)|req B|2000|6000|0"},
		typeOSRT: {"node1/train (100)/trainer (101)|pthread_mutex_lock|100|300|0"},
	} {
		if got := stateList(tr, typ); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n%s\nwant\n%s", typ, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	if n := tr.States.Len(); n != 22 {
		t.Errorf("%d states, want 22", n)
	}
	if tr.Events.Len() != 1 || tr.ValueName(tr.Events.At(0).Value) != "checkpoint" || tr.Events.At(0).Time != 4500 ||
		tr.ContainerPath(tr.Events.At(0).Container, "/") != main || tr.TypeName(tr.Events.At(0).Type) != typeMark {
		t.Errorf("events: %+v", tr.Events)
	}

	var links []string
	for _, l := range tr.Links.All() {
		links = append(links, fmt.Sprintf("%s -> %s %s %s %d-%d %v", tr.ContainerPath(l.From, "/"), tr.ContainerPath(l.To, "/"),
			tr.ValueName(l.Value), l.Key, l.Start, l.End, l.Size))
	}
	wantLinks := []string{
		main + " -> " + gpu + "Stream 7 kernel 1 1000-1600 NaN",
		main + " -> " + gpu + "Stream 7 kernel 5 5000-5300 NaN",
		"node1/train (100)/trainer (101) -> " + gpu + "Stream 13 kernel 8 6000-6200 NaN",
		"node1/train (200)/Thread 200 -> " + other + "Stream 7 kernel 1 1000-1300 NaN",
		main + " -> " + gpu + "Stream 7 memcpy 2 2000-2700 4096",
		main + " -> " + gpu + "Stream 7 memset 3 3000-3600 128",
	}
	if !reflect.DeepEqual(links, wantLinks) {
		t.Errorf("links:\n%s\nwant\n%s", strings.Join(links, "\n"), strings.Join(wantLinks, "\n"))
	}
	if tr.Start != 100 || tr.End != 9500 {
		t.Errorf("extent %d-%d, want 100-9500", tr.Start, tr.End)
	}

	wantSkipped := map[string]int64{
		"rows of CUPTI_ACTIVITY_KIND_RUNTIME with a null time or an end before the start": 2,
		"rows of NVTX_EVENTS with a null time or an end before the start":                 1,
		"NVTX category definitions (eventType 33)":                                        1,
		"rows of CUPTI_ACTIVITY_KIND_SYNCHRONIZATION without a device, context or stream": 2,
	}
	if got := notes.Skipped(); !reflect.DeepEqual(got, wantSkipped) {
		t.Errorf("skipped %v, want %v", got, wantSkipped)
	}
	msgs := strings.Join(notes.Messages(), "\n")
	for _, w := range []string{"1 CUDA kernel states overlap", "2 NVTX start/end range states overlap"} {
		if !strings.Contains(msgs, w) {
			t.Errorf("notes lack %q:\n%s", w, msgs)
		}
	}
}

func TestDemangledNames(t *testing.T) {
	tr, _ := readTrace(t, tinyDB(t), readerOptions{DemangledNames: true})
	got := stateList(tr, typeNCCL)
	want := []string{"node1/GPU 0 (H100)/Context 1 (pid 100)/Stream 7|ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)|5300|6000|0"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%v, want %v", got, want)
	}
	if got := stateList(tr, typeKernel)[0]; !strings.Contains(got, "|void gemm_kernel<float>(float*)|") {
		t.Errorf("kernel %s", got)
	}
}

// TestTestdata checks that testdata/tiny.sqlite, which the example and the
// fuzz seeds read, is the synthetic database.
func TestTestdata(t *testing.T) {
	path := filepath.Join("testdata", "tiny.sqlite")
	if *update {
		os.Remove(path)
		writeDB(t, path, tinySQL)
	}
	got, _ := readTrace(t, path, readerOptions{})
	want, _ := readTrace(t, tinyDB(t), readerOptions{})
	// Not DeepEqual: the links' NaN sizes differ from themselves.
	if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
		t.Errorf("testdata/tiny.sqlite is not the synthetic database: run go test -run TestTestdata -update")
	}
}

func TestCancel(t *testing.T) {
	path := tinyDB(t)
	_, _, reports := readertest.Cancel(t, 22, func(sink trace.Sink, opt trace.ReadOptions) error {
		return Read(path, sink, opt)
	})
	if reports != 1 {
		t.Errorf("%d progress reports after the cancellation, want 1", reports)
	}
}

func TestProgress(t *testing.T) {
	var last [2]int64
	calls := 0
	err := Read(tinyDB(t), trace.New(), trace.ReadOptions{Progress: func(done, total int64) {
		calls++
		if done < last[0] || total != 31 {
			t.Errorf("progress %d/%d after %d", done, total, last[0])
		}
		last = [2]int64{done, total}
	}})
	if err != nil {
		t.Fatal(err)
	}
	// 8 runtime + 2 driver + 5 kernel + 1 memcpy + 1 memset + 11 NVTX + 1
	// OS runtime + 2 synchronization rows.
	if last != [2]int64{31, 31} {
		t.Errorf("last progress %v", last)
	}
	if calls < 7 {
		t.Errorf("%d progress reports, want one per table at least", calls)
	}
}

func TestFormat(t *testing.T) {
	path := tinyDB(t)
	if !looks(path) {
		t.Errorf("Looks(%s) = false", path)
	}
	other := filepath.Join(t.TempDir(), "other.sqlite")
	writeDB(t, other, "CREATE TABLE rocpd_op (id INTEGER, start INTEGER, end INTEGER);\nCREATE TABLE StringIds (id INTEGER, value TEXT)")
	text := filepath.Join(t.TempDir(), "notes.sqlite")
	os.WriteFile(text, []byte("not a database"), 0o644)
	for _, p := range []string{other, text, t.TempDir(), filepath.Join(t.TempDir(), "absent")} {
		if looks(p) {
			t.Errorf("Looks(%s) = true", p)
		}
	}
	var fe *errs.FormatError
	if err := Read(other, trace.New(), trace.ReadOptions{}); !errors.As(err, &fe) || !strings.Contains(err.Error(), "not an Nsight Systems export") {
		t.Errorf("other database: %v", err)
	}

	src, err := Format.Open(path, ingest.Values{"kernel_names": "demangled"})
	if err != nil || !src.Whole {
		t.Fatalf("Open: %v %+v", err, src)
	}
	tr := trace.New()
	if err := src.Read(tr, trace.ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := stateList(tr, typeNCCL); len(got) != 1 || !strings.Contains(got[0], "(ncclDevKernelArgsStorage") {
		t.Errorf("kernel_names=demangled: %v", got)
	}
	var ae *errs.ArgumentError
	if _, err := Format.Open(path, ingest.Values{"kernel_names": "mangled"}); !errors.As(err, &ae) {
		t.Errorf("kernel_names=mangled: %v", err)
	}

	// A report, even one that exists, is refused with the command that
	// exports it.
	rep := filepath.Join(t.TempDir(), "run.nsys-rep")
	os.WriteFile(rep, []byte("binary report"), 0o644)
	for _, p := range []string{rep, "absent.qdrep"} {
		_, err := Format.Open(p, nil)
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), "nsys export --type sqlite") {
			t.Errorf("Open(%s): %v", p, err)
		}
		if err := Read(p, trace.New(), trace.ReadOptions{}); !errors.As(err, &fe) {
			t.Errorf("Read(%s): %v", p, err)
		}
	}
}

// checkNesting verifies the sink contract the model builder relies on: on
// each container and state type, states at one depth do not overlap, a
// state at depth d > 0 lies within one at depth d-1, states arrive in the
// order they complete, and Order ranks them by start.
func checkNesting(t testing.TB, tr *trace.Trace) {
	t.Helper()
	type key struct{ c, typ int32 }
	byKey := map[key][]trace.State{}
	for _, s := range tr.States.All() {
		k := key{s.Container, s.Type}
		prev := byKey[k]
		if n := len(prev); n > 0 {
			p := prev[n-1]
			if s.End < p.End || s.End == p.End && s.Depth > p.Depth {
				t.Fatalf("state %+v arrives after %+v, which completes later", s, p)
			}
		}
		byKey[k] = append(prev, s)
	}
	for k, states := range byKey {
		byDepth := map[int32][]trace.State{}
		byOrder := make([]*trace.State, len(states))
		for i, s := range states {
			if s.Order < 0 || int(s.Order) >= len(states) || byOrder[s.Order] != nil {
				t.Fatalf("%v: order %d out of range or twice", k, s.Order)
			}
			byOrder[s.Order] = &states[i]
			byDepth[s.Depth] = append(byDepth[s.Depth], s)
		}
		for i := 1; i < len(byOrder); i++ {
			if byOrder[i].Start < byOrder[i-1].Start {
				t.Fatalf("%v: order %d starts before order %d", k, i, i-1)
			}
		}
		for d, list := range byDepth {
			for i := 1; i < len(list); i++ {
				if list[i].Start < list[i-1].End {
					t.Fatalf("%v: depth %d states overlap: %+v %+v", k, d, list[i-1], list[i])
				}
			}
			if d == 0 {
				continue
			}
			// The states at depth d-1 do not overlap: the one that may
			// contain s is the latest to start at or before it.
			outer := byDepth[d-1]
			slices.SortFunc(outer, func(a, b trace.State) int { return cmp.Compare(a.Start, b.Start) })
			for _, s := range list {
				i, _ := slices.BinarySearchFunc(outer, s.Start, func(p trace.State, at trace.Time) int {
					if p.Start <= at {
						return -1
					}
					return 1
				})
				found := false
				for j := i - 1; j >= 0 && outer[j].Start == outer[i-1].Start; j-- {
					if s.End <= outer[j].End {
						found = true
						break
					}
				}
				if !found {
					t.Fatalf("%v: %+v is at depth %d but within no state at depth %d", k, s, d, d-1)
				}
			}
		}
	}
}

// TestOldSchema reads tables with the columns of early exports only: no
// shortName, correlationId, textId or domainId, and no PROCESSES (the
// main thread names the process). What the columns would give is left
// out (no links), the rest is read.
func TestOldSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.sqlite")
	writeDB(t, path, fmt.Sprintf(`CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES (1, 'cudaLaunch'), (2, 'kernel(int)'), (3, 'a.out');
CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
INSERT INTO ThreadNames VALUES (3, 0, %[1]d);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, globalTid INTEGER, nameId INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (10, 20, %[1]d, 1);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER, streamId INTEGER,
	globalPid INTEGER, demangledName INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (15, 40, 0, 1, 7, %[2]d, 2);
CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, eventType INTEGER, text TEXT, globalTid INTEGER);
INSERT INTO NVTX_EVENTS VALUES (5, 50, 59, 'main', %[1]d)`, t1, p1))
	if !looks(path) {
		t.Error("Looks = false")
	}
	tr, notes := readTrace(t, path, readerOptions{})
	var got []string
	for _, typ := range []string{typeRuntime, typeKernel, typePushPop} {
		got = append(got, stateList(tr, typ)...)
	}
	want := []string{
		"host/a.out (100)/a.out (100)|cudaLaunch|10|20|0",
		"host/GPU 0/Context 1/Stream 7|kernel(int)|15|40|0",
		"host/a.out (100)/a.out (100)|main|5|50|0",
	}
	if !reflect.DeepEqual(got, want) || tr.Links.Len() != 0 || len(notes.Messages()) != 0 {
		t.Errorf("%v, want %v; %d links; notes %v", got, want, tr.Links.Len(), notes.Messages())
	}
}

// TestEventWaitsByEventID reads the waits for CUDA events of an export
// without event sync ids (Nsight Systems 2023: its CUDA_EVENT and
// SYNCHRONIZATION tables, as 2023.3.1 writes them, name the event by
// eventId only, which every record of the event shares): each wait is
// for the event's last record before the waiting call, by correlation
// id. They were skipped ("without ... event sync id"), and the critical
// path lost the edge to the work the event waits for.
func TestEventWaitsByEventID(t *testing.T) {
	path := filepath.Join(t.TempDir(), "2023.sqlite")
	writeDB(t, path, fmt.Sprintf(`CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES (1, 'cudaEventRecord_v3020'), (2, 'cudaEventSynchronize_v3020'), (3, 'cudaStreamWaitEvent_v3020'),
	(4, 'cudaLaunchKernel_v7000'), (5, 'k'), (6, 'a.out');
CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
INSERT INTO ThreadNames VALUES (6, 0, %[1]d);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
	globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1, 2, 0, %[1]d, 5, 2, 0, NULL), (10, 11, 0, %[1]d, 10, 4, 0, NULL),
	(12, 13, 0, %[1]d, 11, 1, 0, NULL), (14, 15, 0, %[1]d, 12, 3, 0, NULL), (20, 21, 0, %[1]d, 20, 4, 0, NULL),
	(30, 31, 0, %[1]d, 21, 1, 0, NULL), (32, 60, 0, %[1]d, 22, 2, 0, NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
	contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL,
	shortName INTEGER NOT NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (11, 19, 0, 1, 7, 10, %[2]d, 5, 5), (21, 59, 0, 1, 7, 20, %[2]d, 5, 5);
CREATE TABLE CUPTI_ACTIVITY_KIND_CUDA_EVENT (deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,
	correlationId INTEGER, globalPid INTEGER, eventId INTEGER NOT NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_CUDA_EVENT VALUES (0, 1, 7, 21, %[2]d, 3), (0, 1, 7, 11, %[2]d, 3);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
	contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, syncType INTEGER NOT NULL,
	eventId INTEGER NOT NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (1, 2, 0, 1, 4294967295, 5, %[2]d, 1, 3),
	(14, 15, 0, 1, 8, 12, %[2]d, 2, 3), (32, 60, 0, 1, 4294967295, 22, %[2]d, 1, 3)`, t1, p1))
	tr, notes := readTrace(t, path, readerOptions{})
	var got []string
	for _, l := range tr.Links.All() {
		if tr.TypeName(l.Type) == typeWait {
			// The analyses know the waits by their role, not their name.
			if r := tr.Types[l.Type].Role; r != trace.RoleEventWait {
				t.Errorf("event wait type: role %d, want %d", r, trace.RoleEventWait)
			}
			got = append(got, fmt.Sprintf("%s %d->%d key %s", tr.Containers[l.From].Name, l.Start, l.End, l.Key))
		}
	}
	// The wait of call 5 comes before any record: no link. Call 12 waits
	// for record 11, call 22 for record 21 (the event recorded again).
	want := []string{"Stream 7 12->14 key 11", "Stream 7 30->32 key 21"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("event waits %q, want %q; notes %v", got, want, notes.Messages())
	}
	for _, m := range notes.Messages() {
		if strings.Contains(m, "event sync id") {
			t.Errorf("note %q: the records were read", m)
		}
	}
}
