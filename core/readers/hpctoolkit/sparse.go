package hpctoolkit

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unsafe"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// kindNames are the container type names of the identifier kinds hpcprof
// writes; other kinds keep the name meta.db gives them.
var kindNames = map[string]string{
	"NODE":       "Node",
	"RANK":       "Rank",
	"THREAD":     "Thread",
	"CORE":       "Core",
	"GPUDEVICE":  "GPU device",
	"GPUCONTEXT": "GPU context",
	"GPUSTREAM":  "GPU stream",
}

// levels turns an identifier tuple into a path in the hierarchy.
func levels(tuple []ident, kinds []string, prof uint32) []level {
	if len(tuple) == 0 {
		return []level{{"Profile", fmt.Sprintf("Profile %d", prof)}}
	}
	out := make([]level, len(tuple))
	for i, id := range tuple {
		name := fmt.Sprintf("KIND%d", id.kind)
		if int(id.kind) < len(kinds) && kinds[id.kind] != "" {
			name = kinds[id.kind]
		}
		if n, ok := kindNames[name]; ok {
			name = n
		}
		// A node's physical identifier is its host id, which hostid(1)
		// prints in hexadecimal: written with 0x, it reads as a number
		// wherever names are read for their numbers (the runs of a
		// comparison on other hosts: "Node 0x2a803c80" and "Node
		// 0x7f0101" are one resource, where "2a803c80" reads as numbers
		// and letters).
		v := fmt.Sprint(id.value())
		if id.physical && name == "Node" {
			v = hostID(id.phys)
		}
		out[i] = level{typ: name, name: name + " " + v}
	}
	return out
}

// hostID writes a node's host id as hostid(1) does, in hexadecimal, with
// 0x.
func hostID(h uint64) string { return fmt.Sprintf("0x%x", h) }

// compareTuples orders trace lines by their identifier tuples, identifier
// by identifier, so that ranks and threads come in numeric order.
func compareTuples(a, b []ident) int {
	for i := range min(len(a), len(b)) {
		if c := cmp.Compare(a[i].kind, b[i].kind); c != 0 {
			return c
		}
		if c := cmp.Compare(a[i].value(), b[i].value()); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

// sparseDB is an opened version 4 database.
type sparseDB struct {
	dir       string
	meta      *meta
	profiles  []profile
	traces    *traceDB
	traceFile string
	traceSize int64
	part      [2]int // the trace lines read (options.Lines)
	metaSize  int64  // bytes of meta.db, held whole (its names point into it)
}

// weight estimates the bytes the opened database holds while it is read:
// meta.db whole, its frames and context map, the profiles' identifier
// tuples and the trace lines' headers.
func (db *sparseDB) weight() int64 {
	n := db.metaSize
	if m := db.meta; m != nil {
		n += int64(len(m.fr.name))*(16+4+4) + int64(len(m.frameOf))*32
	}
	for _, p := range db.profiles {
		n += 32 + int64(len(p.tuple))*int64(unsafe.Sizeof(ident{}))
	}
	if db.traces != nil {
		n += int64(len(db.traces.lines)) * int64(unsafe.Sizeof(traceLine{}))
	}
	return n
}

// openSparse decodes meta.db, profile.db and the directory of trace.db.
func openSparse(dir string, o options) (*sparseDB, error) {
	db := &sparseDB{dir: dir, traceFile: filepath.Join(dir, "trace.db")}
	metaFile := filepath.Join(dir, "meta.db")
	data, err := ingest.ReadFileIn(dir, metaFile, 0)
	if err != nil {
		return nil, err
	}
	db.metaSize = int64(len(data))
	if db.meta, err = decodeMeta(&blob{data: data, file: metaFile}, o.Loops); err != nil {
		return nil, err
	}
	profFile := filepath.Join(dir, "profile.db")
	pf, size, err := openAt(dir, profFile)
	if err != nil {
		return nil, err
	}
	defer pf.Close()
	if db.profiles, err = decodeProfiles(pf, size, profFile); err != nil {
		return nil, err
	}
	tf, size, err := openAt(dir, db.traceFile)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, errs.Format(dir, 0, "%s", profilesOnly("meta.db and profile.db, no trace.db"))
		}
		return nil, err
	}
	defer tf.Close()
	db.traceSize = size
	if db.traces, err = decodeTraceHeaders(tf, size, db.traceFile); err != nil {
		return nil, err
	}
	for i, l := range db.traces.lines {
		if int(l.prof) >= len(db.profiles) {
			return nil, (&blob{file: db.traceFile}).failed(l.at, "trace line %d refers to profile %d, but profile.db has %d profiles", i, l.prof, len(db.profiles))
		}
	}
	return db, nil
}

// read streams the database's traces into sink.
func (db *sparseDB) read(sink trace.Sink, opt trace.ReadOptions) error {
	// The database was decoded when it was opened, before the read's
	// options were known (meta.db under the default budget only): it is
	// weighed against the user's budget now, before any line is read.
	w := db.weight()
	// Given back when the read is over: a second pass, or the next part
	// of a read by parts under one budget, weighs the database afresh.
	defer opt.Held(-w)
	if err := opt.Held(w); err != nil {
		return &errs.FormatError{File: filepath.Join(db.dir, "meta.db"), Err: err}
	}
	_, err := db.readLines(sink, opt)
	return err
}

// readLines streams the traces into sink and tells how many samples each
// trace line had.
func (db *sparseDB) readLines(sink trace.Sink, opt trace.ReadOptions) ([]lineStat, error) {
	tf, _, err := openAt(db.dir, db.traceFile)
	if err != nil {
		return nil, err
	}
	defer tf.Close()

	lines := slices.Clone(db.traces.lines)
	slices.SortStableFunc(lines, func(a, b traceLine) int {
		return compareTuples(db.profiles[a.prof].tuple, db.profiles[b.prof].tuple)
	})
	origin, end := trace.Time(0), trace.Time(0)
	if !db.traces.empty {
		if db.traces.max-db.traces.min >= 1<<62 {
			return nil, (&blob{file: db.traceFile}).failed(0x10, "the traces span %d ns: the timestamps are corrupt", db.traces.max-db.traces.min)
		}
		end = trace.Time(db.traces.max - db.traces.min)
	}

	if db.traces.empty {
		// hpcprof writes such a trace.db for runs whose traces caught no
		// sample (the corpus's lmp-openmp, hpcviewer's test database d.x):
		// the hierarchy is read, and the warning says why no view has
		// states to draw.
		opt.Warn("%s holds no sample in any of its trace lines (%d): the database has no timeline, only its hierarchy (its profiles, metrics per calling context, are for hpcviewer or hpcprof's tools)",
			db.traceFile, len(db.traces.lines))
	}
	db.meta.text.Note(opt, filepath.Join(db.dir, "meta.db"))
	b := newBuilder(sink)
	conts := make([]int32, len(lines))
	used := map[int32]bool{}
	for i, l := range lines {
		path := levels(db.profiles[l.prof].tuple, db.meta.kinds, l.prof)
		c := b.container(path, origin)
		for n := 2; used[c]; n++ { // two lines with one tuple: keep both
			p := slices.Clone(path)
			p[len(p)-1].name = fmt.Sprintf("%s #%d", path[len(path)-1].name, n)
			c = b.container(p, origin)
		}
		used[c] = true
		conts[i] = c
	}

	var done int64
	var stats []lineStat
	var buf []byte
	unknown := int64(0)
	total := db.traceSize
	if db.part[1] != 0 {
		total = 0
		for i, l := range lines {
			if inPart(i, db.part) {
				total += int64(l.end - l.start)
			}
		}
	}
	for i, l := range lines {
		if !inPart(i, db.part) {
			continue
		}
		fl := newFlame(b, &db.meta.fr, conts[i])
		n := 0
		buf, err = scanLine(tf, db.traceFile, l, buf, func(ts uint64, ctx uint32) error {
			if n++; n%4096 == 0 {
				if err := opt.Canceled(); err != nil {
					return err
				}
				if n%(1<<16) == 0 && opt.Progress != nil {
					opt.Progress(done+int64(n)*recordSize, total)
				}
			}
			if ts < db.traces.min || ts-db.traces.min > uint64(end) {
				return (&blob{file: db.traceFile}).failed(l.start+uint64(n-1)*recordSize, "timestamp %d lies outside the traces' range [%d, %d]", ts, db.traces.min, db.traces.max)
			}
			t := trace.Time(ts - db.traces.min)
			if t < fl.last {
				return (&blob{file: db.traceFile}).failed(l.start+uint64(n-1)*recordSize, "timestamp %d comes before the previous one of its trace line", ts)
			}
			f := trace.None
			if ctx != 0 {
				var ok bool
				if f, ok = db.meta.frameOf[ctx]; !ok {
					unknown++
					f = trace.None
				}
			}
			fl.sample(t, f)
			return nil
		})
		if err != nil {
			return nil, err
		}
		fl.close(end, 0)
		stats = append(stats, lineStat{container: fl.container, samples: fl.samples})
		done += int64(l.end - l.start)
		if opt.Progress != nil {
			opt.Progress(done, total)
		}
		if err := opt.Canceled(); err != nil {
			return nil, err
		}
	}
	if unknown > 0 {
		opt.Notes.Skip("samples in a context meta.db does not list (taken as idle)", unknown)
	}
	sink.Finish(0, end)
	return stats, nil
}

// isSparseFile tells the files of a version 4 database by name.
func isSparseFile(name string) bool {
	switch strings.ToLower(filepath.Base(name)) {
	case "meta.db", "trace.db", "profile.db", "cct.db":
		return true
	}
	return false
}
