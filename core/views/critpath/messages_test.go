package critpath

import (
	"reflect"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/views/mpi"
)

// The accumulator keeps of each message only the two calls it was tied
// to, not run.Messages: its path and wait states are those FromRun finds
// from a run that keeps every message.
func TestAccumulatorKeepsNoMessages(t *testing.T) {
	for _, c := range []struct{ name, path, format string }{
		{"cp_mixed", "../../../testdata/critpath/cp_mixed.trace", "paje"},
		{"stencil4d-32", "../../../../shared/traces/tracer-stencil4d/stencil4d-otf/traces-32/traces.otf2", "otf2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := read(t, c.path, c.format)
			got, err := Compute(tr, Options{})
			if err != nil {
				t.Fatal(err)
			}
			run, err := mpi.FromTrace(tr)
			if err != nil {
				t.Fatal(err)
			}
			want, err := FromRun(run, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got.run.NumMessages != len(run.Messages) || len(run.Messages) == 0 {
				t.Errorf("%d messages counted, %d in the run", got.run.NumMessages, len(run.Messages))
			}
			if !reflect.DeepEqual(got.Segments, want.Segments) || !reflect.DeepEqual(got.Waits, want.Waits) {
				t.Errorf("accumulator: %d segments, %d waits; FromRun: %d, %d", len(got.Segments), len(got.Waits),
					len(want.Segments), len(want.Waits))
			}
			t.Logf("%d messages, %d waits, %d segments", len(run.Messages), len(got.Waits), len(got.Segments))
		})
	}
}
