package pjdump

import (
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestCancel stops the read of a 5 MB dump at its first progress report;
// with an open Cancel channel the read completes.
func TestCancel(t *testing.T) {
	var b strings.Builder
	b.WriteString("Container, 0, 0, 0, 1000000, 1000000, 0\nContainer, 0, P, 0, 1000000, 1000000, p1\n")
	n := 0
	for b.Len() < 5<<20 {
		b.WriteString("State, p1, S, " + strconv.Itoa(n) + ".000000, " + strconv.Itoa(n) + ".500000, 0.500000, 0.000000, s" +
			strconv.Itoa(n%5) + "\n")
		n++
	}
	text := b.String()
	if _, _, reports := readertest.Cancel(t, n, func(sink trace.Sink, opt trace.ReadOptions) error {
		return decodeStream(strings.NewReader(text), "big.csv", int64(len(text)), sink, opt)
	}); reports != 1 {
		t.Fatalf("canceled read went on: %d reports", reports)
	}
}
