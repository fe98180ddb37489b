// Package tracetest holds the checks every reader's tests share.
package readertest

import (
	"errors"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Read decodes one trace into sink with the given options.
type Read func(sink trace.Sink, opt trace.ReadOptions) error

// Cancel checks a reader's cancellation. A read whose Cancel is closed at
// its first progress report must return trace.ErrCanceled before Finish
// (End stays 0) with fewer than states states; a read whose Cancel is
// never closed must deliver all states. It returns both traces and the
// number of progress reports the canceled read made, for the reader's own
// checks.
func Cancel(t *testing.T, states int, read Read) (partial, full *trace.Trace, reports int) {
	t.Helper()
	stop := make(chan struct{})
	partial = trace.New()
	err := read(partial, trace.ReadOptions{Cancel: stop, Progress: func(done, total int64) {
		if reports++; reports == 1 {
			close(stop)
		}
	}})
	if !errors.Is(err, trace.ErrCanceled) {
		t.Fatalf("read canceled at its first report: err = %v, want ErrCanceled", err)
	}
	if partial.States.Len() >= states || partial.End != 0 {
		t.Fatalf("canceled read went on: %d of %d states, end %v", partial.States.Len(), states, partial.End)
	}

	full = trace.New()
	if err := read(full, trace.ReadOptions{Cancel: make(chan struct{})}); err != nil {
		t.Fatal(err)
	}
	if full.States.Len() != states {
		t.Fatalf("read with an open Cancel channel: %d states, want %d", full.States.Len(), states)
	}
	return partial, full, reports
}
