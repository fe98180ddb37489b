package gotrace

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestPipeStops cancels reads of a trace of many chunks of merged events
// at several points: each read ends canceled, and the merge, which runs
// ahead of the builder on goroutines of its own, has ended with it.
func TestPipeStops(t *testing.T) {
	path := filepath.Join(corpus, "generated-go1.26", "gc-stress.trace")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no %s", path)
	}
	before := runtime.NumGoroutine()
	for _, at := range []int{1, 3, 10} {
		stop := make(chan struct{})
		reports := 0
		err := read(path, trace.New(path), trace.ReadOptions{Cancel: stop, Progress: func(done, total int64) {
			if reports++; reports == at {
				close(stop)
			}
		}})
		if !errors.Is(err, trace.ErrCanceled) {
			t.Fatalf("read canceled at report %d: err = %v, want ErrCanceled", at, err)
		}
		// A goroutine that has said it is done may take a moment to
		// exit; one that has not would stay.
		n := runtime.NumGoroutine()
		for wait := 0; n > before && wait < 5000; wait++ {
			time.Sleep(time.Millisecond)
			n = runtime.NumGoroutine()
		}
		if n > before {
			t.Fatalf("read canceled at report %d: %d goroutines left running, %d before", at, n, before)
		}
	}
}
