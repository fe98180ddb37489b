package hpctoolkit

import (
	"path/filepath"
	"testing"
)

// TestTwoLinesOneTuple reads a real database whose two trace lines (a
// process and the child it forked) carry the same identifier tuple: both
// are kept, the second on a container "Thread 0 #2", each with as many
// samples as trace.db holds records for its line (decoded independently
// of the reader: 93 and 90).
func TestTwoLinesOneTuple(t *testing.T) {
	dir := filepath.Join("testdata", "loop-fork-cycles")
	tr, stats := readStats(t, dir, options{})
	want := traceRecordCounts(t, filepath.Join(dir, "trace.db"))
	if want[1] != 93 || want[2] != 90 || len(want) != 2 {
		t.Fatalf("trace.db records per profile: %v, want map[1:93 2:90]", want)
	}
	got := map[string]int64{}
	for _, s := range stats {
		got[containerPath(tr, s.container)] += s.samples
	}
	wantPaths := map[string]int64{"Node 0x2a803c80/Thread 0": 93, "Node 0x2a803c80/Thread 0 #2": 90}
	if len(got) != len(wantPaths) {
		t.Fatalf("lines: %v, want %v", got, wantPaths)
	}
	for p, n := range wantPaths {
		if got[p] != n {
			t.Errorf("%s: %d samples, want %d (lines: %v)", p, got[p], n, got)
		}
	}
}
