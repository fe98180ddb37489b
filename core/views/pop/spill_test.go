package pop

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
)

// The POP data, the ideal replay's included, are the same whether the
// links and collectives' events kept while the trace streams went to a
// temporary file and back or stayed in memory, and the file is not left
// behind.
func TestSpilledEqualsInMemory(t *testing.T) {
	for _, c := range []struct {
		name, path, format string
		eager              float64
	}{
		{"epoch-4", "../../../testdata/epoch/epoch_4proc.prv.zst", "paraver", 0},
		{"cp_mixed", "../../../testdata/critpath/cp_mixed.trace", "paje", 0},
		// Score-P's stencil replays with eager sends only (its large
		// MPI_Send are not matched by receives in a rendezvous order).
		{"stencil4d-32", "../../../../shared/traces/tracer-stencil4d/stencil4d-otf/traces-32/traces.otf2", "otf2", math.Inf(1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := read(t, c.path, c.format)
			want, err := Compute(tr, Options{EagerLimit: c.eager, SpillMemory: -1})
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			a := New(Options{EagerLimit: c.eager, SpillDir: dir, SpillMemory: 1})
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
			if left, _ := os.ReadDir(dir); len(left) > 0 {
				t.Errorf("%d files left in the spill directory", len(left))
			}
			// Printed, every field (NaN equals NaN there).
			if g, w := fmt.Sprintf("%+v", *got), fmt.Sprintf("%+v", *want); !want.HasIdeal || g != w {
				t.Errorf("spilled:\n%s\nin memory:\n%s", g, w)
			}
		})
	}
}

// A read that fails or is cancelled never asks for the Result: Close
// releases the spill file then, not the garbage collector.
func TestCloseReleasesTheSpillFile(t *testing.T) {
	tr := read(t, "../../../testdata/epoch/epoch_4proc.prv.zst", "paraver")
	dir := t.TempDir()
	a := New(Options{SpillDir: dir, SpillMemory: 1})
	tr.Replay(a)
	if a.spill.Spilled() == 0 {
		t.Fatal("nothing spilled: the test needs a spill file")
	}
	if n := openIn(t, dir); n != 1 {
		t.Fatalf("%d descriptors open in the spill directory before Close, want 1", n)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if n := openIn(t, dir); n != 0 {
		t.Errorf("%d descriptors still open in the spill directory after Close", n)
	}
	if err := a.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// openIn counts this process's open descriptors on files of dir (the
// spill file is removed once open: its link reads "dir/name (deleted)").
func openIn(t *testing.T, dir string) int {
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	n := 0
	for _, fd := range fds {
		if target, err := os.Readlink("/proc/self/fd/" + fd.Name()); err == nil && strings.HasPrefix(target, dir+"/") {
			n++
		}
	}
	return n
}
