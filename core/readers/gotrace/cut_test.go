package gotrace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// threegen is a trace of three generations (testdata/gen/threegen.go).
var threegen = filepath.Join("testdata", "threegen.trace")

// TestCutAfterWholeGenerations reads a trace cut short in its third
// generation, as a program killed before trace.Stop leaves it: the two
// whole generations before the cut are read, and the notes say the trace
// is incomplete. The oracle is the Go distribution's own parser:
// `go tool trace -d=parsed` on the first 15,000 bytes prints 2,294
// events, 3 of them Sync (the two generations' starts and the one before
// the error), 101 goroutine creations (NotExist->Runnable), and fails
// with "failed to read full batch".
func TestCutAfterWholeGenerations(t *testing.T) {
	data, err := os.ReadFile(threegen)
	if err != nil {
		t.Fatal(err)
	}
	full := trace.New("mem")
	notes := &trace.Notes{}
	if err := decode(strings.NewReader(string(data)), "mem", int64(len(data)), full, trace.ReadOptions{Notes: notes}); err != nil {
		t.Fatal(err)
	}
	if r := notes.IncompleteReasons(); len(r) != 0 {
		t.Fatalf("whole trace: incomplete %q", r)
	}

	cut := trace.New("mem")
	notes = &trace.Notes{}
	if err := decode(strings.NewReader(string(data[:15000])), "mem", 15000, cut, trace.ReadOptions{Notes: notes}); err != nil {
		t.Fatalf("cut after two generations: %v, want the two read", err)
	}
	r := notes.IncompleteReasons()
	if len(r) != 1 || !strings.Contains(r[0], "failed to read full batch") || !strings.Contains(r[0], "the 2 whole generation(s) before it are read (2291 events)") {
		t.Fatalf("incomplete reasons %q", r)
	}
	if cut.Links.Len() != 101 {
		t.Errorf("%d spawn links, want 101 goroutine creations", cut.Links.Len())
	}
	if cut.Links.Len() >= full.Links.Len() || cut.End >= full.End {
		t.Errorf("cut trace: %d links to %v, whole: %d to %v", cut.Links.Len(), cut.End, full.Links.Len(), full.End)
	}
	// What was read is what the whole trace holds up to then.
	for i, l := range cut.Links.All() {
		if l.Start != full.Links.At(i).Start {
			t.Fatalf("link %d starts at %v, in the whole trace at %v", i, l.Start, full.Links.At(i).Start)
		}
	}

	// Cut within its first generation, nothing whole is left: refused.
	_, err = readBytes(data[:3000])
	wantFormatError(t, "first generation cut", err, "mem", "malformed Go execution trace")
}

// A trace cut right after its 16-byte header (the program killed as
// tracing started, a copy cut) holds no event: it is read as empty and
// marked incomplete, never as a complete trace of nothing.
func TestCutAfterHeader(t *testing.T) {
	data, err := os.ReadFile(threegen)
	if err != nil {
		t.Fatal(err)
	}
	notes := &trace.Notes{}
	err = decode(strings.NewReader(string(data[:headerLen])), "mem", headerLen, trace.New("mem"), trace.ReadOptions{Notes: notes})
	r := notes.IncompleteReasons()
	if err != nil || len(r) != 1 || !strings.Contains(r[0], "cut after its header") {
		t.Errorf("%v, incomplete %q", err, r)
	}
}
