package pjcsv

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/paje"
	"github.com/macroscope-hpc/macroscope/core/pjdump"
	"github.com/macroscope-hpc/macroscope/core/trace/tracetest"
)

// TestCompressed reads pj_dump's output for the bundled jacobi32 trace
// compressed with gzip, bzip2 and zstd, cut in the middle, and as a
// decompression bomb.
func TestCompressed(t *testing.T) {
	tr, err := paje.ReadFile(filepath.Join("..", "..", "testdata", "jacobi32.trace"))
	if err != nil {
		t.Fatal(err)
	}
	var dump bytes.Buffer
	if err := pjdump.Write(&dump, tr, pjdump.Options{}); err != nil {
		t.Fatal(err)
	}
	tracetest.CheckCompressed(t, Format, "jacobi32.csv", dump.Bytes())
}
