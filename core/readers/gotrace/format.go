package gotrace

import (
	"fmt"
	"regexp"
	"strconv"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
)

// Format is the Go execution trace reader, for the registry.
//
// runtime/trace and `go test -trace` let the user choose the file name
// (trace.out, x.trace...), and ".trace" is Pajé's extension, so Go traces
// are recognized by their header, which sniff checks. ".gotrace" is the
// only extension claimed.
var Format = ingest.Format{
	Name:       "gotrace",
	Summary:    "Go execution trace (runtime/trace, go test -trace), Go 1.11 and later",
	Extensions: []string{".gotrace"},
	Sniff:      sniff,
	Open:       open,
}

// headerLen is the length of the header of every Go execution trace,
// "go 1.NN trace\x00\x00\x00".
const headerLen = 16

// header matches the header; it also matches one-digit minor versions
// (go 1.5 to 1.9), whose header is padded with one more NUL.
var header = regexp.MustCompile(`^go 1\.([0-9]{1,2}) trace\x00\x00\x00`)

// sniff reports whether head starts with the header of a Go execution
// trace, of any version.
func sniff(head []byte) bool { return header.Match(head) }

// Versions the parser reads: 1.11 to 1.21 in the old format, which it
// converts as a whole in memory, and 1.22 onwards in the generational
// format it streams. Versions between are refused by the parser itself
// (1.24 wrote 1.23's format and its header).
const (
	oldestVersion = 11
	firstV2       = 22
)

// version returns the minor version written in the header at the start
// of head, or a FormatError saying why the trace cannot be read.
func version(head []byte, file string) (int, error) {
	m := header.FindSubmatch(head)
	if m == nil {
		return 0, &errs.FormatError{File: file, Err: fmt.Errorf("not a Go execution trace: it does not start with the header \"go 1.NN trace\\x00\\x00\\x00\"%s", textHint(head))}
	}
	v, _ := strconv.Atoi(string(m[1]))
	if v < oldestVersion {
		//lint:ignore ST1005 the message starts with the name Go
		return v, &errs.FormatError{File: file, Err: fmt.Errorf(
			"Go 1.%d execution trace: the trace formats of Go 1.5 to 1.10 cannot be read (no parser reads them any more); record the trace again with Go 1.11 or later (Go 1.22 or later for the current format)", v)}
	}
	return v, nil
}

// textForm matches the start of the text form of Go traces that the Go
// source tree keeps for its parser tests, bare or in a txtar file.
var textForm = regexp.MustCompile(`(?m)^Trace Go1\.[0-9]+$|^-- expect --`)

// textHint explains the text form: it is not what runtime/trace writes.
func textHint(head []byte) string {
	if textForm.Match(head) {
		return " (this is the text form of the Go runtime's parser tests, which only the Go tree's internal trace tools turn into a binary trace)"
	}
	return ""
}

// open checks the header, so that an old or foreign file is refused
// before the read starts.
func open(path string, _ ingest.Values) (*ingest.Source, error) {
	head, err := ingest.Head(path, headerLen+1)
	if err != nil {
		return nil, err
	}
	v, err := version(head, path)
	if err != nil {
		return nil, err
	}
	return &ingest.Source{
		Read:  ingest.ReadFunc(path, read),
		Whole: v < firstV2, // the old format is parsed whole before the first event
		Files: []string{path},
	}, nil
}
