package hpctoolkit

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// readNotes reads the database in dir and returns its notes; the read
// itself must succeed.
func readNotes(t *testing.T, dir string) *trace.Notes {
	t.Helper()
	notes := &trace.Notes{}
	if err := Read(dir, trace.New(), trace.ReadOptions{Notes: notes}); err != nil {
		t.Fatal(err)
	}
	return notes
}

// wantReasons checks that the reasons the trace is incomplete are as many
// as want, each containing its string.
func wantReasons(t *testing.T, what string, notes *trace.Notes, want ...string) {
	t.Helper()
	got := notes.IncompleteReasons()
	ok := len(got) == len(want)
	for i := 0; ok && i < len(want); i++ {
		ok = strings.Contains(got[i], want[i])
	}
	if !ok {
		t.Errorf("%s: incomplete because %q, want reasons saying %q", what, got, want)
	}
}

// mdbWarnings are the notes' messages about experiment-1.mdb.
func mdbWarnings(notes *trace.Notes) []string {
	var w []string
	for _, m := range notes.Messages() {
		if strings.Contains(m, "experiment-1.mdb") {
			w = append(w, m)
		}
	}
	return w
}

// mergedMDB builds a metric database as hpcviewer merges them: the index
// of (rank, thread) with offsets, the files, the end marker.
func mergedMDB(threads ...[2]uint32) []byte {
	var b []byte
	b = binary.BigEndian.AppendUint32(b, 2)
	b = binary.BigEndian.AppendUint32(b, uint32(len(threads)))
	const part = 40 // a metric-db header and one value
	off := uint64(8 + 16*len(threads))
	for _, th := range threads {
		b = binary.BigEndian.AppendUint32(b, th[0])
		b = binary.BigEndian.AppendUint32(b, th[1])
		b = binary.BigEndian.AppendUint64(b, off)
		off += part
	}
	for range threads {
		b = append(b, "HPCPROF-metricdb__00.10b"...)
		b = binary.BigEndian.AppendUint32(b, 1)
		b = binary.BigEndian.AppendUint32(b, 1)
		b = binary.BigEndian.AppendUint64(b, 0)
	}
	return binary.BigEndian.AppendUint64(b, mergedMarker)
}

// TestXMLIncompleteSynthetic damages the synthetic database in the ways
// the format lets a reader see: the traces end before db-max-time or
// start after db-min-time, a thread with a profile has no trace, a GPU
// stream's trace holds no record.
func TestXMLIncompleteSynthetic(t *testing.T) {
	const t2 = "synth-000003-002-0000abcd-42-0.hpctrace"
	t.Run("complete", func(t *testing.T) {
		wantReasons(t, "the database as written", readNotes(t, writeXMLDB(t)))
	})
	t.Run("cut between records", func(t *testing.T) {
		dir := writeXMLDB(t)
		f := filepath.Join(dir, t2)
		data, _ := os.ReadFile(f)
		os.WriteFile(f, data[:len(data)-12], 0o644) // the record at 2000 gone
		wantReasons(t, "cut", readNotes(t, dir), "the trace files end at 1500, before the last timestamp of the traces (db-max-time 2000)")
	})
	t.Run("file removed", func(t *testing.T) {
		dir := writeXMLDB(t)
		os.Remove(filepath.Join(dir, t2))
		wantReasons(t, "removed", readNotes(t, dir), "the trace files end at 1000, before the last timestamp")
	})
	t.Run("start after db-min-time", func(t *testing.T) {
		dir := writeXMLDB(t)
		os.WriteFile(filepath.Join(dir, "experiment.xml"), []byte(strings.Replace(synthXML, `db-min-time="1000"`, `db-min-time="900"`, 1)), 0o644)
		wantReasons(t, "min", readNotes(t, dir), "the trace files start at 1000, after the first timestamp of the traces (db-min-time 900)")
	})
	t.Run("metric-db without trace", func(t *testing.T) {
		dir := writeXMLDB(t)
		for _, th := range []string{"000", "001", "002"} {
			os.WriteFile(filepath.Join(dir, "synth-000003-"+th+"-0000abcd-42-0.metric-db"), nil, 0o644)
		}
		wantReasons(t, "metric-db", readNotes(t, dir), "1 thread(s) have a profile (in the *.metric-db files) but no trace file (*.hpctrace) in "+dir+": rank 3 thread 1")
	})
	t.Run("merged profiles without trace", func(t *testing.T) {
		dir := writeXMLDB(t)
		os.WriteFile(filepath.Join(dir, "experiment-1.mdb"), mergedMDB([2]uint32{3, 0}, [2]uint32{3, 2}, [2]uint32{3, 7}, [2]uint32{4, 500}), 0o644)
		wantReasons(t, "mdb", readNotes(t, dir), "2 thread(s) have a profile (in experiment-1.mdb) but no trace file (*.hpctrace) in "+dir+": rank 3 thread 7, rank 4 thread 500")
	})
	t.Run("merged profiles, all traced", func(t *testing.T) {
		dir := writeXMLDB(t)
		os.WriteFile(filepath.Join(dir, "experiment-1.mdb"), mergedMDB([2]uint32{3, 0}, [2]uint32{3, 2}), 0o644)
		notes := readNotes(t, dir)
		wantReasons(t, "mdb", notes)
		if w := mdbWarnings(notes); len(w) != 0 {
			t.Errorf("warnings %q", w)
		}
	})
	t.Run("merged profiles damaged", func(t *testing.T) {
		dir := writeXMLDB(t)
		mdb := mergedMDB([2]uint32{3, 0}, [2]uint32{3, 7})
		os.WriteFile(filepath.Join(dir, "experiment-1.mdb"), mdb[:len(mdb)-3], 0o644)
		notes := readNotes(t, dir)
		wantReasons(t, "damaged mdb", notes)
		if w := mdbWarnings(notes); len(w) != 1 || !strings.Contains(w[0], "experiment-1.mdb: no end marker: the file is cut: the trace files are not checked") {
			t.Errorf("warnings %q, want one on the cut experiment-1.mdb", w)
		}
	})
	t.Run("GPU stream without record", func(t *testing.T) {
		dir := writeXMLDB(t)
		name := filepath.Join(dir, "synth-000003-500-0000abcd-42-0.hpctrace")
		os.WriteFile(name, hpctrace(binary.BigEndian), 0o644)
		wantReasons(t, "empty stream", readNotes(t, dir), name+": the trace of a GPU stream (thread 500) holds no record")
		// A CPU thread without record may have had no sample: not marked.
		os.Rename(name, filepath.Join(dir, "synth-000003-004-0000abcd-42-0.hpctrace"))
		wantReasons(t, "empty thread", readNotes(t, dir))
	})
}

// hpctraceSpan reads the records of a big-endian *.hpctrace file with
// 32-byte header: their count and the last timestamp (an oracle
// independent of the reader).
func hpctraceSpan(t *testing.T, data []byte) (n int, last uint64) {
	t.Helper()
	if len(data) < 32 || (len(data)-32)%12 != 0 || data[23] != 'b' {
		t.Fatalf("not a big-endian trace of whole records: %d bytes", len(data))
	}
	for i := 32; i+12 <= len(data); i += 12 {
		n++
		last = binary.BigEndian.Uint64(data[i:])
	}
	return n, last
}

// copyDir copies the files of a database to a temporary directory, less
// the ones skip names, and returns it.
func copyDir(t *testing.T, src string, skip ...string) string {
	t.Helper()
	dst := t.TempDir()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if slices.Contains(skip, e.Name()) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644)
	}
	return dst
}

// TestXMLIncompleteCorpus removes and cuts the trace files of the XML
// databases of the corpus: each damage the format shows is reported,
// the complete databases are not marked.
func TestXMLIncompleteCorpus(t *testing.T) {
	const (
		cpu = "vectorAdd-000000-000-2a803c80-4067513-0.hpctrace"
		gpu = "vectorAdd-000000-500-2a803c80-4067513-0.hpctrace"
	)
	src := corpus(t, "hpctoolkit-db", "xml", "vectorAdd")
	x, err := os.ReadFile(filepath.Join(src, "experiment.xml"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`db-max-time="(\d+)"`).FindSubmatch(x)
	if m == nil {
		t.Fatal("no db-max-time in experiment.xml")
	}
	maxTime := string(m[1])
	cpuData, _ := os.ReadFile(filepath.Join(src, cpu))
	gpuData, _ := os.ReadFile(filepath.Join(src, gpu))
	n, last := hpctraceSpan(t, cpuData)
	if fmt.Sprint(last) != maxTime {
		t.Fatalf("the CPU thread's last record is at %d, db-max-time %s: the corpus changed", last, maxTime)
	}
	_, gpuLast := hpctraceSpan(t, gpuData)

	for _, db := range []string{"vectorAdd", "acc_f3"} {
		wantReasons(t, db+" as it is", readNotes(t, corpus(t, "hpctoolkit-db", "xml", db)))
	}
	t.Run("GPU stream removed", func(t *testing.T) {
		// Thread 500 has a profile in experiment-1.mdb.
		dir := copyDir(t, src, gpu)
		wantReasons(t, "removed", readNotes(t, dir), "1 thread(s) have a profile (in experiment-1.mdb) but no trace file (*.hpctrace) in "+dir+": rank 0 thread 500")
	})
	t.Run("CPU thread removed", func(t *testing.T) {
		dir := copyDir(t, src, cpu)
		wantReasons(t, "removed", readNotes(t, dir),
			fmt.Sprintf("the trace files end at %d, before the last timestamp of the traces (db-max-time %s)", gpuLast, maxTime),
			"1 thread(s) have a profile (in experiment-1.mdb) but no trace file (*.hpctrace) in "+dir+": rank 0 thread 0")
	})
	t.Run("GPU stream cut to its header", func(t *testing.T) {
		dir := copyDir(t, src)
		os.WriteFile(filepath.Join(dir, gpu), gpuData[:32], 0o644)
		wantReasons(t, "cut", readNotes(t, dir), filepath.Join(dir, gpu)+": the trace of a GPU stream (thread 500) holds no record")
	})
	t.Run("CPU thread cut between records", func(t *testing.T) {
		for _, keep := range []int{0, 1, n / 4, n - 1} {
			dir := copyDir(t, src)
			cut := cpuData[:32+12*keep]
			os.WriteFile(filepath.Join(dir, cpu), cut, 0o644)
			_, end := hpctraceSpan(t, cut)
			if keep == 0 || end < gpuLast {
				end = gpuLast
			}
			wantReasons(t, fmt.Sprintf("%d records kept", keep), readNotes(t, dir),
				fmt.Sprintf("the trace files end at %d, before the last timestamp of the traces (db-max-time %s)", end, maxTime))
		}
	})
}
