package nsys

import (
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// readBytes reads a database held in data, which must give a trace or a
// FormatError, never another error or a panic.
func readBytes(t testing.TB, dir string, data []byte) error {
	path := filepath.Join(dir, "input.sqlite")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	err := Read(path, trace.New(), trace.ReadOptions{})
	var fe *errs.FormatError
	if err != nil && !errors.As(err, &fe) {
		t.Fatalf("%d bytes: %T %v, want a FormatError", len(data), err, err)
	}
	if fe != nil && fe.File != path {
		t.Fatalf("the error names %q, not the file", fe.File)
	}
	return err
}

func tinyBytes(t testing.TB) []byte {
	data, err := os.ReadFile(filepath.Join("testdata", "tiny.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestTruncated cuts the database at many sizes: every cut that loses
// pages in use is a FormatError.
func TestTruncated(t *testing.T) {
	data := tinyBytes(t)
	dir := t.TempDir()
	failed := 0
	cuts := []int{0, 1, 15, 16, 17, 99, 100, 101, 511, 513}
	for n := 1024; n < len(data); n += 512 {
		cuts = append(cuts, n-1, n)
	}
	cuts = append(cuts, len(data)-1)
	for _, n := range cuts {
		if readBytes(t, dir, data[:n]) != nil {
			failed++
		} else {
			t.Logf("cut at %d of %d bytes: read", n, len(data))
		}
	}
	// Every page of the synthetic database is in use.
	if failed != len(cuts) {
		t.Errorf("%d of %d truncated databases read without error", len(cuts)-failed, len(cuts))
	}
}

// TestFlipped flips bytes all over the database: the result is a trace
// or a FormatError.
func TestFlipped(t *testing.T) {
	data := tinyBytes(t)
	dir := t.TempDir()
	failed, tried := 0, 0
	for i := 0; i < len(data); i += 97 {
		for _, mask := range []byte{0xff, 0x01, 0x80} {
			c := append([]byte(nil), data...)
			c[i] ^= mask
			tried++
			if readBytes(t, dir, c) != nil {
				failed++
			}
		}
	}
	if failed == 0 {
		t.Errorf("none of %d corrupted databases gave an error", tried)
	}
	t.Logf("%d of %d corrupted databases refused", failed, tried)
}

// TestTruncatedCorpus cuts a real export in half.
func TestTruncatedCorpus(t *testing.T) {
	path := corpusPath(t, "nsys/h100_2gpu_1s.sqlite")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{len(data) / 2, len(data) - 4096} {
		if readBytes(t, t.TempDir(), data[:n]) == nil {
			t.Errorf("cut at %d of %d bytes: no error", n, len(data))
		}
	}
}

// TestMutated overwrites a few random bytes of the database, many times
// over (the same every run): each read ends, promptly, with a trace or a
// FormatError. (Fuzzing whole databases through SQLite runs a few execs
// per second; FuzzNest fuzzes the reader's own logic.)
func TestMutated(t *testing.T) {
	data := tinyBytes(t)
	dir := t.TempDir()
	rng := rand.New(rand.NewSource(1))
	n := 600
	if testing.Short() {
		n = 100
	}
	for i := 0; i < n; i++ {
		c := append([]byte(nil), data...)
		for k := 0; k < 1+rng.Intn(8); k++ {
			c[rng.Intn(len(c))] = byte(rng.Intn(256))
		}
		t0 := time.Now()
		readBytes(t, dir, c)
		if d := time.Since(t0); d > 5*time.Second {
			t.Errorf("mutation %d took %v", i, d)
		}
	}
}
