package otf2

import (
	"errors"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestCancel stops the read of an archive of 80,000 records at its first
// progress report; with an open Cancel channel the read completes.
func TestCancel(t *testing.T) {
	const pairs = 40_000
	l := &enc{}
	for i := range uint64(pairs) {
		evTime(l, 1000+2*i)
		evRegion(l, evEnter, regionWork)
		evTime(l, 1001+2*i)
		evRegion(l, evLeave, regionWork)
	}
	anchor := testArchive{chunkEvents: 4 << 20, defs: baseDefs(false).b,
		locations: map[uint64][]byte{0: chunked(false, 0, l.b)}}.write(t, t.TempDir())

	stop := make(chan struct{})
	reports := 0
	partial := trace.New(anchor)
	err := Read(anchor, partial, trace.ReadOptions{Cancel: stop, Progress: func(done, total int64) {
		if reports++; reports == 1 {
			close(stop)
		}
	}})
	if !errors.Is(err, trace.ErrCanceled) {
		t.Fatalf("canceled read: err = %v, want ErrCanceled", err)
	}
	if len(partial.States) >= pairs || partial.End != 0 {
		t.Fatalf("canceled read went on: %d of %d states, end %v", len(partial.States), pairs, partial.End)
	}

	full := trace.New(anchor)
	if err := Read(anchor, full, trace.ReadOptions{Cancel: make(chan struct{})}); err != nil {
		t.Fatal(err)
	}
	if len(full.States) != pairs {
		t.Fatalf("read with an open Cancel channel: %d states, want %d", len(full.States), pairs)
	}
}
