package formats

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// A Paraver trace whose last record was cut after "1:1:1:1:1:0:1": the
// reader marks it incomplete.
const cutPrv = "#Paraver (x):1000_ns:1(1):1:1(1:1)\n1:1:1:1:1:0:1000:1\n1:1:1:1:1:0:1"

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestStrict: every format takes strict; without it the cut trace comes
// back with the reason in the notes, with it (the option, or
// ReadOptions.Strict) the read fails with a FormatError naming the file
// and the reason.
func TestStrict(t *testing.T) {
	path := writeFile(t, "cut.prv", cutPrv)
	reason := "cut.prv: the last line (3) has no end of line: the file is cut"

	src, _, err := Open(path, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	notes := &trace.Notes{}
	tr := trace.New(path)
	if err := src.Read(tr, trace.ReadOptions{Notes: notes}); err != nil {
		t.Fatalf("lenient read: %v", err)
	}
	if got := notes.IncompleteReasons(); len(got) != 1 || !strings.HasSuffix(got[0], reason) {
		t.Fatalf("reasons %q, want one ending in %q", got, reason)
	}
	if tr.States.Len() != 1 {
		t.Errorf("%d states, want the 1 complete record", tr.States.Len())
	}

	check := func(how string, err error) {
		t.Helper()
		var fe *errs.FormatError
		if !errors.As(err, &fe) || fe.File != path || !strings.Contains(err.Error(), "incomplete") ||
			!strings.Contains(err.Error(), reason) {
			t.Errorf("%s: got %v, want a FormatError on %s saying %q", how, err, path, reason)
		}
	}
	src, _, err = Open(path, "paraver", ingest.Values{"strict": true})
	if err != nil {
		t.Fatal(err)
	}
	check("strict option, no notes given", src.Read(trace.New(path), trace.ReadOptions{}))
	src, _, _ = Open(path, "", ingest.Values{"strict": ingest.Text("true")})
	check("strict option as text", src.Read(trace.New(path), trace.ReadOptions{Notes: &trace.Notes{}}))
	src, _, _ = Open(path, "", nil)
	check("ReadOptions.Strict", src.Read(trace.New(path), trace.ReadOptions{Strict: true}))

	// A complete trace reads the same, strict or not.
	whole := writeFile(t, "whole.prv", cutPrv[:strings.LastIndex(cutPrv, "\n")+1])
	src, _, _ = Open(whole, "", ingest.Values{"strict": true})
	if err := src.Read(trace.New(whole), trace.ReadOptions{}); err != nil {
		t.Errorf("strict read of a complete trace: %v", err)
	}
}

// TestEveryFormatTakesStrict: the option is described for every format,
// once (Pajé and rocprof declare their own, which takes its place).
func TestEveryFormatTakesStrict(t *testing.T) {
	for _, d := range Describe() {
		var n int
		for _, o := range d.Options {
			if o.Name == "strict" {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s: %d strict options", d.Name, n)
		}
		f, _ := ByName(d.Name)
		if _, err := f.Check(ingest.Values{"strict": true}); err != nil {
			t.Errorf("%s: %v", d.Name, err)
		}
	}
	if names := Names(); !slices.Contains(names, "paje") {
		t.Fatal("no paje")
	}
}
