package hpctoolkit

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// onlyFormatErrors fails unless err is nil or a FormatError naming a
// file.
func onlyFormatErrors(t *testing.T, err error) {
	t.Helper()
	var fe *errs.FormatError
	if err != nil && (!errors.As(err, &fe) || fe.File == "") {
		t.Fatalf("error %v (%T) is not a FormatError naming a file", err, err)
	}
}

// maxFuzzInput bounds the inputs of the fuzz targets: the fuzzer
// minimizes every new input, at up to n²/2 runs for n bytes, so long
// inputs would stall it.
const maxFuzzInput = 4 << 10

func FuzzMeta(f *testing.F) {
	readertest.BoundMinimization(f)
	f.Add(sample().meta(), false)
	f.Add(sample().meta(), true)
	f.Fuzz(func(t *testing.T, data []byte, loops bool) {
		if len(data) > maxFuzzInput {
			return
		}
		m, err := decodeMeta(&blob{data: data, file: "meta.db"}, loops)
		onlyFormatErrors(t, err)
		if err == nil {
			for i, p := range m.fr.parent {
				if p != trace.None && p >= int32(i) {
					t.Fatalf("frame %d has parent %d, not an earlier frame", i, p)
				}
			}
		}
	})
}

func FuzzProfile(f *testing.F) {
	readertest.BoundMinimization(f)
	f.Add(sample().profile())
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzInput {
			return
		}
		_, err := decodeProfiles(bytes.NewReader(data), int64(len(data)), "profile.db")
		onlyFormatErrors(t, err)
	})
}

func FuzzTrace(f *testing.F) {
	readertest.BoundMinimization(f)
	f.Add(sample().trace())
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzInput {
			return
		}
		r := bytes.NewReader(data)
		db, err := decodeTraceHeaders(r, int64(len(data)), "trace.db")
		onlyFormatErrors(t, err)
		if err != nil {
			return
		}
		for _, l := range db.lines {
			n := uint64(0)
			_, err := scanLine(r, "trace.db", l, nil, func(uint64, uint32) error { n++; return nil })
			onlyFormatErrors(t, err)
			if err == nil && n != l.records() {
				t.Fatalf("%d records scanned, the header says %d", n, l.records())
			}
		}
	})
}

func FuzzHpctrace(f *testing.F) {
	readertest.BoundMinimization(f)
	f.Add(hpctrace(bigEndian, [2]uint64{1000, 100}, [2]uint64{1100, 101}))
	f.Add(hpctrace(littleEndian, [2]uint64{1000, 102}))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzInput {
			return
		}
		db := &xmlDB{hdr: 32}
		err := db.scanReader(bytes.NewReader(data), "x.hpctrace", func(ts, cpid uint64, at int64) error { return nil })
		onlyFormatErrors(t, err)
	})
}

func FuzzExperimentXML(f *testing.F) {
	readertest.BoundMinimization(f)
	f.Add([]byte(synthXML), false)
	f.Add([]byte(synthXML), true)
	f.Fuzz(func(t *testing.T, data []byte, loops bool) {
		if len(data) > maxFuzzInput {
			return
		}
		db := &xmlDB{file: "experiment.xml"}
		onlyFormatErrors(t, db.decode(bytes.NewReader(data), options{Loops: loops}))
	})
}

// Every cut of every file of a database, and every byte of it set to 0xff,
// ends in a FormatError or a read, never in a panic or another error. The
// cuts drop the footers, so they must all be refused.
func TestCorruptSparse(t *testing.T) {
	dirs := map[string]string{"synthetic": sample().write(t)}
	if p := filepath.Join("..", "..", "..", "..", "shared", "traces", "pipit", "tests", "data", "ping-pong-hpctoolkit"); isFile(filepath.Join(p, "meta.db")) {
		dirs["ping-pong"] = p
	}
	for name, src := range dirs {
		for _, file := range []string{"meta.db", "profile.db", "trace.db"} {
			data, err := os.ReadFile(filepath.Join(src, file))
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			for _, other := range []string{"meta.db", "profile.db", "trace.db"} {
				if other != file {
					b, _ := os.ReadFile(filepath.Join(src, other))
					os.WriteFile(filepath.Join(dir, other), b, 0o644)
				}
			}
			target := filepath.Join(dir, file)
			step := max(1, len(data)/80)
			for cut := 0; cut < len(data); cut += step {
				os.WriteFile(target, data[:cut], 0o644)
				err := Read(dir, trace.New(), trace.ReadOptions{})
				var fe *errs.FormatError
				if !errors.As(err, &fe) {
					t.Fatalf("%s/%s cut at %d: error %v, want a FormatError", name, file, cut, err)
				}
			}
			for at := 0; at < len(data); at += step {
				bad := bytes.Clone(data)
				bad[at] ^= 0xff
				os.WriteFile(target, bad, 0o644)
				onlyFormatErrors(t, Read(dir, trace.New(), trace.ReadOptions{}))
			}
		}
	}
}

// Inputs the fuzzers found: a context whose children array points back
// to itself must not loop forever.
func TestContextCycle(t *testing.T) {
	data := sample().meta()
	m, err := decodeMeta(&blob{data: data, file: "meta.db"}, false)
	if err != nil || m.fr.len() != 6 {
		t.Fatalf("the sample's meta.db: %v, %d frames", err, m.fr.len())
	}
	// Point main's children at the array that holds main: the walk meets
	// context 2 again.
	b := &blob{data: data}
	h := readHeader(b, uint64(len(data)), "meta", 8)
	entries := b.u64(h.sections[3].ptr, "")
	arr, size := b.u64(entries+8, ""), b.u64(entries, "")
	bad := bytes.Clone(data)
	copy(bad[arr:], le64(size))
	copy(bad[arr+8:], le64(arr))
	_, err = decodeMeta(&blob{data: bad, file: "meta.db"}, false)
	wantFormatError(t, err, "appears twice")
}

func le64(v uint64) []byte {
	b := make([]byte, 8)
	for i := range b {
		b[i] = byte(v >> (8 * i))
	}
	return b
}

// FuzzMergedIndex decodes arbitrary bytes as the index of a merged metric
// database (experiment.mdb): never a panic, and an index it accepts lists
// at most as many threads as its header counts.
func FuzzMergedIndex(f *testing.F) {
	readertest.BoundMinimization(f)
	f.Add(mergedMDB([2]uint32{0, 0}, [2]uint32{0, 500}))
	f.Add(mergedMDB([2]uint32{3, 1}))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4<<10 {
			return
		}
		threads, err := decodeMergedIndex(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		if n := int(binary.BigEndian.Uint32(data[4:])); len(threads) == 0 || len(threads) > n {
			t.Fatalf("%d threads from an index of %d", len(threads), n)
		}
	})
}
