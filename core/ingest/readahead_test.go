package ingest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"math/rand/v2"
	"runtime"
	"testing"
	"testing/iotest"
	"time"
)

// TestReadAheadGivesTheSameBytes reads random inputs through read-aheads
// of small chunks, with reads of random sizes, and compares.
func TestReadAheadGivesTheSameBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 200; iter++ {
		data := make([]byte, rng.IntN(5000))
		for i := range data {
			data[i] = byte(rng.IntN(256))
		}
		var src io.Reader = bytes.NewReader(data)
		if iter%2 == 0 {
			src = iotest.OneByteReader(src) // chunks filled by many reads
		}
		ra := newReadAhead(src, 1+rng.IntN(700), 1+rng.IntN(4))
		var got []byte
		for {
			p := make([]byte, 1+rng.IntN(900))
			n, err := ra.Read(p)
			got = append(got, p[:n]...)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		ra.close()
		if !bytes.Equal(got, data) {
			t.Fatalf("iter %d: %d bytes read, want %d, or different", iter, len(got), len(data))
		}
	}
}

// TestReadAheadKeepsErrorsInPlace checks that an error comes after the
// bytes read before it, and stays.
func TestReadAheadKeepsErrorsInPlace(t *testing.T) {
	broken := errors.New("broken")
	data := bytes.Repeat([]byte("0123456789"), 100)
	ra := newReadAhead(io.MultiReader(bytes.NewReader(data), iotest.ErrReader(broken)), 64, 2)
	defer ra.close()
	got, err := io.ReadAll(ra)
	if !errors.Is(err, broken) || !bytes.Equal(got, data) {
		t.Fatalf("%d bytes and %v, want %d bytes and %v", len(got), err, len(data), broken)
	}
	if _, err := ra.Read(make([]byte, 10)); !errors.Is(err, broken) {
		t.Fatalf("read after the error: %v", err)
	}
}

// TestReadAheadStopsWhenClosedEarly closes read-aheads of a long input
// after a few bytes: their goroutines end.
func TestReadAheadStopsWhenClosedEarly(t *testing.T) {
	before := runtime.NumGoroutine()
	for range 50 {
		ra := newReadAhead(&endless{}, 1024, 3)
		if _, err := ra.Read(make([]byte, 10)); err != nil {
			t.Fatal(err)
		}
		ra.close()
	}
	for wait := 0; runtime.NumGoroutine() > before && wait < 100; wait++ {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines after closing, %d before", n, before)
	}
}

type endless struct{}

func (endless) Read(p []byte) (int, error) { return len(p), nil }

// TestDecompressReadsAhead reads a truncated gzip stream through
// Decompress: every byte before the cut, then ErrTruncated, as without
// the read-ahead.
func TestDecompressReadsAhead(t *testing.T) {
	data := bytes.Repeat([]byte("a line of a trace\n"), 300_000) // several chunks
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(data)
	w.Close()
	for _, cut := range []int{z.Len(), z.Len() - 100} {
		r, release, err := Decompress(bufio.NewReader(bytes.NewReader(z.Bytes()[:cut])), "t.gz", 0)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		release()
		if cut == z.Len() {
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("whole: %d bytes, %v", len(got), err)
			}
			continue
		}
		if !errors.Is(err, ErrTruncated) || !bytes.Equal(got, data[:len(got)]) || len(got) < len(data)/2 {
			t.Fatalf("truncated: %d bytes of %d, %v", len(got), len(data), err)
		}
	}
}
