package hpctoolkit

import (
	"errors"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Options.Lines reads the samples of some trace lines, and creates every
// line's container all the same; the parts' states are the whole read's.
func TestLinesSelectSamples(t *testing.T) {
	dir := sample().write(t)
	if n, err := traceLines(dir); err != nil || n != 2 {
		t.Fatalf("TraceLines: %d, %v; want the sample's 2 threads", n, err)
	}
	whole := trace.New()
	if err := Read(dir, whole, trace.ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	var states []trace.State
	for i := range 2 {
		part := trace.New()
		if err := readWith(dir, options{Lines: [2]int{i, i + 1}}, part, trace.ReadOptions{}); err != nil {
			t.Fatal(err)
		}
		if len(part.Containers) != len(whole.Containers) || part.End != whole.End {
			t.Fatalf("line %d: %d containers ending at %d, want %d ending at %d", i,
				len(part.Containers), part.End, len(whole.Containers), whole.End)
		}
		states = append(states, part.States.Slice()...)
	}
	// Thread 0 holds the 8 states; thread 1 none.
	if len(states) != whole.States.Len() || len(states) != 8 {
		t.Fatalf("%d states in the parts, %d in the whole read", len(states), whole.States.Len())
	}
	for i := range states {
		if states[i] != whole.States.At(i) {
			t.Fatalf("state %d: %+v, want %+v", i, states[i], whole.States.At(i))
		}
	}
	for _, lines := range []map[string]any{{"line_start": 0, "line_end": 3}, {"line_start": 2, "line_end": 1}} {
		_, err := Format.Open(dir, lines)
		var ae *errs.ArgumentError
		if !errors.As(err, &ae) {
			t.Errorf("lines %v: %v, want an argument error", lines, err)
		}
	}
}
