package chrome

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// withMapping maps the files of the test from their first byte, moving
// through them window bytes at a time and giving pages back every drop
// bytes, until the test ends.
func withMapping(t testing.TB, window, drop int) {
	oldMin, oldWindow, oldDrop := mapMin, mappedWindow, dropEvery
	mapMin, mappedWindow, dropEvery = 1, window, drop
	t.Cleanup(func() { mapMin, mappedWindow, dropEvery = oldMin, oldWindow, oldDrop })
}

// mapText writes in to a file of the test's and maps it.
func mapText(t testing.TB, in []byte) (data []byte, path string) {
	return mapTextAt(t, filepath.Join(t.TempDir(), "in.json"), in)
}

// mapTextAt writes in to the file at path and maps it, until the test
// ends.
func mapTextAt(t testing.TB, path string, in []byte) (data []byte, _ string) {
	if err := os.WriteFile(path, in, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, unmap, ok := ingest.MapFile(f, int64(len(in)))
	if !ok {
		t.Skip("files are not mapped on this system")
	}
	t.Cleanup(unmap)
	return data, path
}

// readMappedWith reads in, mapped, as readWith reads it from a stream.
func readMappedWith(t testing.TB, in []byte, keepArgs bool, size, n int) readResult {
	data, _ := mapText(t, in)
	return readMapping(data, keepArgs, size, n)
}

// readMapping reads data, a mapped file, as readWith reads it from a
// stream.
func readMapping(data []byte, keepArgs bool, size, n int) readResult {
	oldSize, oldN := partSize, parsers
	partSize, parsers = size, n
	defer func() { partSize, parsers = oldSize, oldN }()
	tr := trace.New()
	tr.KeepArgs = keepArgs
	var notes trace.Notes
	err := decodeMapped(data, "in.json", tr, trace.ReadOptions{Notes: &notes})
	return readResult{tr, notes.Messages(), err}
}

// TestMappedEqualsRead checks that a mapped file reads as the same text
// read from a stream, on one core and in parts, with windows and page
// drops every few bytes: the trace, its notes and its errors, on the
// generated traces of TestPartsEqualSingle and on the corpus.
func TestMappedEqualsRead(t *testing.T) {
	withMapping(t, 1000, 4096)
	full := nastyTrace(3000, 1)
	start := bytes.Index(full, []byte("[")) + 1
	events := bytes.TrimSpace(full[start:bytes.LastIndexByte(full, ']')])
	mid := bytes.Index(full[len(full)/2:], []byte(`"ts"`)) + len(full)/2
	inputs := map[string][]byte{
		"nasty":             full,
		"cut in an event":   full[:len(full)*2/3],
		"damaged":           append(append(bytes.Clone(full[:mid]), `"ts": 1x2, `...), full[mid+4:]...),
		"array form, open":  append(append([]byte("["), events...), ",\n"...),
		"array form, comma": append(append([]byte("["), events...), ",]"...),
		"cpu profile":       []byte(cpuProfileTrace),
		"not json":          []byte("{\"traceEvents\": [{\"ph\": \"X\"}, x"),
	}
	for _, f := range corpusFiles(t) {
		in, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(in))
			if err != nil {
				t.Fatal(err)
			}
			if in, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		}
		if len(in) < 4<<20 {
			inputs[filepath.Base(f)] = in
		}
	}
	before, beforeParts := mappedReads.Load(), partsRead.Load()
	reads := 0
	for name, in := range inputs {
		for _, keep := range []bool{false, true} {
			want := readWith(in, keep, 2048, 1)
			for _, n := range []int{1, 2} {
				reads++
				if d := sameRead(readMappedWith(t, in, keep, 2048, n), want); d != "" {
					t.Errorf("%s (args %v, %d parsers): %s", name, keep, n, d)
				}
			}
		}
	}
	if got := mappedReads.Load() - before; got != int64(reads) {
		t.Errorf("%d of %d reads were of a mapping", got, reads)
	}
	if partsRead.Load() == beforeParts {
		t.Error("no mapping was read in parts")
	}
}

// TestMappedShrunk checks that a mapped file that another program
// truncates while it is read (its pages past the new end can no longer
// be read: a fault) stops the read with an error naming the file, on one
// core and in parts, instead of crashing the program.
func TestMappedShrunk(t *testing.T) {
	withMapping(t, 1000, 4096)
	in := nastyTrace(3000, 4)
	for _, n := range []int{1, 2} {
		for _, keep := range []int{0, 4096, len(in) / 3} {
			withParts(t, 2048, n)
			data, path := mapText(t, in)
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := os.Truncate(path, int64(keep)); err != nil {
				t.Fatal(err)
			}
			err = readMapped(f, data, "in.json", trace.New(), trace.ReadOptions{})
			if !errors.Is(err, ingest.ErrFileShrank) || !strings.HasPrefix(fmt.Sprint(err), "in.json") {
				t.Errorf("%d parsers, file cut to %d bytes: %v", n, keep, err)
			}
		}
	}
	// Cut while it is read: at the first progress report.
	big := nastyTrace(60000, 5)
	for _, n := range []int{1, 2} {
		withParts(t, 64<<10, n)
		data, path := mapText(t, big)
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cut := false
		err = readMapped(f, data, "in.json", trace.New(), trace.ReadOptions{Progress: func(done, total int64) {
			if !cut {
				cut = true
				if err := os.Truncate(path, done/2); err != nil {
					t.Error(err)
				}
			}
		}})
		if !cut || !errors.Is(err, ingest.ErrFileShrank) {
			t.Errorf("%d parsers, file cut while read (%v): %v", n, cut, err)
		}
	}
}

// TestMappedProgress checks progress reports and cancellation on a
// mapped file: reports in order up to its size, a read canceled at its
// first report.
func TestMappedProgress(t *testing.T) {
	withMapping(t, 64<<10, 64<<10)
	text, n := tenMegabytes()
	_, path := mapText(t, []byte(text))
	// The cutter counts the input ahead of the parser, by the parts in
	// flight (parsers + 2, and the one being cut) and a window at most: a
	// report comes at the first part's end after progressEvery bytes more
	// than the last counted, and the last report at the end. Small parts
	// keep that lead short enough for three reports on any machine.
	const size = 64 << 10
	if need := 2*progressEvery + (2+3)*(size+partSlack) + 64<<10 + 3*(size+partSlack); len(text) < need {
		t.Fatalf("%d bytes, want %d for three progress reports", len(text), need)
	}
	for _, p := range []int{1, 2} {
		withParts(t, size, p)
		before, beforeParts := mappedReads.Load(), partsRead.Load()
		var last int64
		reports := 0
		err := read(path, trace.New(), trace.ReadOptions{Progress: func(done, total int64) {
			if total != int64(len(text)) || done < last {
				t.Errorf("progress %d of %d after %d", done, total, last)
			}
			last = done
			reports++
		}})
		if err != nil || last != int64(len(text)) || reports < 3 {
			t.Errorf("%d parsers: err %v, last progress %d of %d, %d reports", p, err, last, len(text), reports)
		}
		partial, _, reports := readertest.Cancel(t, n, func(sink trace.Sink, opt trace.ReadOptions) error {
			return read(path, sink, opt)
		})
		if reports != 1 || partial.States.Len() != 0 {
			t.Errorf("%d parsers: canceled read went on: %d reports, %d states", p, reports, partial.States.Len())
		}
		if got := mappedReads.Load() - before; got != 3 {
			t.Errorf("%d parsers: %d of 3 reads were of a mapping", p, got)
		}
		if p > 1 && partsRead.Load() == beforeParts {
			t.Errorf("%d parsers: not read in parts", p)
		}
	}
}

// FuzzMapped checks that any input reads the same mapped, moving through
// it by windows of any size, on one core and in parts, as from a stream:
// the same trace, notes and error.
func FuzzMapped(f *testing.F) {
	readertest.BoundMinimization(f)
	f.Add(nastyTrace(20, 1), uint8(40), uint8(7))
	f.Add([]byte(cpuProfileTrace), uint8(150), uint8(255))
	f.Add([]byte(`[{"ph":"X","pid":1,"tid":1,"ts":1,"dur":2},{"ph":"B","pid":1,"tid":1,"ts":1}`), uint8(3), uint8(0))
	// One file in memory, written and mapped once per input: a directory
	// and a file on disk for each of the four mapped reads took six times
	// the reads' own time.
	path := filepath.Join(readertest.FuzzDir(f), "in.json")
	f.Fuzz(func(t *testing.T, data []byte, size, window uint8) {
		if len(data) == 0 || len(data) > maxFuzzInput {
			return
		}
		withMapping(t, int(window)+1, 4096)
		mapped, _ := mapTextAt(t, path, data)
		for _, keep := range []bool{false, true} {
			want := readWith(data, keep, int(size)+1, 1)
			for _, n := range []int{1, 2} {
				if d := sameRead(readMapping(mapped, keep, int(size)+1, n), want); d != "" {
					t.Fatalf("args %v, %d parsers, parts of %d bytes, windows of %d: %s", keep, n, int(size)+1, int(window)+1, d)
				}
			}
		}
	})
}
