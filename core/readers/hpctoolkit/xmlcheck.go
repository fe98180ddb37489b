package hpctoolkit

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// An XML database finds its *.hpctrace files by a glob, and a file holds
// no count of its records, so neither a missing file nor one cut exactly
// between two records shows in the file itself. What shows elsewhere:
//
//   - experiment.xml's TraceDB gives db-min-time and db-max-time, the
//     first and last timestamps of all the traces (hpcrun keeps them per
//     thread as it appends records, hpcprof takes their extremes): traces
//     that start after the first or end before the last lack records;
//   - the threads' profiles: hpcprof writes a *.metric-db file per
//     thread, named as its trace, and hpcviewer merges them into
//     experiment.mdb (experiment-1.mdb...): a header listing each
//     profile's rank and thread, then the files, then an end marker. A
//     thread with a profile and no trace file misses its trace;
//   - hpcrun opens a GPU stream's trace (threads numbered from 500) with
//     the stream's first operation and writes records for it, so a GPU
//     stream's trace without any record is cut.
//
// A CPU thread's trace cut between records, which holds neither extreme,
// does not show: nothing in the database tells how many records it had.

// gpuStreamThread is the thread number from which hpcrun numbers its GPU
// streams' traces.
const gpuStreamThread = 500

// profileList is the set of (rank, thread) that have a profile, and where
// the list was found.
type profileList struct {
	from    string
	threads map[[2]uint64]bool
}

// mergedMarker ends a file hpcviewer merged (MergeDataFiles).
const mergedMarker = 0xFFFFFFFFDEADF00D

// findProfiles lists the threads with a profile: from the *.metric-db
// files beside experiment.xml, else from a merged experiment*.mdb. A
// merged file that is damaged is not used (warn says why); nil when there
// is no list.
func findProfiles(dir string, warn func(string, ...any)) *profileList {
	if names, _ := filepath.Glob(filepath.Join(dir, "*.metric-db")); len(names) > 0 {
		p := &profileList{from: "the *.metric-db files", threads: map[[2]uint64]bool{}}
		for _, n := range names {
			if l := xmlLineOf(n); len(l.path) == 3 {
				p.threads[[2]uint64{l.key[1], l.key[2]}] = true
			}
		}
		return p
	}
	names, _ := filepath.Glob(filepath.Join(dir, "experiment*.mdb"))
	for _, n := range names {
		threads, err := readMergedIndex(dir, n)
		if err != nil {
			warn("%s: %v: the trace files are not checked against its list of profiles", n, err)
			continue
		}
		return &profileList{from: filepath.Base(n), threads: threads}
	}
	return nil
}

// readMergedIndex reads the index of the merged metric database name.
func readMergedIndex(dir, name string) (map[[2]uint64]bool, error) {
	f, err := ingest.OpenIn(dir, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	return decodeMergedIndex(f, st.Size())
}

// decodeMergedIndex decodes the index of a merged metric database of size
// bytes: a big-endian header (int32 type, int32 number of files), then per
// file int32 rank, int32 thread and int64 offset (increasing, inside the
// file), and the end marker last.
func decodeMergedIndex(r io.ReaderAt, size int64) (map[[2]uint64]bool, error) {
	var hdr [8]byte
	if _, err := r.ReadAt(hdr[:], 0); err != nil {
		return nil, fmt.Errorf("no header")
	}
	n := int64(binary.BigEndian.Uint32(hdr[4:]))
	if n == 0 || 8+16*n+8 > size {
		return nil, fmt.Errorf("an index of %d profiles does not fit in %d bytes", n, size)
	}
	var end [8]byte
	if _, err := r.ReadAt(end[:], size-8); err != nil || binary.BigEndian.Uint64(end[:]) != mergedMarker {
		return nil, fmt.Errorf("no end marker: the file is cut")
	}
	index := make([]byte, 16*n)
	if _, err := r.ReadAt(index, 8); err != nil {
		return nil, fmt.Errorf("reading the index: %w", err)
	}
	threads := make(map[[2]uint64]bool, n)
	prev := int64(-1)
	for i := range n {
		e := index[16*i:]
		rank, thread := binary.BigEndian.Uint32(e), binary.BigEndian.Uint32(e[4:])
		off := int64(binary.BigEndian.Uint64(e[8:]))
		if off < 8+16*n || off > size-8 || off < prev {
			return nil, fmt.Errorf("profile %d starts at %d, outside the file", i, off)
		}
		prev = off
		threads[[2]uint64{uint64(rank), uint64(thread)}] = true
	}
	return threads, nil
}

// lineSpan is what a read saw of one trace file: its records and their
// first and last timestamps.
type lineSpan struct {
	records     int64
	first, last uint64
}

// checkComplete records why the traces read are incomplete, from what was
// read of each line (spans, in the order of db.lines).
func (db *xmlDB) checkComplete(spans []lineSpan, opt trace.ReadOptions) {
	if db.hasMM {
		lo, hi, some := ^uint64(0), uint64(0), false
		for _, s := range spans {
			if s.records > 0 {
				lo, hi, some = min(lo, s.first), max(hi, s.last), true
			}
		}
		switch {
		case !some:
			opt.Incomplete("%s: no trace file holds a record, while its TraceDB spans [%d, %d]: the trace files are cut or missing", db.file, db.min, db.max)
		case hi < db.max:
			opt.Incomplete("%s: the trace files end at %d, before the last timestamp of the traces (db-max-time %d): a trace file is cut or missing", db.file, hi, db.max)
		case lo > db.min:
			opt.Incomplete("%s: the trace files start at %d, after the first timestamp of the traces (db-min-time %d): a trace file is cut or missing", db.file, lo, db.min)
		}
	}
	if profiles := findProfiles(filepath.Dir(db.file), opt.Warn); profiles != nil {
		have := map[[2]uint64]bool{}
		for _, l := range db.lines {
			if len(l.path) == 3 {
				have[[2]uint64{l.key[1], l.key[2]}] = true
			}
		}
		var missing [][2]uint64
		for k := range profiles.threads {
			if !have[k] {
				missing = append(missing, k)
			}
		}
		if len(missing) > 0 {
			slices.SortFunc(missing, func(a, b [2]uint64) int {
				return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1]))
			})
			var names []string
			for i, k := range missing {
				if i == 5 {
					names = append(names, fmt.Sprintf("and %d more", len(missing)-5))
					break
				}
				names = append(names, fmt.Sprintf("rank %d thread %d", k[0], k[1]))
			}
			opt.Incomplete("%d thread(s) have a profile (in %s) but no trace file (%s) in %s: %s", len(missing), profiles.from, db.glob, filepath.Dir(db.file), strings.Join(names, ", "))
		}
	}
	for i, l := range db.lines {
		if spans[i].records == 0 && len(l.path) == 3 && l.key[2] >= gpuStreamThread {
			opt.Incomplete("%s: the trace of a GPU stream (thread %d) holds no record: hpcrun writes one with the stream's first operation, so the file is cut", l.file, l.key[2])
		}
	}
}
