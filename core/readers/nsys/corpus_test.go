package nsys

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// corpus lists the exports of the shared trace corpus: two recent ones
// (schema 3.25, two GPUs, NCCL in mfu_2gpu_before) and two older ones of
// Perlmutter (OS runtime, GPU names, an older NVTX_EVENTS).
var corpus = []string{
	"nsys/h100_2gpu_1s.sqlite",
	"nsys/mfu_2gpu_before.sqlite",
	"pipit/hist/data/cloverleaf-nsys/perlmutter-cloverleaf-cuda.sqlite",
	"pipit/hist/data/saxpy-mpi-cuda_nsys_perlmutter0.sqlite",
}

func corpusPath(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join("..", "..", "..", "..", "shared", "traces", name)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s is absent (the shared trace corpus): %v", name, err)
	}
	if _, err := exec.LookPath("sqlite3"); err != nil {
		t.Skip("sqlite3 is not installed: it is the oracle")
	}
	return path
}

// query runs SQL through the sqlite3 program and returns its rows.
func query(t *testing.T, path, sql string) []string {
	t.Helper()
	out, err := exec.Command("sqlite3", "-readonly", path, sql).CombinedOutput()
	if err != nil {
		t.Fatalf("sqlite3 %s: %v\n%s", sql, err, out)
	}
	s := strings.TrimSpace(string(out))
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func count(t *testing.T, path, sql string) int {
	t.Helper()
	rows := query(t, path, sql)
	if len(rows) != 1 {
		t.Fatalf("%s: %v", sql, rows)
	}
	n, err := strconv.Atoi(rows[0])
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func hasTable(t *testing.T, path, table string) bool {
	return count(t, path, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '"+table+"'") == 1
}

// valid is the SQL condition of a row the reader models.
const valid = "start IS NOT NULL AND end IS NOT NULL AND end >= start"

// ncclSQL tells an NCCL kernel in SQL as isNCCL does.
const ncclSQL = "(substr((SELECT value FROM StringIds WHERE id = shortName), 1, 4) = 'nccl' OR " +
	"substr((SELECT value FROM StringIds WHERE id = demangledName), 1, 4) = 'nccl')"

func TestCorpus(t *testing.T) {
	for _, name := range corpus {
		t.Run(filepath.Base(name), func(t *testing.T) {
			path := corpusPath(t, name)
			if !looks(path) {
				t.Error("Looks = false")
			}
			tr, notes := readTrace(t, path, readerOptions{})
			byType := map[string]int{}
			for _, s := range tr.States.All() {
				byType[tr.TypeName(s.Type)]++
			}
			// The counts of states of each kind are the counts of rows.
			tables := map[string]string{
				typeRuntime: "CUPTI_ACTIVITY_KIND_RUNTIME", typeDriver: "CUPTI_ACTIVITY_KIND_DRIVER",
				typeMemcpy: "CUPTI_ACTIVITY_KIND_MEMCPY", typeMemset: "CUPTI_ACTIVITY_KIND_MEMSET", typeOSRT: "OSRT_API",
			}
			for typ, table := range tables {
				want := 0
				if hasTable(t, path, table) {
					want = count(t, path, "SELECT count(*) FROM "+table+" WHERE "+valid)
				}
				if byType[typ] != want {
					t.Errorf("%d %s states, want %d (rows of %s)", byType[typ], typ, want, table)
				}
			}
			const kernels = "CUPTI_ACTIVITY_KIND_KERNEL"
			if hasTable(t, path, kernels) {
				nccl := count(t, path, "SELECT count(*) FROM "+kernels+" WHERE "+valid+" AND "+ncclSQL)
				other := count(t, path, "SELECT count(*) FROM "+kernels+" WHERE "+valid+" AND NOT "+ncclSQL)
				if byType[typeNCCL] != nccl || byType[typeKernel] != other {
					t.Errorf("%d NCCL and %d other kernels, want %d and %d", byType[typeNCCL], byType[typeKernel], nccl, other)
				}
				if name == "nsys/mfu_2gpu_before.sqlite" && nccl != 66 {
					t.Errorf("%d NCCL kernels in the 2-GPU file, want 66 (ncclDevKernel_SendRecv)", nccl)
				}
				// The kernels that communicate, by the names the states
				// show (the short ones): NCCL's, as Holistic Trace
				// Analysis tells them, have the role.
				comm := count(t, path, "SELECT count(*) FROM "+kernels+" WHERE "+valid+
					" AND (SELECT value FROM StringIds WHERE id = shortName) GLOB 'nccl*Kernel*'")
				roled := 0
				for _, s := range tr.States.All() {
					if tr.Values[s.Value].Role == trace.RoleCommunicationKernel {
						roled++
					}
				}
				if roled != comm {
					t.Errorf("%d states of role RoleCommunicationKernel, want %d", roled, comm)
				}
				checkFirstKernels(t, path, tr)
			}
			checkMemcpyKinds(t, path, tr)
			checkNVTX(t, path, tr)
			checkFirstCalls(t, path, tr)
			checkLinks(t, path, tr)
			// The synchronisation records are states too, by kind.
			const sync = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"
			if hasTable(t, path, sync) {
				checkSync(t, path, tr)
				if got := notes.Skipped()["rows of table "+sync]; got != 0 {
					t.Errorf("skipped %d rows of %s", got, sync)
				}
			}
			checkStream(t, path, tr)
		})
	}
}

// tidOfContainer returns the id of a thread or stream container from its
// alias, lanes included ("7#1" is lane 1 of stream 7).
func idOfContainer(tr *trace.Trace, c int32) string {
	a := tr.Containers[c].Alias
	if i := strings.IndexByte(a, '#'); i >= 0 {
		a = a[:i]
	}
	return a
}

// checkFirstKernels compares the first kernels with their rows: times
// exact to the nanosecond, name, stream.
func checkFirstKernels(t *testing.T, path string, tr *trace.Trace) {
	rows := query(t, path, `SELECT k.start, k.end, s.value, k.streamId FROM CUPTI_ACTIVITY_KIND_KERNEL k
		JOIN StringIds s ON s.id = k.shortName ORDER BY k.start, k.rowid LIMIT 5`)
	for _, row := range rows {
		if !hasState(tr, row, func(s trace.State) string {
			return fmt.Sprintf("%d|%d|%s|%s", s.Start, s.End, tr.ValueName(s.Value), idOfContainer(tr, s.Container))
		}, typeKernel, typeNCCL) {
			t.Errorf("no kernel state start|end|name|stream = %s", row)
		}
	}
}

// checkFirstCalls compares the first runtime API calls with their rows.
func checkFirstCalls(t *testing.T, path string, tr *trace.Trace) {
	rows := query(t, path, `SELECT r.start, r.end, s.value, r.globalTid & 16777215 FROM CUPTI_ACTIVITY_KIND_RUNTIME r
		JOIN StringIds s ON s.id = r.nameId ORDER BY r.start, r.rowid LIMIT 5`)
	for _, row := range rows {
		if !hasState(tr, row, func(s trace.State) string {
			return fmt.Sprintf("%d|%d|%s|%s", s.Start, s.End, tr.ValueName(s.Value), idOfContainer(tr, s.Container))
		}, typeRuntime) {
			t.Errorf("no runtime state start|end|name|tid = %s", row)
		}
	}
}

func hasState(tr *trace.Trace, want string, show func(trace.State) string, types ...string) bool {
	for _, s := range tr.States.All() {
		name := tr.TypeName(s.Type)
		for _, typ := range types {
			if name == typ && show(s) == want {
				return true
			}
		}
	}
	return false
}

// checkMemcpyKinds compares the memcpy states by copy kind.
func checkMemcpyKinds(t *testing.T, path string, tr *trace.Trace) {
	const table = "CUPTI_ACTIVITY_KIND_MEMCPY"
	if !hasTable(t, path, table) {
		return
	}
	want := map[string]int{}
	for _, row := range query(t, path, "SELECT copyKind, count(*) FROM "+table+" WHERE "+valid+" GROUP BY copyKind") {
		f := strings.Split(row, "|")
		k, _ := strconv.Atoi(f[0])
		n, _ := strconv.Atoi(f[1])
		want["Memcpy "+copyKinds[k]] = n
	}
	got := map[string]int{}
	for _, s := range tr.States.All() {
		if tr.TypeName(s.Type) == typeMemcpy {
			got[tr.ValueName(s.Value)]++
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("memcpy by kind %v, want %v", got, want)
	}
}

// checkNVTX compares the NVTX push/pop ranges per thread and domain.
func checkNVTX(t *testing.T, path string, tr *trace.Trace) {
	if !hasTable(t, path, "NVTX_EVENTS") {
		return
	}
	want := map[string]int{}
	for _, row := range query(t, path, "SELECT globalTid & 16777215, domainId, count(*) FROM NVTX_EVENTS WHERE eventType IN (59, 70) AND "+
		valid+" GROUP BY 1, 2") {
		f := strings.Split(row, "|")
		n, _ := strconv.Atoi(f[2])
		want[f[0]+" domain "+f[1]] = n
	}
	domains := map[string]string{"": "0"}
	for _, row := range query(t, path, "SELECT DISTINCT domainId, text FROM NVTX_EVENTS WHERE eventType = 75") {
		f := strings.SplitN(row, "|", 2)
		domains[" ("+f[1]+")"] = f[0]
	}
	got := map[string]int{}
	for _, s := range tr.States.All() {
		typ := tr.TypeName(s.Type)
		if !strings.HasPrefix(typ, typePushPop) {
			continue
		}
		suffix := strings.TrimPrefix(typ, typePushPop)
		d, ok := domains[suffix]
		if !ok {
			d = strings.TrimSuffix(strings.TrimPrefix(suffix, " (domain "), ")")
		}
		got[idOfContainer(tr, s.Container)+" domain "+d]++
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("NVTX push/pop ranges by thread and domain %v, want %v", got, want)
	}
}

// checkLinks compares the launch links with the GPU operations whose
// correlation id is that of a runtime call of their process.
func checkLinks(t *testing.T, path string, tr *trace.Trace) {
	var ops []string
	for _, table := range []string{"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
		"CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"} {
		if hasTable(t, path, table) {
			ops = append(ops, "SELECT correlationId AS c, globalPid AS p FROM "+table+" WHERE "+valid)
		}
	}
	want := 0
	if len(ops) > 0 && hasTable(t, path, "CUPTI_ACTIVITY_KIND_RUNTIME") {
		want = count(t, path, "SELECT count(*) FROM ("+strings.Join(ops, " UNION ALL ")+`) g WHERE (g.p >> 24, g.c) IN
			(SELECT globalTid >> 24, correlationId FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE `+valid+")")
	}
	// A wait for a CUDA event is linked from the stream of its record
	// (CUPTI_ACTIVITY_KIND_CUDA_EVENT, same process and event sync id),
	// when a call recorded it and something ran on that stream.
	waits := 0
	if hasTable(t, path, "CUPTI_ACTIVITY_KIND_CUDA_EVENT") && hasTable(t, path, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION") &&
		count(t, path, "SELECT count(*) FROM pragma_table_info('CUPTI_ACTIVITY_KIND_CUDA_EVENT') WHERE name = 'eventSyncId'") == 1 {
		waits = count(t, path, `SELECT count(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION s JOIN CUPTI_ACTIVITY_KIND_CUDA_EVENT e
			ON e.globalPid >> 24 = s.globalPid >> 24 AND e.eventSyncId = s.eventSyncId
			WHERE s.syncType IN (1, 2) AND s.start <= s.end AND (e.globalPid >> 24, e.correlationId) IN
			(SELECT globalTid >> 24, correlationId FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE `+valid+`)
			AND (e.globalPid >> 24, e.deviceId, e.contextId, e.streamId) IN (SELECT globalPid >> 24, deviceId, contextId, streamId
			FROM CUPTI_ACTIVITY_KIND_KERNEL UNION SELECT globalPid >> 24, deviceId, contextId, streamId FROM CUPTI_ACTIVITY_KIND_MEMCPY)`)
	}
	byType := map[string]int{}
	for _, l := range tr.Links.All() {
		byType[tr.TypeName(l.Type)]++
	}
	if byType[typeLaunch] != want || byType[typeWait] != waits || tr.Links.Len() != want+waits {
		t.Errorf("links %v, want %d launches and %d event waits", byType, want, waits)
	}
	for _, l := range tr.Links.All() {
		if tr.TypeName(l.Type) == typeWait {
			continue
		}
		// The analyses know the launches by their role, not their name.
		if r := tr.Types[l.Type].Role; r != trace.RoleLaunch {
			t.Fatalf("launch type: role %d, want %d", r, trace.RoleLaunch)
		}
		if tr.TypeName(tr.Containers[l.From].Type) != "Thread" || tr.TypeName(tr.Containers[l.To].Type) != "Stream" || l.End < l.Start {
			t.Fatalf("link %+v", l)
		}
	}
}

// checkSync compares the synchronisation states with the rows of
// CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, kind by kind (ENUM_CUPTI_SYNC_TYPE),
// device by device (the device of the row's context in the process'
// kernels: CUPTI's record names none) and stream by stream.
func checkSync(t *testing.T, path string, tr *trace.Trace) {
	want := map[string]int{}
	wantRoles := map[trace.Role]int{}
	for _, row := range query(t, path, `SELECT syncType, coalesce((SELECT min(k.deviceId) FROM CUPTI_ACTIVITY_KIND_KERNEL k
		WHERE k.globalPid >> 24 = s.globalPid >> 24 AND k.contextId = s.contextId), deviceId), streamId, count(*)
		FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION s WHERE `+valid+" GROUP BY 1, 2, 3") {
		row := strings.Split(row, "|")
		kind, _ := strconv.Atoi(row[0])
		n, _ := strconv.Atoi(row[3])
		want[syncNames[kind]+" on device "+row[1]+" stream "+row[2]] += n
		// The analyses know them by their roles (ENUM_CUPTI_SYNC_TYPE).
		role := map[int]trace.Role{1: trace.RoleEventSync, 2: trace.RoleStreamWaitEvent, 3: trace.RoleStreamSync,
			4: trace.RoleContextSync}[kind]
		wantRoles[role] += n
	}
	got := map[string]int{}
	gotRoles := map[trace.Role]int{}
	for _, s := range tr.States.All() {
		if tr.TypeName(s.Type) == typeSync {
			device := tr.Containers[tr.Containers[tr.Containers[s.Container].Parent].Parent].Alias
			got[tr.ValueName(s.Value)+" on device "+device+" stream "+idOfContainer(tr, s.Container)]++
			gotRoles[tr.Values[s.Value].Role]++
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("synchronisations by kind and stream %v, want %v", got, want)
	}
	if !reflect.DeepEqual(gotRoles, wantRoles) {
		t.Errorf("synchronisations by role %v, want %v", gotRoles, wantRoles)
	}
}

// checkStream feeds the model builder's streaming accumulator and checks
// that it follows the states' nesting (no ErrNesting) and gives the model
// Build gives on the whole trace.
func checkStream(t *testing.T, path string, tr *trace.Trace) {
	opt := micro.Options{Slices: 40, Depth: micro.Innermost}
	want, err := micro.Build(tr, opt)
	if err != nil {
		t.Fatal(err)
	}
	acc, err := micro.NewAccumulator(opt, tr.Start, tr.End)
	if err != nil {
		t.Fatal(err)
	}
	if err := Read(path, acc, trace.ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := acc.Model()
	if err != nil {
		t.Fatalf("streaming accumulator: %v", err)
	}
	if !reflect.DeepEqual(got.Values, want.Values) || !reflect.DeepEqual(got.States, want.States) {
		t.Errorf("the streamed model differs from Build's")
	}
}

// TestCorpusNames checks the names of the containers against the
// database: host name, process names, thread names, GPU names.
func TestCorpusNames(t *testing.T) {
	path := corpusPath(t, "pipit/hist/data/cloverleaf-nsys/perlmutter-cloverleaf-cuda.sqlite")
	tr, _ := readTrace(t, path, readerOptions{})
	var got []string
	for i := 1; i < len(tr.Containers); i++ {
		got = append(got, tr.ContainerPath(int32(i), "/"))
	}
	sort.Strings(got)
	host := query(t, path, "SELECT value FROM TARGET_INFO_SYSTEM_ENV WHERE name = 'Hostname'")[0]
	proc := query(t, path, "SELECT name || ' (' || pid || ')' FROM PROCESSES WHERE pid = 1701896")[0]
	gpu := query(t, path, "SELECT 'GPU ' || id || ' (' || name || ')' FROM TARGET_INFO_GPU WHERE id = 0")[0]
	threads := query(t, path, `SELECT s.value || ' (' || (n.globalTid & 16777215) || ')' FROM ThreadNames n
		JOIN StringIds s ON s.id = n.nameId WHERE n.globalTid IN (SELECT globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME
		UNION SELECT globalTid FROM OSRT_API)`)
	want := []string{host, host + "/" + proc, host + "/" + proc + "/Thread 0", host + "/" + gpu, host + "/" + gpu + "/Context 1",
		host + "/" + gpu + "/Context 1/Stream 7"}
	// Its waits for CUDA events, on no stream.
	if count(t, path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION WHERE streamId = 4294967295") > 0 {
		want = append(want, host+"/"+gpu+"/Context 1/"+noStreamName)
	}
	for _, th := range threads {
		want = append(want, host+"/"+proc+"/"+th)
	}
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("containers\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
