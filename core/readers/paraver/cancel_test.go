package paraver

import (
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
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
	if _, _, reports := readertest.Cancel(t, n, func(sink trace.Sink, opt trace.ReadOptions) error {
		return decodeStream(strings.NewReader(text), "big.prv", int64(len(text)), nil, threadView, sink, opt)
	}); reports != 1 {
		t.Fatalf("canceled read went on: %d reports", reports)
	}
}
