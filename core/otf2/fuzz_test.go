package otf2

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// The fuzz targets replace one file of the ping-pong archive with the
// fuzzer's bytes and read the archive: whatever the bytes, reading must
// not panic, and a failure must be a FormatError that names a file and an
// offset inside it.

const fuzzBase = "pipit/tests/data/ping-pong-otf2"

// seedFiles returns the files of the corpus archives that match pattern
// (a path relative to an archive directory), to seed the fuzzer.
func seedFiles(pattern string) [][]byte {
	var seeds [][]byte
	for _, name := range archives {
		matches, _ := filepath.Glob(filepath.Join(corpus, name, pattern))
		for _, m := range matches {
			if data, err := os.ReadFile(m); err == nil && len(data) < 1<<17 {
				seeds = append(seeds, data)
			}
		}
	}
	return seeds
}

// fuzzArchive copies the base archive into a new directory, with the file
// rel replaced by data, and returns the anchor file.
func fuzzArchive(t *testing.T, rel string, data []byte) string {
	src := filepath.Join(corpus, fuzzBase)
	dir := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(dir, "traces"), 0o755))
	for _, name := range []string{"traces.otf2", "traces.def", "traces/0.def", "traces/1.def", "traces/0.evt", "traces/1.evt"} {
		content, err := os.ReadFile(filepath.Join(src, name))
		must(t, err)
		if name == rel {
			content = data
		}
		must(t, os.WriteFile(filepath.Join(dir, name), content, 0o644))
	}
	return filepath.Join(dir, "traces.otf2")
}

func checkReadError(t *testing.T, anchor string) {
	err := Read(anchor, trace.New(), trace.ReadOptions{})
	if err == nil {
		return
	}
	var fe *errs.FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v (%T) is not a FormatError", err, err)
	}
	st, serr := os.Stat(fe.File)
	if fe.File == "" || serr != nil || fe.Offset < 0 || fe.Offset > st.Size() {
		t.Fatalf("error %v: file %q, offset %d outside the file", err, fe.File, fe.Offset)
	}
}

func fuzzFile(f *testing.F, rel, seeds string) {
	archivePath(f, fuzzBase)
	for _, data := range seedFiles(seeds) {
		f.Add(data)
	}
	f.Add([]byte{})
	f.Add([]byte{chunkHeader, littleEndian})
	f.Fuzz(func(t *testing.T, data []byte) {
		checkReadError(t, fuzzArchive(t, rel, data))
	})
}

func FuzzGlobalDefinitions(f *testing.F) { fuzzFile(f, "traces.def", "traces.def") }
func FuzzLocalDefinitions(f *testing.F)  { fuzzFile(f, "traces/0.def", "traces/*.def") }
func FuzzEvents(f *testing.F)            { fuzzFile(f, "traces/0.evt", "traces/*.evt") }

// FuzzEventDecoding decodes event files in batches of various sizes
// through windows of various sizes: the records must not depend on them,
// and errors must be FormatErrors at an offset inside the file.
func FuzzEventDecoding(f *testing.F) {
	for i, data := range seedFiles("traces/*.evt") {
		f.Add(data, uint8(i), uint16(i*97))
	}
	f.Add([]byte{}, uint8(1), uint16(1))
	f.Fuzz(func(t *testing.T, data []byte, max uint8, window uint16) {
		path := filepath.Join(t.TempDir(), "0.evt")
		must(t, os.WriteFile(path, data, 0o644))
		whole, werr := decodeFile(path, int64(len(data)), 1<<20, 1<<20, 0)
		small, serr := decodeFile(path, int64(len(data)), int(max)+1, 1<<20, int(window)+1)
		for _, err := range []error{werr, serr} {
			var fe *errs.FormatError
			if err != nil && (!errors.As(err, &fe) || fe.File != path || fe.Offset < 0 || fe.Offset > int64(len(data))) {
				t.Fatalf("error %v is not a FormatError inside %s", err, path)
			}
		}
		if (werr == nil) != (serr == nil) || !reflect.DeepEqual(whole, small) {
			t.Fatalf("decoding depends on batch and window sizes: %d records (%v) vs %d records (%v)", len(whole), werr, len(small), serr)
		}
		if werr != nil && werr.Error() != serr.Error() {
			t.Fatalf("different errors: %v vs %v", werr, serr)
		}
	})
}

// decodeFile decodes a whole event file, max records per batch. Metric
// values are attached to their records, whose first field is cleared: it
// depends on the batch.
func decodeFile(path string, size int64, max int, chunk int64, window int) ([]decoded, error) {
	f := &eventFile{path: path, size: size, chunkSize: chunk, maps: &[mapTypes]*idMap{}, tb: timeBase{0, 1e9}, window: window}
	var out []decoded
	var buf []byte
	var b batch
	for {
		buf = f.fill(&b, max, buf)
		for _, r := range b.records {
			d := decoded{r: r}
			if r.kind == evMetric {
				d.values = append([]float64{}, b.values[r.first:r.first+uint32(r.n)]...)
				d.r.first = 0
			}
			out = append(out, d)
		}
		if b.err != nil || b.done {
			return out, b.err
		}
		if len(b.records) == 0 {
			return out, errors.New("a batch without records that is not the last")
		}
	}
}

func TestDecodingDoesNotDependOnWindows(t *testing.T) {
	for _, name := range archives {
		anchor := archivePath(t, name)
		matches, _ := filepath.Glob(filepath.Join(filepath.Dir(anchor), "traces", "*.evt"))
		for _, m := range matches[:min(len(matches), 4)] {
			st, err := os.Stat(m)
			must(t, err)
			whole, err := decodeFile(m, st.Size(), 1<<20, 1<<20, 0)
			must(t, err)
			for _, c := range []struct{ max, window int }{{1, 1}, {3, 7}, {64, 100}} {
				small, err := decodeFile(m, st.Size(), c.max, 1<<20, c.window)
				must(t, err)
				if !reflect.DeepEqual(whole, small) {
					t.Errorf("%s: batches of %d through %d-byte windows give other records", m, c.max, c.window)
				}
			}
		}
	}
}
