package readertest

import (
	"testing"

	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// ReadFormat reads the file at path through the door as format f with the
// options v, as a user's read does: the options checked first (a bad one
// fails the test: it is the test's mistake, not the reader's), then the
// source opened and read into a new trace. An error of the open or the
// read is returned; a read that fails returns the trace it left too.
func ReadFormat(t testing.TB, f ingest.Format, path string, v ingest.Values) (*trace.Trace, error) {
	t.Helper()
	v, err := f.Check(v)
	if err != nil {
		t.Fatal(err)
	}
	src, err := f.Open(path, v)
	if err != nil {
		return nil, err
	}
	tr := trace.New() // no file name: traces of one content compare equal
	return tr, src.Read(tr, trace.ReadOptions{})
}

// ReadFormatNotes is ReadFormat, returning the reader's notes as well.
func ReadFormatNotes(t testing.TB, f ingest.Format, path string, v ingest.Values) (*trace.Trace, *trace.Notes, error) {
	t.Helper()
	v, err := f.Check(v)
	if err != nil {
		t.Fatal(err)
	}
	notes := &trace.Notes{}
	src, err := f.Open(path, v)
	if err != nil {
		return nil, notes, err
	}
	tr := trace.New()
	return tr, notes, src.Read(tr, trace.ReadOptions{Notes: notes})
}
