package gotrace

import (
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestOpen reads through the door: the current format streams, the old
// one is parsed whole first.
func TestOpen(t *testing.T) {
	src, err := Format.Open(small, nil)
	if err != nil {
		t.Fatal(err)
	}
	if src.Whole || len(src.Files) != 1 || src.Files[0] != small {
		t.Errorf("source of a Go 1.26 trace: Whole %v, Files %v", src.Whole, src.Files)
	}
	tr := trace.New(small)
	var notes trace.Notes
	if err := src.Read(tr, trace.ReadOptions{Notes: &notes}); err != nil {
		t.Fatal(err)
	}
	direct, err := ReadFile(small)
	if err != nil {
		t.Fatal(err)
	}
	compareFacts(t, modelFacts(tr), modelFacts(direct))
	if len(notes.Skipped()) != 0 {
		t.Errorf("skipped %v in a trace with nothing to skip", notes.Skipped())
	}

	old := corpusFiles(t, "v1-binary/user_task_region_1_11_good")[0]
	src, err = Format.Open(old, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !src.Whole {
		t.Errorf("source of a Go 1.11 trace: not Whole")
	}
	// This trace ends a region begun before the trace started: skipped,
	// and counted.
	notes = trace.Notes{}
	if err := src.Read(trace.New(old), trace.ReadOptions{Notes: &notes}); err != nil {
		t.Fatal(err)
	}
	if got := notes.Skipped()["region ends whose beginning precedes the trace"]; got != 1 {
		t.Errorf("%s: %d region ends skipped, want 1 (%v)", filepath.Base(old), got, notes.Skipped())
	}
}
