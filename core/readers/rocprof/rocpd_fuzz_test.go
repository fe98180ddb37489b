package rocprof

import (
	"bytes"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/budget"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest/dbrows"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// rocpdSeed is a small rocpd database: one run's tables with the columns
// the reader reads, a few rows of each kind, and a view.
func rocpdSeed(t testing.TB, tracks bool) []byte {
	path := filepath.Join(t.TempDir(), "seed_results.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range rocpdSQL(tracks) {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rocpdSQL are the statements that write rocpdSeed's database.
func rocpdSQL(tracks bool) []string {
	s := "_1"
	stmts := []string{`PRAGMA page_size=512`,
		`CREATE TABLE rocpd_string` + s + `(id INTEGER PRIMARY KEY, guid TEXT, string TEXT)`,
		`CREATE TABLE rocpd_info_node` + s + `(id INTEGER PRIMARY KEY, guid TEXT, hostname TEXT)`,
		`CREATE TABLE rocpd_info_process` + s + `(id INTEGER PRIMARY KEY, guid TEXT, nid INT, pid INT)`,
		`CREATE TABLE rocpd_info_thread` + s + `(id INTEGER PRIMARY KEY, guid TEXT, pid INT, tid INT)`,
		`CREATE TABLE rocpd_info_agent` + s + `(id INTEGER PRIMARY KEY, guid TEXT, nid INT, type TEXT, absolute_index INT, name TEXT, product_name TEXT)`,
		`CREATE TABLE rocpd_info_queue` + s + `(id INTEGER PRIMARY KEY, guid TEXT, name TEXT)`,
		`CREATE TABLE rocpd_info_kernel_symbol` + s + `(id INTEGER PRIMARY KEY, guid TEXT, display_name TEXT, kernel_name TEXT)`,
		`CREATE TABLE rocpd_event` + s + `(id INTEGER PRIMARY KEY, guid TEXT, category_id INT, correlation_id INT, extdata TEXT)`,
		`CREATE TABLE rocpd_sample` + s + `(id INTEGER PRIMARY KEY, guid TEXT)`,
		`CREATE VIEW rocpd_string AS SELECT * FROM rocpd_string` + s,
		`INSERT INTO rocpd_string` + s + ` VALUES (1, 'g', 'HIP_RUNTIME_API'), (2, 'g', 'hipLaunchKernel'), (3, 'g', 'MEMORY_COPY_HOST_TO_DEVICE'), (4, 'g', 'MARKER_CORE_API'), (5, 'g', 'roctxMarkA')`,
		`INSERT INTO rocpd_info_node` + s + ` VALUES (1, 'g', 'n')`,
		`INSERT INTO rocpd_info_process` + s + ` VALUES (1, 'g', 1, 77)`,
		`INSERT INTO rocpd_info_thread` + s + ` VALUES (1, 'g', 1, 78)`,
		`INSERT INTO rocpd_info_agent` + s + ` VALUES (1, 'g', 1, 'CPU', 0, 'c', ''), (2, 'g', 1, 'GPU', 1, 'gfx90a', 'MI210')`,
		`INSERT INTO rocpd_info_queue` + s + ` VALUES (1, 'g', 'q')`,
		`INSERT INTO rocpd_info_kernel_symbol` + s + ` VALUES (1, 'g', 'k(int)', '_Z1ki')`,
		`INSERT INTO rocpd_event` + s + ` VALUES (1, 'g', 1, 1, '{}'), (2, 'g', 1, 1, '{}'), (3, 'g', 4, 2, '{"message": "m"}'), (4, 'g', 1, 1, NULL)`,
		`INSERT INTO rocpd_sample` + s + ` VALUES (1, 'g')`,
	}
	if tracks {
		stmts = append(stmts,
			`CREATE TABLE rocpd_track`+s+`(id INTEGER PRIMARY KEY, guid TEXT, nid INT, pid INT, tid INT, agent_id INT, queue_id INT)`,
			`CREATE TABLE rocpd_timestamp`+s+`(id INTEGER PRIMARY KEY, guid TEXT, value INT)`,
			`CREATE TABLE rocpd_region`+s+`(id INTEGER PRIMARY KEY, guid TEXT, track_id INT, name_id INT, start_id INT, end_id INT, event_id INT)`,
			`CREATE TABLE rocpd_kernel_dispatch`+s+`(id INTEGER PRIMARY KEY, guid TEXT, track_id INT, kernel_id INT, start_id INT, end_id INT, event_id INT)`,
			`CREATE TABLE rocpd_memory_copy`+s+`(id INTEGER PRIMARY KEY, guid TEXT, track_id INT, start_id INT, end_id INT, name_id INT, src_agent_id INT, dst_agent_id INT, size INT, event_id INT)`,
			`INSERT INTO rocpd_track`+s+` VALUES (1, 'g', 1, 77, 78, NULL, NULL), (2, 'g', 1, 77, NULL, 2, 1)`,
			`INSERT INTO rocpd_timestamp`+s+` VALUES (1, 'g', 100), (2, 'g', 200), (3, 'g', 250), (4, 'g', 400), (5, 'g', 150)`,
			`INSERT INTO rocpd_region`+s+` VALUES (1, 'g', 1, 2, 1, 2, 1), (2, 'g', 1, 5, 5, 5, 3)`,
			`INSERT INTO rocpd_kernel_dispatch`+s+` VALUES (1, 'g', 2, 1, 3, 4, 2)`,
			`INSERT INTO rocpd_memory_copy`+s+` VALUES (1, 'g', 2, 1, 3, 3, 1, 2, 4096, 4)`)
	} else {
		stmts = append(stmts,
			`CREATE TABLE rocpd_region`+s+`(id INTEGER PRIMARY KEY, guid TEXT, nid INT, pid INT, tid INT, start INT, "end" INT, name_id INT, event_id INT)`,
			`CREATE TABLE rocpd_kernel_dispatch`+s+`(id INTEGER PRIMARY KEY, guid TEXT, nid INT, pid INT, agent_id INT, queue_id INT, kernel_id INT, start INT, "end" INT, event_id INT)`,
			`CREATE TABLE rocpd_memory_copy`+s+`(id INTEGER PRIMARY KEY, guid TEXT, src_agent_id INT, dst_agent_id INT, start INT, "end" INT, size INT, name_id INT, event_id INT)`,
			`INSERT INTO rocpd_region`+s+` VALUES (1, 'g', 1, 1, 1, 100, 200, 2, 1), (2, 'g', 1, 1, 1, 150, 150, 5, 3)`,
			`INSERT INTO rocpd_kernel_dispatch`+s+` VALUES (1, 'g', 1, 1, 2, 1, 1, 250, 400, 2)`,
			`INSERT INTO rocpd_memory_copy`+s+` VALUES (1, 'g', 1, 2, 100, 250, 4096, 3, 4)`)
	}
	return stmts
}

// The seeds are read as they should be: a call, its kernel and copy
// linked, a mark.
func TestRocpdSeed(t *testing.T) {
	for _, tracks := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "results.db")
		os.WriteFile(path, rocpdSeed(t, tracks), 0o644)
		if !looksRocpd(path) {
			t.Fatal("the seed does not look like rocpd")
		}
		tr, _ := load(t, func(s trace.Sink, o trace.ReadOptions) error { return readRocpd(path, s, o) })
		if got := statesByType(tr); got[kindHIP] != 1 || got[kindKernel] != 1 || got[kindCopy] != 1 || tr.Links.Len() != 2 ||
			tr.Events.Len() != 1 || tr.Values[tr.Events.At(0).Value].Name != "m" {
			t.Errorf("tracks %v: states %v, %d links, %d events", tracks, got, tr.Links.Len(), tr.Events.Len())
		}
	}
}

// FuzzRocpd damages a small rocpd database (a byte set anywhere) and asks
// the sniffer whether it is one, then reads it: a FormatError naming the
// file or a trace whose states end after they start, never a panic; the
// file is never written.
func FuzzRocpd(f *testing.F) {
	readertest.BoundMinimization(f)
	for _, tracks := range []bool{false, true} {
		seed := rocpdSeed(f, tracks)
		f.Add(seed, uint16(0), byte(0))
		f.Add(seed, uint16(700), byte(0xff))
		f.Add(seed, uint16(3000), byte(0x41))
	}
	dir := readertest.FuzzDir(f)
	f.Fuzz(func(t *testing.T, data []byte, at uint16, b byte) {
		if len(data) > 32<<10 {
			return
		}
		data = bytes.Clone(data)
		if int(at) < len(data) {
			data[at] = b
		}
		path := filepath.Join(dir, "fuzz_results.db")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if !looksRocpd(path) {
			return
		}
		tr := trace.New()
		checkFuzzError(t, readRocpd(path, tr, trace.ReadOptions{Notes: &trace.Notes{}}), path)
		for _, s := range tr.States.All() {
			if s.End < s.Start {
				t.Fatalf("state %+v ends before it starts", s)
			}
		}
		if after, _ := os.ReadFile(path); !bytes.Equal(after, data) {
			t.Fatal("the database was written")
		}
	})
}

// rpdSQL writes a small RPD database (rocmProfileData's schema, without
// its NOT NULLs): a kernel launch and a copy, each an API call linked to
// its operation, the copy's size, clock samples (one not a number).
var rpdSQL = []string{`PRAGMA page_size=512`,
	`CREATE TABLE rocpd_string(id INTEGER PRIMARY KEY, string TEXT)`,
	`CREATE TABLE rocpd_api(id INTEGER PRIMARY KEY, pid INT, tid INT, start INT, "end" INT, apiName_id INT, args_id INT)`,
	`CREATE TABLE rocpd_op(id INTEGER PRIMARY KEY, gpuId INT, queueId INT, sequenceId INT, completionSignal TEXT, start INT, "end" INT, description_id INT, opType_id INT)`,
	`CREATE TABLE rocpd_api_ops(id INTEGER PRIMARY KEY, api_id INT, op_id INT)`,
	`CREATE TABLE rocpd_copyapi(api_ptr_id INTEGER PRIMARY KEY, stream TEXT, size INT, width INT, height INT, kind INT, dst TEXT, src TEXT, dstDevice INT, srcDevice INT, sync BOOL, pinned BOOL)`,
	`CREATE TABLE rocpd_monitor(id INTEGER PRIMARY KEY, deviceType TEXT, deviceId INT, monitorType TEXT, start INT, "end" INT, value TEXT)`,
	`INSERT INTO rocpd_string VALUES (1, ''), (2, 'hipLaunchKernel'), (3, 'KernelExecution'), (4, 'k(int)'), (5, 'CopyHostToDevice'), (6, 'hipMemcpy'), (7, 'ptr=0x1 | size=0x10')`,
	`INSERT INTO rocpd_api VALUES (1, 77, 78, 100, 200, 2, 7), (2, 77, 78, 300, 500, 6, 7), (3, 77, 79, 150, 160, 6, 1)`,
	`INSERT INTO rocpd_op VALUES (1, 2, 0, 0, '', 250, 400, 4, 3), (2, 2, 1, 0, '', 350, 450, 1, 5)`,
	`INSERT INTO rocpd_api_ops VALUES (1, 1, 1), (2, 2, 2)`,
	`INSERT INTO rocpd_copyapi VALUES (2, '0x0', 4096, 0, 0, 1, '0x2', '0x1', 0, 0, 0, 0)`,
	`INSERT INTO rocpd_monitor VALUES (1, 'gpu', 2, 'sclk', 100, 300, '800'), (2, 'gpu', 2, 'sclk', 300, 500, 'x'), (3, 'cpu', 0, 'sclk', 100, 200, '1')`,
}

// legacyDBSQL writes a small results.db of rocprof v1: KERN with its
// columns, two dispatches.
var legacyDBSQL = []string{`PRAGMA page_size=512`,
	`CREATE TABLE KERN ("Index" INTEGER, "KernelName" TEXT, "gpu-id" INTEGER, "queue-id" INTEGER, "queue-index" INTEGER, "pid" INTEGER, "tid" INTEGER, ` +
		`"grd" INTEGER, "wgr" INTEGER, "lds" INTEGER, "scr" INTEGER, "arch_vgpr" INTEGER, "accum_vgpr" INTEGER, "sgpr" INTEGER, "wave_size" INTEGER, ` +
		`"sig" INTEGER, "obj" INTEGER, "DispatchNs" INTEGER, "BeginNs" INTEGER, "EndNs" INTEGER, "CompleteNs" INTEGER, "DurationNs" INTEGER)`,
	`INSERT INTO KERN VALUES (0, '"k(int)"', 8, 0, 0, 77, 78, 64, 64, 0, 0, 8, 0, 16, 64, 0, 0, 90, 100, 200, 210, 100), ` +
		`(1, '"j"', 8, 1, 0, 77, 78, 64, 64, 0, 0, 8, 0, 16, 64, 0, 0, 150, 160, 300, 310, 140)`,
}

// FuzzRows reads the small databases of each kind the package reads
// (rocpd with times in its tables or in rocpd_timestamp, RPD, rocprof
// v1's results.db) with rows inserted, changed and deleted as the input
// says (see dbrows): ids that name nothing, times reversed, NULL or at
// the ends of int64, text where a number is. A FormatError naming the
// file, or a trace that keeps the Sink contract; never a panic. Under a
// budget (some multiple of 64 bytes) it may also end with the budget's
// error; either way it holds nothing once it returns.
func FuzzRows(f *testing.F) {
	readertest.BoundMinimization(f)
	templates := []*dbrows.Template{
		dbrows.New(f, rocpdSQL(false)), dbrows.New(f, rocpdSQL(true)),
		dbrows.New(f, rpdSQL), dbrows.New(f, legacyDBSQL),
	}
	for i := range templates {
		f.Add(uint8(i), []byte{}, uint8(0))
		f.Add(uint8(i), []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}, uint8(0))
		f.Add(uint8(i), []byte{2, 1, 200, 3, 2, 3, 201, 5, 0, 1, 202, 7, 1}, uint8(5))
	}
	path := filepath.Join(readertest.FuzzDir(f), "fuzz_results.db")
	f.Fuzz(func(t *testing.T, which uint8, input []byte, limit uint8) {
		if len(input) > 2048 {
			return
		}
		which %= uint8(len(templates))
		changes, err := templates[which].Write(path, input)
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			if t.Failed() {
				t.Logf("the changes:\n%s", changes)
			}
		}()
		read := readRocpd
		if which == 2 {
			read = readRPD
		}
		meter := &budget.Meter{Limit: 64 * int64(limit)}
		sink := readertest.NewContract(trace.New())
		err = read(path, sink, trace.ReadOptions{Notes: &trace.Notes{}, Hold: meter.Hold})
		if n := meter.Held(); n != 0 {
			t.Fatalf("%d bytes still held after the read (%v)", n, err)
		}
		if meter.Err() != nil && errors.Is(err, meter.Err()) {
			return
		}
		readertest.CheckRead(t, path, err, sink)
	})
}
