package paje

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// mapSmallFiles maps every file that is not empty, and gives pages back
// every page, for the rest of the test.
func mapSmallFiles(tb testing.TB) {
	oldMin, oldDrop := mapMin, dropEvery
	mapMin, dropEvery = 1, os.Getpagesize()
	tb.Cleanup(func() { mapMin, dropEvery = oldMin, oldDrop })
}

// A file of mapMin bytes or more is mapped (where the system maps files),
// a smaller one read: both give what the line-by-line read gives, with
// progress reported up to the file's size.
func TestMappedFromItsSize(t *testing.T) {
	in := generate(genConfig{processes: 8, events: 60_000, seed: 7})
	if int64(len(in)) < mapMin {
		t.Fatalf("the generated trace is %d bytes, under mapMin", len(in))
	}
	path := filepath.Join(t.TempDir(), "big.trace")
	if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	data, unmap, ok := ingest.MapPlain(f, mapMin)
	f.Close()
	if !ok && runtime.GOOS == "linux" {
		t.Fatal("a plain file of 1 MiB or more is not mapped")
	}
	if ok {
		unmap()
	}
	if ok && len(data) != len(in) {
		t.Fatalf("mapped %d bytes of %d", len(data), len(in))
	}
	want := readWith([][2]string{{path, in}}, Options{}, 0, nil)
	var sink logSink
	var last [2]int64
	opt := trace.ReadOptions{Progress: func(done, total int64) { last = [2]int64{done, total} }}
	err = readFiles([]string{path}, &sink, Options{ReadOptions: opt})
	got := outcome{calls: sink.calls}
	if err != nil {
		got.err = describeError(err)
	}
	sameOutcome(t, "mapped", got, want)
	if last != [2]int64{int64(len(in)), int64(len(in))} {
		t.Errorf("last progress report %v, want the file's size twice", last)
	}
}

// A mapped file cut short while it is read (here, before: its pages past
// the new end fault wherever the cutter, a tokenizer or the decoder
// reads them) stops the read with ingest.ErrFileShrank naming the file,
// and leaves no goroutine running; never a crash.
func TestMappedFileShrank(t *testing.T) {
	in := generate(genConfig{processes: 8, events: 60_000, seed: 8})
	path := filepath.Join(t.TempDir(), "shrinking.trace")
	before := runtime.NumGoroutine()
	page := os.Getpagesize()
	for _, keep := range []int{0, page / 2, 3 * page, 100_000, len(in) / 2, len(in) / 2 & -page, len(in) - 10} {
		for _, chunk := range []int{4096, 64 << 10, defaultChunk} {
			what := fmt.Sprintf("%d of %d bytes kept, chunks of %d", keep, len(in), chunk)
			f, data, unmap := mappedThenCut(t, path, in, keep)
			d := newDecoder(&trace.Counter{}, Options{}, 0)
			d.chunkSize = chunk
			err := d.decodeMapped(f, data, path)
			unmap()
			f.Close()
			var fe *errs.FormatError
			if !errors.Is(err, ingest.ErrFileShrank) || !errors.As(err, &fe) || fe.File != path || !strings.Contains(err.Error(), path) {
				t.Fatalf("%s: %v, want %v naming the file", what, err, ingest.ErrFileShrank)
			}
		}
	}
	for i := 0; runtime.NumGoroutine() > before; i++ {
		if i == 100 {
			t.Fatalf("%d goroutines left running", runtime.NumGoroutine()-before)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// mappedThenCut writes in to path, opens and maps it, then cuts the file
// to its first keep bytes: the mapping's pages past its new end fault.
func mappedThenCut(t *testing.T, path, in string, keep int) (f *os.File, data []byte, unmap func()) {
	t.Helper()
	if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	data, unmap, ok := ingest.MapPlain(f, mapMin)
	if !ok {
		f.Close()
		t.Skip("files are not mapped on this system")
	}
	if err := os.Truncate(path, int64(keep)); err != nil {
		t.Fatal(err)
	}
	return f, data, unmap
}

// shadowSource cuts a mapped file's chunks where a copy of its content
// is cut, never reading the mapping itself: the faults of a file cut
// short are then met by the tokenizers and the decoder, not the cutter.
type shadowSource struct {
	mappedSource // of the copy
	mapping      []byte
}

func (s *shadowSource) next(c *chunk, size int) {
	s.mappedSource.next(c, size)
	from := c.end - len(c.data)
	c.data = s.mapping[from:c.end:c.end]
}

func (s *shadowSource) consumed(*chunk) {} // the copy is no mapping

// A mapped file cut short faults on the tokenizers' goroutines and the
// decoder's, which stop the read with ingest.ErrFileShrank naming the
// file, after the lines before the fault: those are read as they are
// from a whole file.
func TestMappedFileShrankUnderTheTokenizers(t *testing.T) {
	in := generate(genConfig{processes: 8, events: 60_000, seed: 9})
	path := filepath.Join(t.TempDir(), "shrinking.trace")
	page := os.Getpagesize()
	for _, keep := range []int{0, 3 * page, len(in) / 2 & -page} {
		for _, chunk := range []int{4096, defaultChunk} {
			what := fmt.Sprintf("%d of %d bytes kept, chunks of %d", keep, len(in), chunk)
			f, data, unmap := mappedThenCut(t, path, in, keep)
			var whole, sink trace.Counter
			before := in[:strings.LastIndexByte(in[:keep], '\n')+1]
			if err := newDecoder(&whole, Options{}, 0).decode(strings.NewReader(before), path); err != nil {
				t.Fatal(err)
			}
			d := newDecoder(&sink, Options{}, 0)
			d.chunkSize = chunk
			src := &shadowSource{mappedSource: mappedSource{data: []byte(in)}, mapping: data}
			err := d.decodeMappedFrom(f, data, path, src, &src.read)
			unmap()
			f.Close()
			if !errors.Is(err, ingest.ErrFileShrank) || !strings.Contains(err.Error(), path) {
				t.Fatalf("%s: %v, want %v naming the file", what, err, ingest.ErrFileShrank)
			}
			// The decoder stops at the line the fault cuts: the states it
			// delivered are those of the lines before.
			if sink.States != whole.States {
				t.Errorf("%s: %d states before the fault, %d in the lines before it", what, sink.States, whole.States)
			}
		}
	}
}

// A mapped line without end past maxLine is refused as a read one is,
// after the lines before it, naming the file, the line and the offset
// where it starts (a sparse file: the line is zeros that take no disk).
func TestMappedLongLineRefused(t *testing.T) {
	head := miniHeader + "3 1 p1 S a\n"
	path := filepath.Join(t.TempDir(), "zeros.trace")
	if err := os.WriteFile(path, []byte(head), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, int64(len(head))+maxLine+1); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, unmap, ok := ingest.MapPlain(f, mapMin)
	if !ok {
		t.Skip("files are not mapped on this system")
	}
	defer unmap()
	d := newDecoder(trace.New(), Options{}, 0)
	err = d.decodeMapped(f, data, "zeros.trace")
	var fe *errs.FormatError
	lines := strings.Count(head, "\n")
	if !errors.As(err, &fe) || fe.File != "zeros.trace" || fe.Err != errLongLine || fe.Line != lines || fe.Offset != int64(len(head)) {
		t.Fatalf("%v, want a FormatError of zeros.trace line %d offset %d: %v", err, lines, len(head), errLongLine)
	}
}
