package ingest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"strings"
	"testing"
)

// A stream expanding more than BombRatio times, past the floor, stops
// with the figures it reached; under the ratio it goes on; with no limit
// (max_decompressed=0) nothing stops it.
func TestBombRatio(t *testing.T) {
	defer func(f int64) { bombFloor = f }(bombFloor)
	bombFloor = 1 << 20
	var zeros bytes.Buffer
	w, _ := gzip.NewWriterLevel(&zeros, gzip.BestCompression)
	w.Write(make([]byte, 8<<20)) // deflate: about 1000:1
	w.Close()
	read := func(data []byte, limit int64) (int64, error) {
		r, release, err := Decompress(bufio.NewReader(bytes.NewReader(data)), "bomb.gz", limit)
		if err != nil {
			return 0, err
		}
		defer release()
		return io.Copy(io.Discard, r)
	}
	n, err := read(zeros.Bytes(), DefaultMaxDecompressed)
	if err == nil || !strings.Contains(err.Error(), "a decompression bomb; give max_decompressed=0") ||
		!strings.Contains(err.Error(), "compressed bytes read") || n > 2<<20 {
		t.Errorf("zeros: %d bytes, %v", n, err)
	}
	if n, err := read(zeros.Bytes(), -1); err != nil || n != 8<<20 {
		t.Errorf("zeros without a limit: %d bytes, %v", n, err)
	}
	// Text of a trace's kind, 8 MiB: a few times smaller, read whole.
	var text bytes.Buffer
	w = gzip.NewWriter(&text)
	for i := 0; text.Len() < 8<<20 && i < 400000; i++ {
		io.WriteString(w, "10 0.00123 ")
		io.WriteString(w, strings.Repeat("x", i%17))
		io.WriteString(w, " MPI_Send\n")
	}
	w.Close()
	if _, err := read(text.Bytes(), DefaultMaxDecompressed); err != nil {
		t.Errorf("text: %v", err)
	}
}
