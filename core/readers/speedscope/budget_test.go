package speedscope_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// A gzip'd document of 256 MiB (a name that never ends) stops at the
// read's budget of 16 MiB before its buffer grows past it, not once it
// is read whole.
func TestBudgetStopsTheRead(t *testing.T) {
	var z bytes.Buffer
	w, _ := gzip.NewWriterLevel(&z, gzip.BestSpeed)
	w.Write([]byte(`{` + schema + `,"shared":{"frames":[{"name":"`))
	chunk := bytes.Repeat([]byte("x"), 1<<20)
	for range 256 {
		w.Write(chunk)
	}
	w.Close()
	path := filepath.Join(t.TempDir(), "big.json.gz")
	if err := os.WriteFile(path, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	over := errors.New("over budget")
	var held, peak int64
	ro := trace.ReadOptions{Hold: func(n int64) error {
		if held+n > 16<<20 {
			return over
		}
		held += n
		peak = max(peak, held)
		return nil
	}}
	src, err := speedscopeOpen(t, path)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := src.Read(trace.New(), ro); !errors.Is(err, over) {
		t.Fatalf("got %v, want the budget's error", err)
	}
	runtime.ReadMemStats(&after)
	// Read whole first, the document would take its 256 MiB.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("the read allocated %d MiB before it stopped", alloc>>20)
	}
	if held != 0 || peak > 16<<20 {
		t.Errorf("held %d after the read, peak %d", held, peak)
	}
}
