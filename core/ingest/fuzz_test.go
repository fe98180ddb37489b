package ingest_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
)

// decompressAll reads what ingest.Decompress makes of data, named name,
// with the given limit.
func decompressAll(data []byte, name string, limit int64) ([]byte, error) {
	r, release, err := ingest.Decompress(bufio.NewReader(bytes.NewReader(data)), name, limit)
	if err != nil {
		return nil, err
	}
	defer release()
	return io.ReadAll(r)
}

// checkError fails unless err is nil or a FormatError naming name.
func checkError(t *testing.T, err error, name string) {
	t.Helper()
	var fe *errs.FormatError
	if err != nil && (!errors.As(err, &fe) || fe.File != name) {
		t.Fatalf("error %v (%T) is not a FormatError naming %s", err, err, name)
	}
}

// FuzzDecompress checks Decompress on arbitrary bytes, taken as they are
// (mode 0: whatever the magic bytes say) and compressed with gzip or zstd
// (modes 1 and 2), then possibly cut (cut > 0): plain input comes out
// unchanged; compressed input comes out as it went in, or fails past the
// limit with the decompression bomb error, or, when cut, with a
// FormatError; errors always name the input; nothing comes out past the
// limit.
func FuzzDecompress(f *testing.F) {
	readertest.BoundMinimization(f)
	f.Add([]byte("a line\nanother\n"), uint8(0), uint16(0), uint16(0))
	f.Add([]byte("a line\nanother\n"), uint8(1), uint16(0), uint16(0))
	f.Add([]byte(strings.Repeat("zeros ", 200)), uint8(2), uint16(100), uint16(0))
	f.Add([]byte(strings.Repeat("x", 300)), uint8(1), uint16(0), uint16(7))
	f.Add([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}, uint8(0), uint16(0), uint16(0))
	f.Add([]byte("BZh11AY&SY"), uint8(0), uint16(0), uint16(0))
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0}, uint8(0), uint16(5), uint16(0))
	var gz *gzip.Writer
	zw, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte, mode uint8, limit, cut uint16) {
		if len(data) > 4<<10 {
			return
		}
		const name = "in.trace"
		input := data
		switch mode % 3 {
		case 1:
			var b bytes.Buffer
			if gz == nil {
				gz = gzip.NewWriter(&b)
			} else {
				gz.Reset(&b)
			}
			gz.Write(data)
			gz.Close()
			input = b.Bytes()
		case 2:
			input = zw.EncodeAll(data, nil)
		}
		cutShort := false
		if cut > 0 && mode%3 != 0 {
			input = input[:int(cut)%len(input)]
			cutShort = true
		}
		if ingest.Sniff(input) == ingest.Bzip2 && len(input) > 3 && input[3] > '1' {
			// Go's bzip2 reader allocates four bytes per byte of the
			// block size the header announces, up front: 3.6 MB for
			// BZh9, milliseconds per run. BZh1 runs the same code.
			return
		}
		out, err := decompressAll(input, name, int64(limit))
		checkError(t, err, name)
		// The limit bounds what decompresses: plain input passes as it is.
		if limit > 0 && ingest.Sniff(input) != ingest.Plain && len(out) > int(limit) {
			t.Fatalf("%d bytes came out past the limit of %d", len(out), limit)
		}
		switch {
		case ingest.Sniff(input) == ingest.Plain: // including compressed data cut inside its magic bytes
			if err != nil || !bytes.Equal(out, input) {
				t.Fatalf("plain input changed: %v", err)
			}
		case cutShort:
			if err == nil && !bytes.Equal(out, data) {
				t.Fatalf("compressed input cut at %d decompressed without error to other bytes", len(input))
			}
		case mode%3 != 0:
			switch { // whole compressed data
			case limit == 0 || len(data) <= int(limit):
				if err != nil || !bytes.Equal(out, data) {
					t.Fatalf("round trip through %d: %v, %d bytes out of %d", mode%3, err, len(out), len(data))
				}
			default:
				if err == nil || !strings.Contains(err.Error(), "the limit (a decompression bomb?)") {
					t.Fatalf("%d bytes past a limit of %d: %v", len(data), limit, err)
				}
			}
		}
	})
}
