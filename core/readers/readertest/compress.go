package readertest

import (
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Compressions are the compressions readers of text formats undo, as
// Compress names them.
var Compressions = []string{"gzip", "bzip2", "zstd"}

// Compress returns data compressed with gzip, bzip2 or zstd. Go has no
// bzip2 writer: the bzip2 command writes it, and the test is skipped
// without it.
func Compress(t testing.TB, data []byte, kind string) []byte {
	t.Helper()
	var b bytes.Buffer
	switch kind {
	case "gzip":
		w := gzip.NewWriter(&b)
		w.Write(data)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	case "zstd":
		w, err := zstd.NewWriter(&b)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	case "bzip2":
		if _, err := exec.LookPath("bzip2"); err != nil {
			t.Skip("the bzip2 command is not installed: Go cannot write bzip2")
		}
		cmd := exec.Command("bzip2", "-c")
		cmd.Stdin = bytes.NewReader(data)
		cmd.Stdout = &b
		if err := cmd.Run(); err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatalf("unknown compression %q", kind)
	}
	return b.Bytes()
}

// CheckCompressed checks that a reader of a text format reads plain (the
// content of a file named name) identically when it is compressed with
// gzip, bzip2 and zstd; that a compressed file cut in the middle reads as
// the plain file cut where its decompression stops, and is noted
// incomplete (checkCut); and that a decompression bomb (50 MB of zeros,
// compressed) stops at a limit of 1 MB, set through the format's option
// max_decompressed.
func CheckCompressed(t *testing.T, f ingest.Format, name string, plain []byte) {
	t.Helper()
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	want, err := ReadFormat(t, f, write(name, plain), nil)
	if err != nil {
		t.Fatalf("plain %s: %v", name, err)
	}
	ext := map[string]string{"gzip": ".gz", "bzip2": ".bz2", "zstd": ".zst"}
	for _, kind := range Compressions {
		t.Run(kind, func(t *testing.T) {
			packed := Compress(t, plain, kind)
			got, err := ReadFormat(t, f, write(name+ext[kind], packed), nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := Difference(got, want); diff != "" {
				t.Errorf("%s compressed with %s reads differently: %s", name, kind, diff)
			}

			checkCut(t, f, dir, name+ext[kind], kind, packed[:len(packed)/2])
			checkTrailing(t, f, dir, name+ext[kind], kind, plain, want)

			var fe *errs.FormatError

			bomb := write("bomb-"+name+ext[kind], bomb(t, kind))
			_, err = ReadFormat(t, f, bomb, ingest.Values{"max_decompressed": 1 << 20})
			if !errors.As(err, &fe) || fe.File != bomb || !strings.Contains(err.Error(),
				kind+" data expands past 1048576 bytes, the limit (a decompression bomb?); raise max_decompressed to read it") {
				t.Errorf("%s bomb: %v", kind, err)
			}
		})
	}
}

// CheckCompressedCut checks, for a reader of a format that takes no
// max_decompressed option, what CheckCompressed checks of a cut: that
// plain (the content of a file named name) compressed with each of
// Compressions and cut in the middle reads as the plain file cut where
// the decompression stops, noted incomplete.
func CheckCompressedCut(t *testing.T, f ingest.Format, name string, plain []byte) {
	t.Helper()
	ext := map[string]string{"gzip": ".gz", "bzip2": ".bz2", "zstd": ".zst"}
	for _, kind := range Compressions {
		t.Run(kind, func(t *testing.T) {
			packed := Compress(t, plain, kind)
			dir := t.TempDir()
			checkCut(t, f, dir, name+ext[kind], kind, packed[:len(packed)/2])
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, plain, 0o600); err != nil {
				t.Fatal(err)
			}
			want, err := ReadFormat(t, f, p, nil)
			if err != nil {
				t.Fatalf("plain %s: %v", name, err)
			}
			checkTrailing(t, f, dir, name+ext[kind], kind, plain, want)
		})
	}
}

// CheckTrailing checks checkTrailing for the readers that leave the
// cuts of compressed data to their own checks: plain, the content of a
// file named name, compressed with gzip, bzip2 and zstd.
func CheckTrailing(t *testing.T, f ingest.Format, name string, plain []byte) {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, plain, 0o600); err != nil {
		t.Fatal(err)
	}
	want, err := ReadFormat(t, f, p, nil)
	if err != nil {
		t.Fatalf("plain %s: %v", name, err)
	}
	for kind, ext := range map[string]string{"gzip": ".gz", "bzip2": ".bz2", "zstd": ".zst"} {
		// A directory each: some readers read the files of a run together.
		t.Run(kind, func(t *testing.T) { checkTrailing(t, f, t.TempDir(), name+ext, kind, plain, want) })
	}
}

// checkTrailing checks that plain compressed with kind, as two streams
// end to end (gzip members, zstd frames), reads as want, the trace of
// plain, without a note; and that followed by 1, 9, 10 or 1000 bytes that
// are not compressed data it reads as want too, complete, with one
// warning naming the file and the byte where those bytes start, while a
// strict read refuses it with a FormatError saying so. A bzip2 stream
// followed by one byte is a stream cut short (nothing tells them apart):
// bzip2 is checked with 2 bytes instead of 1.
func checkTrailing(t *testing.T, f ingest.Format, dir, name, kind string, plain []byte, want *trace.Trace) {
	t.Helper()
	p := filepath.Join(dir, "plain-"+name)
	if err := os.WriteFile(p, plain, 0o600); err != nil {
		t.Fatal(err)
	}
	_, wantNotes, err := ReadFormatNotes(t, f, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	half := len(plain) / 2
	two := append(Compress(t, plain[:half], kind), Compress(t, plain[half:], kind)...)
	path := filepath.Join(dir, "two-"+name)
	if err := os.WriteFile(path, two, 0o600); err != nil {
		t.Fatal(err)
	}
	got, notes, err := ReadFormatNotes(t, f, path, nil)
	if err != nil {
		t.Fatalf("%s in two streams: %v", kind, err)
	}
	if diff := Difference(got, want); diff != "" {
		t.Errorf("%s in two streams reads differently: %s", kind, diff)
	}
	if fmt.Sprint(notes.Messages()) != fmt.Sprint(wantNotes.Messages()) {
		t.Errorf("%s in two streams: notes %q, want %q", kind, notes.Messages(), wantNotes.Messages())
	}
	packed := Compress(t, plain, kind)
	counts := []int{1, 9, 10, 1000}
	if kind == "bzip2" {
		counts[0] = 2
	}
	for _, n := range counts {
		path := filepath.Join(dir, fmt.Sprintf("trailing%d-%s", n, name))
		junk := bytes.Repeat([]byte("junk!"), n/5+1)[:n]
		if err := os.WriteFile(path, append(append([]byte(nil), packed...), junk...), 0o600); err != nil {
			t.Fatal(err)
		}
		got, notes, err := ReadFormatNotes(t, f, path, nil)
		if err != nil {
			t.Fatalf("%s followed by %d bytes: %v", kind, n, err)
		}
		if diff := Difference(got, want); diff != "" {
			t.Errorf("%s followed by %d bytes reads differently: %s", kind, n, diff)
		}
		warn := fmt.Sprintf("%s: the %s data ends at byte %d, followed by %d bytes that are not %s data (trailing garbage)", path, kind, len(packed), n, kind)
		msgs := notes.Messages()
		if len(notes.IncompleteReasons()) != 0 || !slices.ContainsFunc(msgs, func(m string) bool { return strings.HasPrefix(m, warn) }) {
			t.Errorf("%s followed by %d bytes: notes %q, want a warning starting %q and the trace complete", kind, n, msgs, warn)
		}
		err = readStrict(t, f, path)
		var fe *errs.FormatError
		cause := fmt.Sprintf("the %s data ends at byte %d, followed by %d bytes that are not %s data", kind, len(packed), n, kind)
		if !errors.As(err, &fe) || fe.File != path || !strings.Contains(err.Error(), cause) {
			t.Errorf("%s followed by %d bytes, strict: %v, want a FormatError naming the file and saying %q", kind, n, err, cause)
		}
	}
}

// checkCut checks that compressed data cut short reads as the plain file
// cut where its decompression stops, and is noted incomplete, naming the
// file and the byte where the compressed data ends. When that plain file
// is refused (a cut before the first whole record), the cut one is
// refused too, naming its file.
func checkCut(t *testing.T, f ingest.Format, dir, name, kind string, cut []byte) {
	t.Helper()
	prefix := filepath.Join(dir, "prefix-"+strings.TrimSuffix(name, filepath.Ext(name)))
	if err := os.WriteFile(prefix, Decompressible(t, cut, kind), 0o600); err != nil {
		t.Fatal(err)
	}
	want, werr := ReadFormat(t, f, prefix, nil)
	path := filepath.Join(dir, "cut-"+name)
	if err := os.WriteFile(path, cut, 0o600); err != nil {
		t.Fatal(err)
	}
	got, notes, err := ReadFormatNotes(t, f, path, nil)
	if werr != nil {
		var fe *errs.FormatError
		if !errors.As(err, &fe) || fe.File != path {
			t.Errorf("%s cut in the middle: %v (%T), want a FormatError naming %s, as the plain cut is refused (%v)", kind, err, err, path, werr)
		}
		return
	}
	if err != nil {
		t.Fatalf("%s cut in the middle: %v, want it read as the plain cut", kind, err)
	}
	if diff := Difference(got, want); diff != "" {
		t.Errorf("%s cut in the middle reads otherwise than the plain cut: %s", kind, diff)
	}
	where := fmt.Sprintf("%s: the compressed data ends at byte %d,", path, len(cut))
	if reasons := notes.IncompleteReasons(); !slices.ContainsFunc(reasons, func(r string) bool { return strings.HasPrefix(r, where) }) {
		t.Errorf("%s cut in the middle: incomplete %q, want a reason starting %q", kind, reasons, where)
	}
}

// Decompressible returns what decompresses of data, compressed with
// kind and cut short: the output up to the cut.
func Decompressible(t testing.TB, data []byte, kind string) []byte {
	t.Helper()
	var r io.Reader
	var err error
	switch kind {
	case "gzip":
		r, err = gzip.NewReader(bytes.NewReader(data))
	case "bzip2":
		r = bzip2.NewReader(bytes.NewReader(data))
	case "zstd":
		var z *zstd.Decoder
		z, err = zstd.NewReader(bytes.NewReader(data), zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
		if err == nil {
			defer z.Close()
		}
		r = z
	default:
		t.Fatalf("unknown compression %q", kind)
	}
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(r)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("%s data cut short: %v, want %v", kind, err, io.ErrUnexpectedEOF)
	}
	return out
}

// bombs holds the compressed bombs, by compression: compressing 50 MB
// takes a while.
var bombs sync.Map

// bomb returns 50 MB of zeros, compressed.
func bomb(t testing.TB, kind string) []byte {
	if b, ok := bombs.Load(kind); ok {
		return b.([]byte)
	}
	b := Compress(t, make([]byte, 50<<20), kind)
	bombs.Store(kind, b)
	return b
}

// Difference names the first table (Types, Containers, States...) where
// two traces differ, and the first row that differs; "" if they are
// identical. NaNs (the size of links whose format does not tell) are
// equal.
func Difference(got, want *trace.Trace) string {
	g, w := reflect.ValueOf(got).Elem(), reflect.ValueOf(want).Elem()
	for i := range g.NumField() {
		name := g.Type().Field(i).Name
		a, b := g.Field(i), w.Field(i)
		if name == "States" { // a column in blocks: compared state by state
			a, b = reflect.ValueOf(got.States.Slice()), reflect.ValueOf(want.States.Slice())
		}
		if a.Kind() != reflect.Slice {
			if fmt.Sprint(a.Interface()) != fmt.Sprint(b.Interface()) {
				return fmt.Sprintf("%s: %v, want %v", name, a.Interface(), b.Interface())
			}
			continue
		}
		for j := range min(a.Len(), b.Len()) {
			// Printing makes NaN equal to NaN, which DeepEqual does not.
			if x, y := fmt.Sprint(a.Index(j).Interface()), fmt.Sprint(b.Index(j).Interface()); x != y {
				return fmt.Sprintf("%s[%d]: %s, want %s", name, j, x, y)
			}
		}
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: %d rows, want %d", name, a.Len(), b.Len())
		}
	}
	return ""
}

// readStrict reads the file at path as format f in a strict read, as
// the door (package formats) makes it, and returns its error.
func readStrict(t testing.TB, f ingest.Format, path string) error {
	t.Helper()
	v, err := f.Check(nil)
	if err != nil {
		t.Fatal(err)
	}
	src, err := f.Open(path, v)
	if err != nil {
		return err
	}
	return ingest.Strict(src, path, true).Read(trace.New(), trace.ReadOptions{})
}
