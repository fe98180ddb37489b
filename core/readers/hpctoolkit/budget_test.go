package hpctoolkit

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/budget"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestSparseAsksTheBudget: a version 4 database is decoded when opened,
// before the read knows the user's memory budget; what it holds (meta.db
// whole, frames, tuples, trace line headers) is weighed against that
// budget before the first line is read. Past it the read stops with the
// budget's error, naming meta.db.
func TestSparseAsksTheBudget(t *testing.T) {
	dir := filepath.Join("testdata", "loop-fork-cycles")
	m := &budget.Meter{Limit: 2000} // meta.db alone is 3,136 bytes
	err := Read(dir, trace.New(dir), trace.ReadOptions{Hold: m.Hold})
	var fe *errs.FormatError
	var ae *errs.ArgumentError
	if !errors.As(err, &fe) || filepath.Base(fe.File) != "meta.db" || !errors.As(err, &ae) || ae.Name != "memory_budget" {
		t.Fatalf("under 2,000 bytes: got %v, want the memory budget's error naming meta.db", err)
	}
	m = &budget.Meter{Limit: 1 << 20}
	tr := trace.New(dir)
	if err := Read(dir, tr, trace.ReadOptions{Hold: m.Hold}); err != nil || tr.States.Len() == 0 {
		t.Fatalf("under 1 MiB: %v, %d states", err, tr.States.Len())
	}
	if m.Peak() < 3136 {
		t.Errorf("held %d bytes at most, want at least meta.db's 3,136", m.Peak())
	}
	// The read over, the database's weight is given back: a second pass
	// or part under the same meter does not count it again.
	if m.Held() != 0 {
		t.Errorf("held %d bytes after the read, want 0", m.Held())
	}
}
