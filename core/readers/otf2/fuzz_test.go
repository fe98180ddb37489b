package otf2

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// The fuzz targets replace one file of a small synthetic archive with
// the fuzzer's bytes and read the archive: whatever the bytes, reading
// must not panic, a failure must be a FormatError that names a file and
// an offset inside it, and what is delivered keeps the Sink contract.
//
// The archive is written once per fuzzing process; an execution rewrites
// one file. Inputs are kept small (the fuzzer minimizes every new input
// at one execution per byte removed), and longer ones are skipped.
const maxFuzzInput = 16 << 10

// fuzzArchiveFiles returns the files of the fuzzed archive, by path
// relative to its directory: two processes exchanging a message inside
// nested regions, metric samples, and local definitions (a mapping table
// and clock offsets) for location 0.
func fuzzArchiveFiles(t testing.TB) map[string][]byte {
	c1, c2, c3 := &enc{}, &enc{}, &enc{}
	evTime(c1, 1000)
	evRegion(c1, evEnter, 1) // local 1 is main
	evMetric2(c1, 0, 10, 1.5)
	evTime(c2, 1010)
	evRegion(c2, evEnter, 0) // local 0 is work
	evP2P(c2, evMpiIsend, 1, commWorld, 5, 100)
	evTime(c3, 1020)
	evRegion(c3, evLeave, 0)
	evMetric2(c3, 1, 7, 0.5)
	evTime(c3, 1030)
	evRegion(c3, evLeave, 1)
	d1, d2, d3 := &enc{}, &enc{}, &enc{}
	evTime(d1, 1005)
	evRegion(d1, evEnter, regionMain)
	evTime(d2, 1025)
	evP2P(d2, evMpiIrecv, 0, commWorld, 5, 100)
	evP2P(d3, evMpiSend, 0, commSelf, 1, 16)
	evTime(d3, 1040)
	evRegion(d3, evLeave, regionMain)
	local := &enc{}
	local.rec(defMappingTable, false, func(r *enc) { r.u8(mapRegion).u64(2).u8(0).u64(regionWork).u64(regionMain) })
	local.rec(defClockOffset, false, func(r *enc) { r.u64Full(1000).i64(10).u64Full(0) })
	local.rec(defClockOffset, false, func(r *enc) { r.u64Full(1100).i64(-10).u64Full(0) })

	dir := t.TempDir()
	testArchive{chunkEvents: 64, defs: metricDefs().b,
		locations: map[uint64][]byte{0: chunked(false, 64, c1.b, c2.b, c3.b), 1: chunked(false, 64, d1.b, d2.b, d3.b)},
		localDefs: map[uint64][]byte{0: chunked(false, 0, local.b)},
	}.write(t, dir)
	files := map[string][]byte{}
	for _, rel := range []string{"traces.otf2", "traces.def", "traces/0.def", "traces/0.evt", "traces/1.evt"} {
		data, err := os.ReadFile(filepath.Join(dir, rel))
		must(t, err)
		files[rel] = data
	}
	return files
}

func checkReadError(t *testing.T, anchor string, err error) {
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

// fuzzFile fuzzes the archive's file rel, seeded with the synthetic
// archive's version of it and the small corpus files matching seeds.
func fuzzFile(f *testing.F, rel, seeds string) {
	readertest.BoundMinimization(f)
	files := fuzzArchiveFiles(f)
	dir := readertest.FuzzDir(f)
	must(f, os.MkdirAll(filepath.Join(dir, "traces"), 0o755))
	for name, data := range files {
		must(f, os.WriteFile(filepath.Join(dir, name), data, 0o644))
	}
	anchor, target := filepath.Join(dir, "traces.otf2"), filepath.Join(dir, rel)
	f.Add(files[rel])
	for _, data := range seedFiles(seeds) {
		f.Add(data)
	}
	f.Add([]byte{})
	f.Add([]byte{chunkHeader, littleEndian})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzInput {
			return
		}
		must(t, os.WriteFile(target, data, 0o644))
		sink := readertest.NewContract(nil)
		err := Read(anchor, sink, trace.ReadOptions{})
		checkReadError(t, anchor, err)
		readertest.CheckRead(t, "", err, sink)
	})
}

// seedFiles returns the files of the corpus archives that match pattern
// (a path relative to an archive directory) and are small enough to seed
// the fuzzer.
func seedFiles(pattern string) [][]byte {
	var seeds [][]byte
	for _, name := range archives {
		matches, _ := filepath.Glob(filepath.Join(corpus, name, pattern))
		for _, m := range matches {
			if data, err := os.ReadFile(m); err == nil && len(data) <= 1<<10 {
				seeds = append(seeds, data)
			}
		}
	}
	return seeds
}

func FuzzGlobalDefinitions(f *testing.F) { fuzzFile(f, "traces.def", "traces.def") }
func FuzzLocalDefinitions(f *testing.F)  { fuzzFile(f, "traces/0.def", "traces/*.def") }
func FuzzEvents(f *testing.F)            { fuzzFile(f, "traces/0.evt", "traces/*.evt") }
func FuzzAnchor(f *testing.F)            { fuzzFile(f, "traces.otf2", "traces.otf2") }

// FuzzEventDecoding decodes event files in batches of various sizes
// through windows of various sizes: the records must not depend on them,
// and errors must be FormatErrors at an offset inside the file.
func FuzzEventDecoding(f *testing.F) {
	readertest.BoundMinimization(f)
	files := fuzzArchiveFiles(f)
	f.Add(files["traces/0.evt"], uint8(2), uint16(5))
	f.Add(files["traces/1.evt"], uint8(0), uint16(17))
	for i, data := range seedFiles("traces/*.evt") {
		f.Add(data, uint8(i), uint16(i*97))
	}
	f.Add([]byte{}, uint8(1), uint16(1))
	path := filepath.Join(readertest.FuzzDir(f), "0.evt")
	f.Fuzz(func(t *testing.T, data []byte, max uint8, window uint16) {
		if len(data) > maxFuzzInput {
			return
		}
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

// TestFuzzArchive checks that the archive the fuzz targets damage reads
// whole, so that the fuzzer starts from inputs that reach every stage.
func TestFuzzArchive(t *testing.T) {
	dir := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(dir, "traces"), 0o755))
	for name, data := range fuzzArchiveFiles(t) {
		must(t, os.WriteFile(filepath.Join(dir, name), data, 0o644))
	}
	tr := trace.New()
	if err := Read(filepath.Join(dir, "traces.otf2"), tr, trace.ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	// Location 0's clock moves by +10 ticks at 1000 and -10 at 1100,
	// linearly in between: 1010 reads 1018, 1020 reads 1026, 1030 1034.
	sameList(t, describe(tr), []string{
		"state thread work 0.000000018-0.000000026 depth 1 order 1",
		"state thread main 0.000000010-0.000000034 depth 0 order 0",
		"state thread main 0.000000005-0.000000040 depth 0 order 0",
		"link thread->thread MPI_COMM_WORLD key 5 0.000000018-0.000000025 size 100",
		"variable thread power 0.000000010-0.000000100 = 10",
		"variable thread temp 0.000000010-0.000000100 = 1.5",
		"variable m0 power 0.000000026-0.000000100 = 7",
		"variable m0 temp 0.000000026-0.000000100 = 0.5",
		"event thread Unmatched MPI message send at 0.000000025",
	})
}

// TestClockOffsetsBackwards: offsets that fall faster than time runs
// would put a location's events out of order, and end states before they
// begin (FuzzLocalDefinitions found it): the read fails at the timestamp.
func TestClockOffsetsBackwards(t *testing.T) {
	local := &enc{}
	local.rec(defClockOffset, false, func(r *enc) { r.u64Full(1000).i64(50).u64Full(0) })
	local.rec(defClockOffset, false, func(r *enc) { r.u64Full(1010).i64(-50).u64Full(0) })
	l := &enc{}
	evTime(l, 1000)
	evRegion(l, evEnter, regionMain)
	evTime(l, 1005) // 1005 + 0 ticks: before 1000 + 50
	evRegion(l, evLeave, regionMain)
	_, err := readSynthetic(t, testArchive{defs: baseDefs(false).b,
		locations: map[uint64][]byte{0: chunked(false, 0, l.b)},
		localDefs: map[uint64][]byte{0: chunked(false, 0, local.b)},
	})
	var fe *errs.FormatError
	if !errors.As(err, &fe) || !strings.HasSuffix(fe.File, "0.evt") || fe.Offset != 29 ||
		!strings.Contains(err.Error(), "clock offsets move timestamp 1005 to 1005 ticks, before the previous one (1050)") {
		t.Errorf("got %v", err)
	}
}

// TestFilesNotFiles: a directory in place of the global definitions or
// of a location's definitions is a FormatError naming it (the corruption
// suite found raw system errors, which the Python front end cannot tell
// from a bug). A directory in place of a location's events leaves that
// location's events missing: the trace is read, marked incomplete (see
// TestMissingLocationFiles).
func TestFilesNotFiles(t *testing.T) {
	for _, rel := range []string{"traces.def", "traces/0.def"} {
		dir := t.TempDir()
		must(t, os.MkdirAll(filepath.Join(dir, "traces"), 0o755))
		for name, data := range fuzzArchiveFiles(t) {
			must(t, os.WriteFile(filepath.Join(dir, name), data, 0o644))
		}
		bad := filepath.Join(dir, rel)
		must(t, os.Remove(bad))
		must(t, os.Mkdir(bad, 0o755))
		err := Read(filepath.Join(dir, "traces.otf2"), trace.New(), trace.ReadOptions{})
		var fe *errs.FormatError
		if !errors.As(err, &fe) || fe.File != bad || !strings.Contains(err.Error(), "is a directory") {
			t.Errorf("%s: got %v (%T)", rel, err, err)
		}
	}
}
