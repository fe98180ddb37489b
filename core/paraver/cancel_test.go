package paraver

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestCancel stops the read of a 5 MB trace at its first progress report;
// with an open Cancel channel the read completes.
func TestCancel(t *testing.T) {
	var b strings.Builder
	b.WriteString("#Paraver (x):100000000_ns:2(1,1):1:2(1:1,1:2)\n")
	n := 0
	for b.Len() < 5<<20 {
		task := 1 + n%2
		b.WriteString("1:" + strconv.Itoa(task) + ":1:" + strconv.Itoa(task) + ":1:" +
			strconv.Itoa(10*n) + ":" + strconv.Itoa(10*n+5) + ":1\n")
		n++
	}
	text := b.String()

	stop := make(chan struct{})
	reports := 0
	partial := trace.New()
	err := Decode(strings.NewReader(text), "big.prv", int64(len(text)), nil, ByThread, partial, trace.ReadOptions{
		Cancel: stop,
		Progress: func(done, total int64) {
			if reports++; reports == 1 {
				close(stop)
			}
		}})
	if !errors.Is(err, trace.ErrCanceled) {
		t.Fatalf("canceled read: err = %v, want ErrCanceled", err)
	}
	if reports != 1 || len(partial.States) >= n || partial.End != 0 {
		t.Fatalf("canceled read went on: %d reports, %d of %d states, end %v", reports, len(partial.States), n, partial.End)
	}

	full := trace.New()
	if err := Decode(strings.NewReader(text), "big.prv", 0, nil, ByThread, full, trace.ReadOptions{Cancel: make(chan struct{})}); err != nil {
		t.Fatal(err)
	}
	if len(full.States) != n {
		t.Fatalf("read with an open Cancel channel: %d states, want %d", len(full.States), n)
	}
}
