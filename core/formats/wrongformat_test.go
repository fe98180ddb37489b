package formats

import (
	"errors"
	"io/fs"
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

// An error of another kind than a format or an argument error keeps its
// kind when the hint is added: a file that cannot be opened is not made a
// FormatError.
func TestWrongFormatKeepsTheErrorsKind(t *testing.T) {
	inner := &os.PathError{Op: "open", Path: "x/events.bin", Err: fs.ErrNotExist}
	err := wrongFormat(inner, "x", "paje", "chrome")
	var fe *errs.FormatError
	if !errors.Is(err, fs.ErrNotExist) || errors.As(err, &fe) {
		t.Errorf("got %v (%T), want the path error kept and no FormatError", err, err)
	}
	if !strings.Contains(err.Error(), `read it with format="chrome"`) {
		t.Errorf("got %q, want the hint", err)
	}
}
