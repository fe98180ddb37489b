package paje

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
)

// TestCompressed reads the bundled jacobi32 trace compressed with gzip,
// bzip2 and zstd, cut in the middle, and as a decompression bomb.
func TestCompressed(t *testing.T) {
	plain, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "jacobi32.trace"))
	if err != nil {
		t.Fatal(err)
	}
	readertest.CheckCompressed(t, Format, "jacobi32.trace", plain)
}

// TestExtentOfCompressed checks that the probe gives up on compressed
// files, whose end it cannot seek to.
func TestExtentOfCompressed(t *testing.T) {
	plain, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "jacobi32.trace"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "j.trace")
	os.WriteFile(p, plain, 0o600)
	if _, _, ok := extent([]string{p}, Options{}); !ok {
		t.Fatal("no extent for the plain file")
	}
	for _, kind := range []string{"gzip", "zstd"} {
		z := filepath.Join(dir, "j.trace."+kind)
		os.WriteFile(z, readertest.Compress(t, plain, kind), 0o600)
		if first, last, ok := extent([]string{z}, Options{}); ok {
			t.Errorf("%s: extent [%d, %d], want none", kind, first, last)
		}
		if _, _, ok := extent([]string{p, z}, Options{}); ok {
			t.Errorf("%s after a plain file: an extent, want none", kind)
		}
	}
}
