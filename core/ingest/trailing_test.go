package ingest_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

func gzipOf(t *testing.T, data []byte) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func zstdOf(t *testing.T, data []byte, checksum bool) []byte {
	w, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(checksum), zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	return w.EncodeAll(data, nil)
}

// garbage returns n bytes that start no gzip member or zstd frame.
func garbage(n int) []byte {
	g := bytes.Repeat([]byte("junk!"), n/5+1)[:n]
	return g
}

// TestTrailingBytes reads gzip and zstd data followed by 1, 9, 10 and
// 1000 bytes that are not compressed data (Go's gzip reader took the
// first two for a cut, the others for a broken header): the data comes
// out in full, then an error naming the file and the byte where the
// trailing bytes start, which ReadToCut turns into a warning (a strict
// read: the error).
func TestTrailingBytes(t *testing.T) {
	data := []byte(strings.Repeat("a line of a trace, 0.5 1.25 state\n", 10000))
	random := make([]byte, 300<<10) // incompressible: raw blocks
	rand.NewChaCha8([32]byte{1}).Read(random)
	streams := map[string][]byte{
		"gzip":          gzipOf(t, data),
		"zstd":          zstdOf(t, data, false),
		"zstd-checksum": zstdOf(t, data, true),
		"zstd-rle":      zstdOf(t, make([]byte, 1<<18), true),
		"zstd-raw":      zstdOf(t, random, false),
	}
	for kind, packed := range streams {
		want := data
		switch kind {
		case "zstd-rle":
			want = make([]byte, 1<<18)
		case "zstd-raw":
			want = random
		}
		name := strings.TrimSuffix(kind, "-checksum")
		name = strings.TrimSuffix(strings.TrimSuffix(name, "-rle"), "-raw")
		for _, n := range []int{1, 9, 10, 1000} {
			t.Run(fmt.Sprintf("%s+%d", kind, n), func(t *testing.T) {
				in := append(append([]byte(nil), packed...), garbage(n)...)
				out, err := decompressAll(in, "t.gz", 0)
				if !bytes.Equal(out, want) {
					t.Fatalf("%d bytes out, want %d", len(out), len(want))
				}
				var fe *errs.FormatError
				var te *ingest.TrailingError
				if !errors.As(err, &fe) || fe.File != "t.gz" || !errors.As(err, &te) || fe.Offset != int64(len(packed)) {
					t.Fatalf("error %v, want a TrailingError at byte %d of t.gz", err, len(packed))
				}
				if te.At != int64(len(packed)) || te.Bytes != int64(n) || te.Zeros {
					t.Fatalf("%+v", te)
				}
				wantMsg := fmt.Sprintf("t.gz: byte %d: the %s data ends at byte %d, followed by %d bytes that are not %s data", len(packed), name, len(packed), n, name)
				if err.Error() != wantMsg {
					t.Errorf("error %q, want %q", err, wantMsg)
				}

				notes := &trace.Notes{}
				got, err := readToCut(in, trace.ReadOptions{Notes: notes})
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("through ReadToCut: %v, %d bytes", err, len(got))
				}
				msgs := notes.Messages()
				warn := fmt.Sprintf("t.gz: the %s data ends at byte %d, followed by %d bytes that are not %s data (trailing garbage): ignored, the data before them read in full", name, len(packed), n, name)
				if len(msgs) != 1 || msgs[0] != warn || len(notes.IncompleteReasons()) != 0 {
					t.Errorf("notes %q, want only the warning %q", msgs, warn)
				}

				_, err = readToCut(in, trace.ReadOptions{Notes: &trace.Notes{}, Strict: true})
				if !errors.Is(err, ingest.ErrTrailing) || !errors.As(err, &fe) || fe.Offset != int64(len(packed)) {
					t.Errorf("strict read: %v, want the TrailingError", err)
				}
			})
		}
		t.Run(kind+"+zeros", func(t *testing.T) {
			in := append(append([]byte(nil), packed...), make([]byte, 512)...)
			notes := &trace.Notes{}
			got, err := readToCut(in, trace.ReadOptions{Notes: notes})
			warn := fmt.Sprintf("t.gz: the %s data ends at byte %d, followed by 512 zero bytes (padding): ignored, the data before them read in full", name, len(packed))
			if err != nil || !bytes.Equal(got, want) || fmt.Sprint(notes.Messages()) != fmt.Sprint([]string{warn}) {
				t.Errorf("%v, %d bytes, notes %q", err, len(got), notes.Messages())
			}
		})
	}
}

func readToCut(in []byte, opt trace.ReadOptions) ([]byte, error) {
	r, release, err := ingest.Decompress(bufio.NewReader(bytes.NewReader(in)), "t.gz", 0)
	if err != nil {
		return nil, err
	}
	defer release()
	return io.ReadAll(ingest.ReadToCut(r, opt))
}

// TestConcatenatedStreams reads two gzip members, and two zstd frames
// with a skippable frame between them, end to end, as cat writes them:
// both come out, without a note.
func TestConcatenatedStreams(t *testing.T) {
	a, b := []byte(strings.Repeat("first\n", 1000)), []byte(strings.Repeat("second\n", 2000))
	skippable := []byte{0x5a, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 'a', 'b', 'c'}
	for kind, in := range map[string][]byte{
		"gzip": append(gzipOf(t, a), gzipOf(t, b)...),
		"zstd": append(append(zstdOf(t, a, true), skippable...), zstdOf(t, b, false)...),
	} {
		notes := &trace.Notes{}
		out, err := readToCut(in, trace.ReadOptions{Notes: notes})
		if err != nil || !bytes.Equal(out, append(append([]byte(nil), a...), b...)) || len(notes.Messages()) != 0 {
			t.Errorf("%s: %v, %d bytes out, notes %q", kind, err, len(out), notes.Messages())
		}
	}
}

// TestStreamCutAfterAnother: a second stream cut in its magic number or
// header is a cut (the trace incomplete), not trailing bytes.
func TestStreamCutAfterAnother(t *testing.T) {
	a := gzipOf(t, []byte("first\n"))
	z := zstdOf(t, []byte("first\n"), false)
	for name, in := range map[string][]byte{
		"gzip magic":  append(append([]byte(nil), a...), 0x1f),
		"gzip header": append(append([]byte(nil), a...), gzipOf(t, []byte("x"))[:6]...),
		"zstd magic":  append(append([]byte(nil), z...), 0x28, 0xb5),
		"zstd header": append(append([]byte(nil), z...), z[:5]...),
	} {
		_, err := decompressAll(in, "t.gz", 0)
		if !errors.Is(err, ingest.ErrTruncated) {
			t.Errorf("%s: %v, want ErrTruncated", name, err)
		}
	}
}

// TestSkippableFirst reads what pzstd writes: a skippable frame, then the
// frames of the data. Sniff took it for plain text.
func TestSkippableFirst(t *testing.T) {
	data := []byte(strings.Repeat("a line\n", 500))
	frame := zstdOf(t, data, true)
	size := len(frame)
	in := append([]byte{0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, byte(size), byte(size >> 8), 0, 0}, frame...)
	if c := ingest.Sniff(in[:4]); c != ingest.Zstd {
		t.Fatalf("sniffed %v", c)
	}
	out, err := decompressAll(in, "t.zst", 0)
	if err != nil || !bytes.Equal(out, data) {
		t.Errorf("%v, %d bytes out", err, len(out))
	}
}

// TestBzip2TrailingBytes: bzip2 data followed by 2, 9, 10 or 1000 bytes
// that start no stream comes out in full, then the TrailingError at the
// byte where they start (Go's reader refused them as "bad magic value in
// continuation file", without an offset); two streams end to end come
// out as one.
func TestBzip2TrailingBytes(t *testing.T) {
	if _, err := exec.LookPath("bzip2"); err != nil {
		t.Skip("the bzip2 command is not installed: Go cannot write bzip2")
	}
	data := []byte(strings.Repeat("a line of a trace, 0.5 1.25 state\n", 5000))
	packed := readertest.Compress(t, data, "bzip2")
	for _, n := range []int{2, 9, 10, 1000} {
		in := append(append([]byte(nil), packed...), garbage(n)...)
		out, err := decompressAll(in, "t.bz2", 0)
		var te *ingest.TrailingError
		if !bytes.Equal(out, data) || !errors.As(err, &te) || te.At != int64(len(packed)) || te.Bytes != int64(n) || te.Zeros {
			t.Errorf("%d bytes after: %d bytes out, %v (%+v)", n, len(out), err, te)
		}
	}
	in := append(append([]byte(nil), packed...), make([]byte, 64)...)
	if _, err := decompressAll(in, "t.bz2", 0); !errors.As(err, new(*ingest.TrailingError)) || !strings.Contains(err.Error(), "64 zero bytes (padding)") {
		t.Errorf("zeros after: %v", err)
	}
	two := append(append([]byte(nil), packed...), packed...)
	if out, err := decompressAll(two, "t.bz2", 0); err != nil || !bytes.Equal(out, append(append([]byte(nil), data...), data...)) {
		t.Errorf("two streams: %v, %d bytes out", err, len(out))
	}
}
