package otf2

import (
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
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

	readertest.Cancel(t, pairs, func(sink trace.Sink, opt trace.ReadOptions) error {
		return Read(anchor, sink, opt)
	})
}
