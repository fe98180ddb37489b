package critpath

import (
	"fmt"
	"os"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/readers/otf2/pyotf2"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestPipedSameResult streams MPI archives into the accumulator directly
// and through a trace.Pipe (its calls made on a goroutine of its own, as
// the front end reads for the critical path) and checks that the path,
// the wait states, the attribution and the delay costs are the same.
func TestPipedSameResult(t *testing.T) {
	for _, c := range pyotf2.MPIArchives() {
		t.Run(c.Name, func(t *testing.T) {
			if _, err := os.Stat(c.Path); err != nil {
				t.Skipf("trace not available: %v", err)
			}
			direct := streamed(t, c.Path, false)
			piped := streamed(t, c.Path, true)
			if direct != piped {
				t.Fatalf("through a Pipe the result differs:\n%.2000s\ndirectly:\n%.2000s", piped, direct)
			}
			if len(direct) < 100 {
				t.Fatalf("no result to compare: %s", direct)
			}
		})
	}
}

// streamed reads the archive at path into an accumulator (through a Pipe
// if piped) and prints every field of its result.
func streamed(t *testing.T, path string, piped bool) string {
	t.Helper()
	// A little memory: the spill file too is read through.
	a := New(Options{SpillMemory: 64 << 10})
	defer a.Close()
	var sink trace.Sink = a
	var p *trace.Pipe
	if piped {
		p = trace.NewPipe(a)
		sink = p
	}
	err := formats.Read(path, "otf2", sink, trace.ReadOptions{})
	if p != nil {
		p.Wait()
	}
	if err != nil {
		t.Fatal(err)
	}
	r, err := a.Result()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	d := r.DelayCosts()
	if d == nil {
		t.Fatal("no delay costs")
	}
	return fmt.Sprintf("%+v\n%+v\n%+v\n%+v\n%+v", r.Segments, r.Waits, r.Attribution.Pieces, r.Attribution.ByResource, *d)
}
