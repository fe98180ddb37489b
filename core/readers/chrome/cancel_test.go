package chrome

import (
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// tenMegabytes returns a trace of 10 MB of complete events and their
// number, for the tests of progress and cancellation.
func tenMegabytes() (string, int) {
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
	return b.String(), n
}

// TestCancel stops the read of a 10 MB trace at its first progress report:
// the sink receives nothing. With an open Cancel channel the read completes.
func TestCancel(t *testing.T) {
	text, n := tenMegabytes()
	partial, _, reports := readertest.Cancel(t, n, func(sink trace.Sink, opt trace.ReadOptions) error {
		return Decode(strings.NewReader(text), "big.json", int64(len(text)), sink, opt)
	})
	if reports != 1 || partial.States.Len() != 0 || len(partial.Containers) != 1 {
		t.Fatalf("canceled read went on: %d reports, %d states, %d containers", reports, partial.States.Len(), len(partial.Containers))
	}
}
