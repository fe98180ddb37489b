package readertest

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
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
// gzip, bzip2 and zstd; that a compressed file cut in the middle is a
// FormatError naming it; and that a decompression bomb (50 MB of zeros,
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

			cut := write("cut-"+name+ext[kind], packed[:len(packed)/2])
			_, err = ReadFormat(t, f, cut, nil)
			var fe *errs.FormatError
			if !errors.As(err, &fe) || fe.File != cut || !errors.Is(err, ingest.ErrTruncated) {
				t.Errorf("%s cut in the middle: %v (%T), want a FormatError naming %s: %v", kind, err, err, cut, ingest.ErrTruncated)
			}

			bomb := write("bomb-"+name+ext[kind], bomb(t, kind))
			_, err = ReadFormat(t, f, bomb, ingest.Values{"max_decompressed": 1 << 20})
			if !errors.As(err, &fe) || fe.File != bomb || !strings.Contains(err.Error(),
				kind+" data expands past 1048576 bytes, the limit (a decompression bomb?); raise max_decompressed to read it") {
				t.Errorf("%s bomb: %v", kind, err)
			}
		})
	}
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
