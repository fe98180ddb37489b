package paje

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestCancel stops a read of several megabytes at its first progress
// report, and checks that a read whose Cancel is never closed is complete.
func TestCancel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.trace")
	if err := writeFile(path, generate(genConfig{processes: 16, events: 200_000, seed: 3})); err != nil {
		t.Fatal(err)
	}
	full, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}

	stop := make(chan struct{})
	reports := 0
	partial := trace.New(path)
	err = Read(path, partial, trace.ReadOptions{Cancel: stop, Progress: func(done, total int64) {
		if reports++; reports == 1 {
			close(stop)
		}
	}})
	if !errors.Is(err, trace.ErrCanceled) {
		t.Fatalf("read canceled at its first report: err = %v, want ErrCanceled", err)
	}
	if reports != 1 || len(partial.States) >= len(full.States) || partial.End != 0 {
		t.Fatalf("canceled read went on: %d reports, %d of %d states, end %v", reports, len(partial.States), len(full.States), partial.End)
	}

	open := make(chan struct{})
	again := trace.New(path)
	if err := Read(path, again, trace.ReadOptions{Cancel: open}); err != nil {
		t.Fatal(err)
	}
	if len(again.States) != len(full.States) || again.End != full.End {
		t.Fatalf("read with an open Cancel channel: %d states, end %v; want %d, %v", len(again.States), again.End, len(full.States), full.End)
	}
}
