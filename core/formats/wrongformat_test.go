package formats

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// TestWrongFormatNamesTheRightOne: a Chrome JSON file read as Pajé or
// pj_dump fails as before, and the error, still a FormatError at the same
// line, names the format the file is and how to read it in both front
// ends' syntax; read with its own reader, or detected, it reads.
func TestWrongFormatNamesTheRightOne(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.json")
	if err := os.WriteFile(path, []byte(`{"traceEvents":[{"name":"a","ph":"X","ts":0,"dur":5,"pid":1,"tid":1}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, named := range []string{"paje", "pjdump"} {
		_, err := ReadFile(path, named)
		var fe *errs.FormatError
		if !errors.As(err, &fe) || fe.File != path || fe.Line != 1 {
			t.Errorf("%s: got %v, want a FormatError at %s:1", named, err, path)
			continue
		}
		want := `; this file is Chrome/Perfetto trace-event JSON (Chrome, catapult, Perfetto, PyTorch Kineto, PerfFlowAspect), not ` +
			named + `: read it with format="chrome" or no format= (Python), --format chrome or no --format (command line)`
		if !strings.HasSuffix(err.Error(), want) {
			t.Errorf("%s: got %q, want it to end with %q", named, err, want)
		}
	}
	for _, named := range []string{"chrome", ""} {
		if tr, err := ReadFile(path, named); err != nil || tr.States.Len() != 1 {
			t.Errorf("read as %q: %v", named, err)
		}
	}
	// A Pajé file read as Pajé and failing says nothing of another format.
	bad := filepath.Join(t.TempDir(), "bad.trace")
	if err := os.WriteFile(bad, []byte("%EventDef PajeDefineContainerType 0\n%EndEventDef\n0 T 0 \"T\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(bad, "paje"); err == nil || strings.Contains(err.Error(), "this file is") {
		t.Errorf("a broken Pajé file: %v", err)
	}
}
