package critpath

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// nsysWaitSQL is a small Nsight Systems export where stream 2 waits for
// a CUDA event recorded on stream 1 (the case of TestGraphStreamWaitEvent,
// in nanoseconds): the synchronisation record (syncType 2) names the
// event by its event sync id, the CUDA event record the stream it was
// recorded on and its cudaEventRecord call. %[1]d is the process' global
// id, %[2]d its thread's; eventRows the CUDA_EVENT rows.
const nsysWaitSQL = `
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), (2, 'cudaEventRecord_v3020'), (3, 'cudaStreamWaitEvent_v3020'),
	(4, 'k1'), (5, 'k2');
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER,
	correlationId INTEGER, nameId INTEGER, returnValue INTEGER, callchainId INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (10, 20, 0, %[2]d, 1, 1, 0, NULL), (25, 30, 0, %[2]d, 2, 2, 0, NULL),
	(40, 45, 0, %[2]d, 3, 3, 0, NULL), (50, 60, 0, %[2]d, 4, 1, 0, NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
	contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
	demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (30, 200, 0, 1, 1, 1, %[1]d, 4, 4, NULL), (205, 250, 0, 1, 2, 4, %[1]d, 5, 5, NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
	contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
	deprecatedSyncType INTEGER, syncType INTEGER NOT NULL, eventId INTEGER NOT NULL, eventSyncId INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (46, 47, 0, 1, NULL, 2, 3, %[1]d, NULL, 2, 5, 77);
CREATE TABLE CUPTI_ACTIVITY_KIND_CUDA_EVENT (timestamp INTEGER, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL,
	greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, eventId INTEGER NOT NULL,
	eventSyncId INTEGER)`

// TestNsysStreamWaitEvent reads the export through the Nsight Systems
// reader: with the event's record, k2 waits for k1 and the path goes
// through k1 (20 launch + 170 + 45 ns); without it, k2 follows its launch
// (the calls, then 155 ns of launch delay and 45 of k2: 220 ns).
func TestNsysStreamWaitEvent(t *testing.T) {
	const gpid = int64(1)<<48 | 100<<24
	for _, c := range []struct {
		name, events string
		length       trace.Time
		via          []string
	}{
		{"recorded", "INSERT INTO CUPTI_ACTIVITY_KIND_CUDA_EVENT VALUES (200, 0, 1, NULL, 1, 2, %[1]d, 5, 77)", 235,
			[]string{EdgeLaunch, EdgeKernel, EdgeSyncWait, EdgeKernel}},
		{"not recorded", "", 220,
			[]string{EdgeCompute, EdgeDependency, EdgeCompute, EdgeDependency, EdgeCompute, EdgeDependency, EdgeLaunch, EdgeKernel}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "wait.sqlite")
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			script := fmt.Sprintf(nsysWaitSQL, gpid, gpid|100)
			if c.events != "" {
				script += ";\n" + fmt.Sprintf(c.events, gpid)
			}
			for _, stmt := range strings.Split(script, ";\n") {
				if _, err := db.Exec(stmt); err != nil {
					t.Fatalf("%v\n%s", err, stmt)
				}
			}
			db.Close()
			r, err := Compute(read(t, path, "nsys"), Options{})
			if err != nil {
				t.Fatal(err)
			}
			var via []string
			for _, s := range r.Segments {
				via = append(via, s.Via)
			}
			if r.Semantics != HTA || r.Length() != c.length || strings.Join(via, ",") != strings.Join(c.via, ",") {
				t.Errorf("%s path of %d ns through %v, want %d ns through %v", r.Semantics, r.Length(), via, c.length, c.via)
			}
		})
	}
}
