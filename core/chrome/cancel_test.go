package chrome

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestCancel stops the read of a 10 MB trace at its first progress report:
// the sink receives nothing. With an open Cancel channel the read completes.
func TestCancel(t *testing.T) {
	var b strings.Builder
	b.WriteString("[")
	n := 0
	for b.Len() < 10<<20 {
		if n > 0 {
			b.WriteString(",\n")
		}
		b.WriteString(`{"ph":"X","name":"k` + strconv.Itoa(n%7) + `","pid":1,"tid":` + strconv.Itoa(n%4) +
			`,"ts":` + strconv.Itoa(10*n) + `,"dur":5}`)
		n++
	}
	b.WriteString("]")
	text := b.String()

	stop := make(chan struct{})
	reports := 0
	partial := trace.New()
	err := Decode(strings.NewReader(text), "big.json", int64(len(text)), partial, trace.ReadOptions{
		Cancel: stop,
		Progress: func(done, total int64) {
			if reports++; reports == 1 {
				close(stop)
			}
		}})
	if !errors.Is(err, trace.ErrCanceled) {
		t.Fatalf("canceled read: err = %v, want ErrCanceled", err)
	}
	if reports != 1 || len(partial.States) != 0 || len(partial.Containers) != 1 {
		t.Fatalf("canceled read went on: %d reports, %d states, %d containers", reports, len(partial.States), len(partial.Containers))
	}

	full := trace.New()
	if err := Decode(strings.NewReader(text), "big.json", 0, full, trace.ReadOptions{Cancel: make(chan struct{})}); err != nil {
		t.Fatal(err)
	}
	if len(full.States) != n {
		t.Fatalf("read with an open Cancel channel: %d states, want %d", len(full.States), n)
	}
}
