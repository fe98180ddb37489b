package pjdump

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/paje"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestCompressed reads pj_dump's output for the bundled jacobi32 trace
// compressed with gzip, bzip2 and zstd, cut in the middle, and as a
// decompression bomb.
func TestCompressed(t *testing.T) {
	jacobi := filepath.Join("..", "..", "..", "testdata", "jacobi32.trace")
	tr := trace.New(jacobi)
	err := decodePaje(jacobi, tr, paje.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var dump bytes.Buffer
	if err := writeDump(&dump, tr, writeOptions{}); err != nil {
		t.Fatal(err)
	}
	readertest.CheckCompressed(t, Format, "jacobi32.csv", dump.Bytes())
}
