package critpath

import (
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

// The path, its attribution, the wait states and the delay costs are the
// same whether the states, links and collectives' events kept while the
// trace streams went to a temporary file and back or stayed in memory,
// and the file is not left behind.
func TestSpilledEqualsInMemory(t *testing.T) {
	for _, c := range []struct{ name, path, format string }{
		{"cp_mixed", "../../../testdata/critpath/cp_mixed.trace", "paje"},
		{"stencil4d-32", "../../../../shared/traces/tracer-stencil4d/stencil4d-otf/traces-32/traces.otf2", "otf2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := read(t, c.path, c.format)
			want, err := Compute(tr, Options{SpillMemory: -1})
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			a := New(Options{SpillDir: dir, SpillMemory: 1})
			tr.Replay(a)
			spilled := a.spill.Spilled()
			got, err := a.Result()
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d bytes spilled", spilled)
			if spilled == 0 && c.name != "cp_mixed" {
				t.Error("nothing spilled")
			}
			// What each resource did, kept for the delay costs, is
			// spilled to a file of its own, open until the Result goes.
			if got.spill.Spilled() == 0 && c.name != "cp_mixed" {
				t.Error("the activities were not spilled")
			}
			if left, _ := os.ReadDir(dir); len(left) > 0 {
				t.Errorf("%d files left in the spill directory", len(left))
			}
			if !reflect.DeepEqual(got.Segments, want.Segments) || !reflect.DeepEqual(got.Waits, want.Waits) ||
				!reflect.DeepEqual(got.Attribution, want.Attribution) {
				t.Errorf("spilled: %d segments, %d waits; in memory: %d, %d", len(got.Segments), len(got.Waits),
					len(want.Segments), len(want.Waits))
			}
			for _, wait := range got.Waits { // read back from the file
				if g, w := got.CallOf(wait.Call), want.CallOf(wait.Call); *g != *w {
					t.Fatalf("call %v: %+v, held %+v", wait.Call, *g, *w)
				}
			}
			n := 0
			for w, c := range got.WaitCalls() { // the same, in one go
				if *w != got.Waits[n] || *c != *want.CallOf(w.Call) {
					t.Fatalf("WaitCalls %d: %+v on %+v, want %+v on %+v", n, *w, *c, got.Waits[n], *want.CallOf(w.Call))
				}
				n++
			}
			if n != len(got.Waits) {
				t.Errorf("WaitCalls yielded %d wait states, want %d", n, len(got.Waits))
			}
			if d, w := got.DelayCosts(), want.DelayCosts(); !reflect.DeepEqual(d, w) {
				t.Errorf("delay costs differ: %d vs %d", len(d.Costs), len(w.Costs))
			}
			if err := got.Close(); err != nil || got.Err() != nil {
				t.Errorf("Close: %v, Err: %v", err, got.Err())
			}
			if left, _ := os.ReadDir(dir); len(left) > 0 {
				t.Errorf("%d files left in the spill directory after Close", len(left))
			}
		})
	}
}

// spillFilesOpen counts the process's open descriptors on spill files
// (removed at once, they show as "... (deleted)").
func spillFilesOpen(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	n := 0
	for _, fd := range fds {
		if target, err := os.Readlink("/proc/self/fd/" + fd.Name()); err == nil && strings.Contains(target, "macroscope-spill-") {
			n++
		}
	}
	return n
}

// A Result that is dropped without Close (as the Python facade drops it
// with the object that holds it) gives its spill file back once it is
// garbage collected; one that is kept holds it open for CallOf and the
// delay costs.
func TestSpilledResultDroppedReleasesFile(t *testing.T) {
	tr := read(t, "../../../../shared/traces/tracer-stencil4d/stencil4d-otf/traces-32/traces.otf2", "otf2")
	before := spillFilesOpen(t)
	a := New(Options{SpillDir: t.TempDir(), SpillMemory: 1})
	tr.Replay(a)
	r, err := a.Result()
	if err != nil {
		t.Fatal(err)
	}
	a.Close() // as the facade does once the read is over: the Result's file stays
	if r.spill.Spilled() == 0 {
		t.Skip("nothing spilled")
	}
	runtime.GC()
	if n := spillFilesOpen(t); n != before+1 {
		t.Fatalf("%d spill files open while the Result is held, want %d", n, before+1)
	}
	if r.DelayCosts() == nil || r.Err() != nil {
		t.Fatalf("delay costs of a held Result: Err %v", r.Err())
	}
	r = nil
	n := spillFilesOpen(t)
	for wait := 0; n > before && wait < 200; wait++ {
		runtime.GC() // the cleanup runs on a goroutine of its own after a cycle
		time.Sleep(5 * time.Millisecond)
		n = spillFilesOpen(t)
	}
	if n != before {
		t.Fatalf("%d spill files open after the Result was dropped, want %d", n, before)
	}
}

// A panic while the path is found (a bug, which the facade recovers)
// leaves no goroutine building the activities into a spill file that
// Result has closed: it would open another, left open.
func TestResultPanicWaitsForActivities(t *testing.T) {
	tr := read(t, "../../../../shared/traces/tracer-stencil4d/stencil4d-otf/traces-32/traces.otf2", "otf2")
	defer func(f func(*run, *messageWaits, Options) (*Result, error)) { findPath = f }(findPath)
	findPath = func(*run, *messageWaits, Options) (*Result, error) { panic("the path") }
	before := spillFilesOpen(t)
	a := New(Options{SpillDir: t.TempDir(), SpillMemory: 1})
	tr.Replay(a)
	func() {
		defer func() {
			if v := recover(); v != "the path" {
				t.Fatalf("recovered %v, want the path's panic", v)
			}
		}()
		a.Result()
	}()
	a.Close()
	time.Sleep(100 * time.Millisecond) // what a goroutine left running would do meanwhile
	if n := spillFilesOpen(t); n != before {
		t.Fatalf("%d spill files open after the failed Result, want %d", n, before)
	}
}
