package pjcsv

import (
	"errors"
	"strconv"
	"strings"
	"testing"

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

	stop := make(chan struct{})
	reports := 0
	partial := trace.New()
	err := Decode(strings.NewReader(text), "big.csv", int64(len(text)), partial, trace.ReadOptions{
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
	if err := Decode(strings.NewReader(text), "big.csv", 0, full, trace.ReadOptions{Cancel: make(chan struct{})}); err != nil {
		t.Fatal(err)
	}
	if len(full.States) != n {
		t.Fatalf("read with an open Cancel channel: %d states, want %d", len(full.States), n)
	}
}
