package paje

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestCancel stops a read of several megabytes at its first progress
// report, and checks that a read whose Cancel is never closed is complete.
func TestCancel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.trace")
	if err := writeFile(path, generate(genConfig{processes: 16, events: 200_000, seed: 3})); err != nil {
		t.Fatal(err)
	}
	full, err := readFile(path)
	if err != nil {
		t.Fatal(err)
	}

	_, again, reports := readertest.Cancel(t, full.States.Len(), func(sink trace.Sink, opt trace.ReadOptions) error {
		return read(path, sink, opt)
	})
	if reports != 1 || again.End != full.End {
		t.Fatalf("%d reports; read with an open Cancel channel ends at %v, want %v", reports, again.End, full.End)
	}
}

// TestCancelSort cancels a sorted read, which leaves no temporary file.
func TestCancelSort(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.trace")
	if err := writeFile(path, generate(genConfig{processes: 16, events: 200_000, seed: 3})); err != nil {
		t.Fatal(err)
	}
	full, err := readFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	readertest.Cancel(t, full.States.Len(), func(sink trace.Sink, opt trace.ReadOptions) error {
		return readFiles([]string{path}, sink, Options{ReadOptions: opt, Sort: true, SortRun: 1 << 20})
	})
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("%d temporary files left", len(left))
	}
}
