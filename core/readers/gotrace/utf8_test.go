package gotrace

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// A damaged string table (one byte of a function name flipped) gives
// names that are not UTF-8: they are read with the invalid byte shown as
// U+FFFD and the read says so, by both decoders; never a trace complete
// in appearance whose tables then fail.
func TestInvalidUTF8Names(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "fib4.trace"))
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(data, []byte("main.main"))
	if at < 0 {
		t.Fatal("no main.main in the trace's string table")
	}
	data = bytes.Clone(data)
	data[at+5] = 0xFF // main.\xffain: same length, the table's layout kept
	path := filepath.Join(t.TempDir(), "latin1.trace")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	defer func(was bool) { ownDecoder = was }(ownDecoder)
	for _, own := range []bool{false, true} {
		ownDecoder = own
		tr := trace.New()
		sink := readertest.NewContract(tr)
		var notes trace.Notes
		err := read(path, sink, trace.ReadOptions{Notes: &notes})
		if err != nil {
			t.Fatalf("own decoder %v: %v", own, err)
		}
		if sink.Err() != nil {
			t.Errorf("own decoder %v: %v", own, sink.Err())
		}
		readertest.CheckReplacedText(t, tr, &notes, "main.\uFFFDain")
	}
}
