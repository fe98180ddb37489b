package hpctoolkit

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// A database whose meta.db holds a name that is not UTF-8 (one byte of a
// function name flipped) is read with the invalid byte shown as U+FFFD,
// and the read says so; never a trace complete in appearance whose
// tables then fail.
func TestInvalidUTF8Names(t *testing.T) {
	src := filepath.Join("testdata", "loop-fork-cycles")
	dir := t.TempDir()
	for _, name := range []string{"meta.db", "profile.db", "trace.db", "cct.db"} {
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "meta.db" {
			at := bytes.Index(data, []byte("printf@plt"))
			if at < 0 {
				t.Fatal("no printf@plt in meta.db")
			}
			data[at+2] = 0xFF // pr\xffntf@plt: same length, the offsets kept
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tr := trace.New()
	sink := readertest.NewContract(tr)
	var notes trace.Notes
	if err := Read(dir, sink, trace.ReadOptions{Notes: &notes}); err != nil {
		t.Fatal(err)
	}
	if sink.Err() != nil {
		t.Error(sink.Err())
	}
	readertest.CheckReplacedText(t, tr, &notes, "pr\uFFFDntf@plt")
}
