package gotrace

import (
	"errors"
	"os"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// FuzzDecode feeds mutations of a small trace to the reader, the
// parser's panics left unrecovered: whatever the input, a read ends with
// nil or a FormatError.
func FuzzDecode(f *testing.F) {
	data, err := os.ReadFile(small)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(data[:len(data)/2])
	f.Add([]byte("go 1.26 trace\x00\x00\x00"))
	f.Add([]byte("go 1.21 trace\x00\x00\x00"))
	recoverPanics = false
	f.Fuzz(func(t *testing.T, b []byte) {
		_, err := readBytes(b)
		var fe *errs.FormatError
		if err != nil && !errors.As(err, &fe) {
			t.Fatalf("%v (%T), want a FormatError", err, err)
		}
	})
}
