package gotrace

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// small is a trace of testdata/gen/fib.go computing fib(4), recorded by
// Go 1.26: 9 fib goroutines.
const small = "testdata/fib4.trace"

func readBytes(data []byte) (*trace.Trace, error) {
	tr := trace.New("mem")
	err := decode(bytes.NewReader(data), "mem", int64(len(data)), tr, trace.ReadOptions{})
	return tr, err
}

// wantFormatError fails unless err is a FormatError whose text holds
// every part.
func wantFormatError(t *testing.T, what string, err error, parts ...string) {
	t.Helper()
	var fe *errs.FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("%s: %v (%T), want a FormatError", what, err, err)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %q does not say %q", what, err, p)
		}
	}
}

func TestSniff(t *testing.T) {
	for head, want := range map[string]bool{
		"go 1.26 trace\x00\x00\x00\x01":       true,
		"go 1.22 trace\x00\x00\x00":           true,
		"go 1.11 trace\x00\x00\x00":           true,
		"go 1.5 trace\x00\x00\x00\x00":        true, // refused later, with a reason
		"go 1.26 trace\x00\x00":               false,
		"go 1.26 trace":                       false,
		"Trace Go1.22\nEventBatch gen=1":      false,
		"%EventDef PajeDefineContainerType 0": false,
		"":                                    false,
	} {
		if got := sniff([]byte(head)); got != want {
			t.Errorf("Sniff(%q) = %v, want %v", head, got, want)
		}
	}
	if Format.Sniff == nil || Format.Name != "gotrace" || len(Format.Extensions) != 1 {
		t.Errorf("Format = %+v", Format)
	}
}

func TestRefusals(t *testing.T) {
	_, err := readBytes([]byte("hello, world\n"))
	wantFormatError(t, "text", err, "mem", "not a Go execution trace")
	_, err = readBytes([]byte("go 1.10 trace\x00\x00\x00" + strings.Repeat("\x00", 64)))
	wantFormatError(t, "Go 1.10", err, "Go 1.10 execution trace", "Go 1.11 or later")
	_, err = readBytes([]byte("go 1.5 trace\x00\x00\x00\x00" + strings.Repeat("\x00", 64)))
	wantFormatError(t, "Go 1.5", err, "Go 1.5 execution trace")
	_, err = readBytes([]byte("go 1.99 trace\x00\x00\x00"))
	wantFormatError(t, "Go 1.99", err, "unsupported", "1.99")
	_, err = readBytes([]byte("Trace Go1.22\nEventBatch gen=1 m=1 time=2 size=5\n"))
	wantFormatError(t, "text form", err, "text form")
	// The runtime's test traces in text form, as the corpus keeps them.
	if files, _ := filepath.Glob(filepath.Join(corpus, "v2-text", "*.test")); len(files) > 0 {
		data, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		_, err = readBytes(data)
		wantFormatError(t, files[0], err, "text form")
	}
	// Through the door too: Open checks the header.
	dir := t.TempDir()
	old := filepath.Join(dir, "old.trace")
	if err := os.WriteFile(old, []byte("go 1.9 trace\x00\x00\x00\x00xyz"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Format.Open(old, nil)
	wantFormatError(t, "Open of a Go 1.9 trace", err, old, "Go 1.9")
	if _, err := ReadFile(dir); err == nil {
		t.Error("reading a directory: no error")
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err == nil {
		_, err := ReadFile(fifo)
		wantFormatError(t, "FIFO", err, "not a regular file")
	}
}

// TestTruncatedAndCorrupt cuts the small trace at every length and
// overwrites each of its bytes (with 0, 0xff or its high bit flipped): every read ends with a FormatError or
// succeeds, and never panics.
func TestTruncatedAndCorrupt(t *testing.T) {
	data, err := os.ReadFile(small)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := readBytes(data); err != nil {
		t.Fatal(err)
	}
	save := recoverPanics
	recoverPanics = false // a panic is a bug of the reader or of the parser: see it
	defer func() { recoverPanics = save }()
	check := func(what string, b []byte) error {
		t.Helper()
		_, err := readBytes(b)
		var fe *errs.FormatError
		if err != nil && !errors.As(err, &fe) {
			t.Fatalf("%s: %v (%T), want a FormatError", what, err, err)
		}
		return err
	}
	failed := 0
	for n := headerLen; n < len(data); n++ {
		if check("cut", data[:n]) != nil {
			failed++
		}
	}
	// Cut within its one generation, the trace is refused.
	if cut := len(data) - headerLen; failed < cut*9/10 {
		t.Errorf("%d of %d cut traces refused", failed, cut)
	}
	wantFormatError(t, "half", check("half", data[:len(data)/2]), "mem", "malformed Go execution trace")
	b := bytes.Clone(data)
	for i := headerLen; i < len(b); i++ {
		old := b[i]
		b[i] = []byte{0x00, 0xff, old ^ 0x80}[i%3]
		check("corrupt", b)
		b[i] = old
	}
}

func TestEmptyTrace(t *testing.T) {
	tr, err := readBytes([]byte("go 1.26 trace\x00\x00\x00"))
	if err != nil {
		t.Fatal(err)
	}
	if tr.States.Len() != 0 || tr.End != 0 {
		t.Errorf("empty trace: %d states, end %v", tr.States.Len(), tr.End)
	}
}

// TestCompressed reads the small trace gzip-compressed: the same trace.
func TestCompressed(t *testing.T) {
	data, err := os.ReadFile(small)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "fib4.trace.gz")
	if err := os.WriteFile(path, readertest.Compress(t, data, "gzip"), 0o644); err != nil {
		t.Fatal(err)
	}
	head, err := ingest.Head(path, 64)
	if err != nil || !sniff(head) {
		t.Fatalf("the compressed trace's head is not sniffed: %q, %v", head, err)
	}
	plain, err := ReadFile(small)
	if err != nil {
		t.Fatal(err)
	}
	gz, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	compareFacts(t, modelFacts(gz), modelFacts(plain))
}

func TestCancel(t *testing.T) {
	full, err := ReadFile(small)
	if err != nil {
		t.Fatal(err)
	}
	readertest.Cancel(t, full.States.Len(), func(sink trace.Sink, opt trace.ReadOptions) error {
		return read(small, sink, opt)
	})
}

// TestCompressedCut: a compressed trace cut in the middle reads as the
// plain trace cut where its decompression stops (its whole generations),
// noted incomplete at the byte of the cut.
func TestCompressedCut(t *testing.T) {
	data, err := os.ReadFile("testdata/threegen.trace")
	if err != nil {
		t.Fatal(err)
	}
	readertest.CheckCompressedCut(t, Format, "threegen.trace", data)
}
