package moments

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestNoDuration checks that the moments of a trace whose entities all
// sit at one instant need a window, and are all empty with one.
func TestNoDuration(t *testing.T) {
	for _, c := range []struct {
		at   trace.Time
		text string
	}{{0, "0"}, {2e9, "2"}} {
		tr := trace.New()
		tr.DefineType(trace.Type{Name: "Host", Kind: trace.KindContainer, Parent: trace.None, Start: trace.None, End: trace.None})
		tr.DefineType(trace.Type{Name: "S", Kind: trace.KindState, Parent: 0, Start: trace.None, End: trace.None})
		tr.DefineValue(trace.Value{Type: 1, Name: "run"})
		tr.CreateContainer(trace.Container{Name: "h", Type: 0, Parent: 0, Start: c.at, End: trace.Unset})
		tr.State(trace.State{Container: 1, Type: 1, Value: 0, Start: c.at, End: c.at})
		tr.Finish(c.at, c.at)

		_, err := Compute(tr, Options{})
		want := "window: the trace has no duration (all its events are at t = " + c.text + " s); give a window (start=, end=) to model it"
		var ae *errs.ArgumentError
		if !errors.As(err, &ae) || err.Error() != want {
			t.Errorf("at %s: got %v, want %q", c.at, err, want)
		}
		start, end := c.at, c.at+1e9
		r, err := Compute(tr, Options{Start: &start, End: &end})
		if err != nil {
			t.Fatal(err)
		}
		if r.Start != start || r.End != end || len(r.Resources) != 1 || !r.Busy[1].Empty() {
			t.Errorf("with a window: [%s, %s), resources %v, busy %v", r.Start, r.End, r.Resources, r.Busy[1].Busy())
		}
	}
}

// TestPlatformOnlyTrace computes the moments of a SimGrid trace of the
// platform alone, all at t = 0.
func TestPlatformOnlyTrace(t *testing.T) {
	path := filepath.Join("..", "..", "..", "..", "shared", "traces", "simgrid", "extracted", "s4u-trace-platform.1.trace")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("trace corpus not available: %v", err)
	}
	tr, err := formats.ReadFile(path, "paje")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Compute(tr, Options{})
	if err == nil || err.Error() != "window: the trace has no duration (all its events are at t = 0 s); give a window (start=, end=) to model it" {
		t.Errorf("got %v", err)
	}
}
