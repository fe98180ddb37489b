package hpctoolkit

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// options are the reader's own options.
type options struct {
	// Loops makes loop contexts frames of their own ("loop at file.c:
	// 12"), nested between the procedure that holds them and what they
	// call, as hpcviewer's calling-context view shows them (its trace
	// view does not).
	Loops bool
	// Lines, if not zero, selects the trace lines [Lines[0], Lines[1]) of
	// the database, in the reader's order (see traceLines): a part of the
	// trace, for a distributed read. Every line's container is created
	// all the same, so that the parts' hierarchies are the whole trace's.
	Lines [2]int
}

// Format registers the reader with the ingest door.
var Format = ingest.Format{
	Name:        "hpctoolkit",
	Summary:     "HPCToolkit databases (hpcprof): meta.db + trace.db, or experiment.xml + *.hpctrace",
	Extensions:  []string{".hpctrace"},
	Sniff:       sniff,
	SniffDir:    sniffDir,
	ExplainDir:  explainDir,
	ExplainFile: explainFile,
	Options: []ingest.Option{{
		Name: "loops", Kind: ingest.Bool, Default: false,
		Doc: "make loops frames of their own, between the procedure that holds them and its callees",
	}, {
		Name: "line_start", Kind: ingest.Int, Default: 0,
		Doc: "read only the samples of the trace lines from this one (counted from 0 in the order of the hierarchy) to line_end: a part of the trace, for a distributed read",
	}, {
		Name: "line_end", Kind: ingest.Int, Default: 0, Doc: "the end of the trace lines line_start starts (0: all)",
	}},
	Open: func(path string, v ingest.Values) (*ingest.Source, error) {
		o := options{Loops: v.Bool("loops"), Lines: [2]int{v.Int("line_start"), v.Int("line_end")}}
		if o.Lines[1] != 0 && (o.Lines[0] < 0 || o.Lines[1] < o.Lines[0]) {
			return nil, errs.Argument("line_start", "the trace lines [%d, %d) are not a range", o.Lines[0], o.Lines[1])
		}
		r, err := open(path, o)
		if err != nil {
			return nil, err
		}
		return &ingest.Source{Read: r.read, Probe: r.probe, Whole: true, Files: r.files}, nil
	},
	// Groups of consecutive trace lines, one after the other: every part
	// creates the containers of all the lines and reads the samples of
	// its own.
	Parts: &ingest.Parts{
		Cut:    cut,
		IsPart: func(v ingest.Values) bool { return v.Int("line_end") != 0 },
	},
}

// cut lists at most n parts of the database at path: groups of
// consecutive trace lines (threads, ranks, GPU streams), as even as can
// be.
func cut(path string, n int) ([]ingest.Part, error) {
	lines, err := traceLines(path)
	if err != nil {
		return nil, err
	}
	k := min(n, lines)
	parts := make([]ingest.Part, 0, k)
	for i := range k {
		a, b := i*lines/k, (i+1)*lines/k
		label := fmt.Sprintf("trace line %d", a)
		if b > a+1 {
			label = fmt.Sprintf("trace lines %d-%d", a, b-1)
		}
		parts = append(parts, ingest.Part{Options: ingest.Values{"line_start": a, "line_end": b}, Label: label})
	}
	return parts, nil
}

// sniff recognises the files of a database by their first bytes: the
// *.db files by their magic, experiment.xml by its root element, a
// *.hpctrace file by its header. The reader then reads the enclosing
// database directory.
func sniff(head []byte) bool {
	if bytes.HasPrefix(head, []byte("HPCTOOLKIT")) || bytes.HasPrefix(head, []byte("HPCRUN-trace")) {
		return true
	}
	// The root element, or the DOCTYPE that older files put before it
	// with the whole DTD.
	return bytes.Contains(head, []byte("<HPCToolkitExperiment")) || bytes.Contains(head, []byte("<!DOCTYPE HPCToolkitExperiment"))
}

// sniffDir reports whether dir holds an HPCToolkit database with traces:
// meta.db and trace.db (version 4), or experiment.xml and *.hpctrace files
// (the older XML database).
func sniffDir(dir string) bool {
	if isFile(filepath.Join(dir, "meta.db")) && isFile(filepath.Join(dir, "trace.db")) {
		return true
	}
	if !isFile(filepath.Join(dir, "experiment.xml")) {
		return false
	}
	m, _ := filepath.Glob(filepath.Join(dir, "*.hpctrace"))
	return len(m) > 0
}

// profilesOnly is the error of a database without traces: what it is, and
// why it has no timeline.
func profilesOnly(what string) string {
	return "an HPCToolkit database of profiles only (" + what + "): hpcrun recorded no trace (it records one with -t, " +
		"HPCRUN_TRACE=1), so the database holds no timeline to read; its profiles (metrics per calling context) are for hpcviewer or hpcprof's tools"
}

// explainDir says what dir is when it is an HPCToolkit database that
// sniffDir does not take, one of profiles only, or hpcrun's measurements
// directory: "" otherwise.
func explainDir(dir string) string {
	switch {
	case isFile(filepath.Join(dir, "meta.db")) && !isFile(filepath.Join(dir, "trace.db")):
		return profilesOnly("meta.db and profile.db, no trace.db")
	case isFile(filepath.Join(dir, "experiment.xml")):
		if m, _ := filepath.Glob(filepath.Join(dir, "*.hpctrace")); len(m) == 0 {
			return profilesOnly("experiment.xml, no *.hpctrace file")
		}
	case isMeasurements(dir):
		return measurements
	}
	return ""
}

// measurements says what hpcrun's output directory is and the way to a
// database: its *.hpctrace files hold call path ids of the *.hpcrun
// profiles' trees, which only hpcprof resolves (with hpcstruct's
// structure files and the binaries) into procedures.
const measurements = "an HPCToolkit measurements directory (hpcrun's *.hpcrun profiles and *.hpctrace traces), not a database: " +
	"its call paths are addresses that hpcprof resolves; run hpcprof on it (hpcprof -o DB DIR) and read the database it writes"

// isMeasurements reports whether dir is hpcrun's output: *.hpcrun files
// (or *.hpctrace ones) and no database file.
func isMeasurements(dir string) bool {
	if isFile(filepath.Join(dir, "meta.db")) || isFile(filepath.Join(dir, "experiment.xml")) {
		return false
	}
	for _, pattern := range []string{"*.hpcrun", "*.hpctrace"} {
		if m, _ := filepath.Glob(filepath.Join(dir, pattern)); len(m) > 0 {
			return true
		}
	}
	return false
}

// explainFile says what a file of hpcrun's measurements that no format
// takes is: a profile (HPCRUN-profile), which no database holds.
func explainFile(head []byte) string {
	if bytes.HasPrefix(head, []byte("HPCRUN-profile")) {
		return "a profile of hpcrun (HPCRUN-profile), a file of an HPCToolkit measurements directory, not a database: " +
			"run hpcprof on the directory (hpcprof -o DB DIR) and read the database it writes"
	}
	return ""
}

// isExperimentXML reports whether the file at path begins as hpcprof's
// experiment.xml does (whatever its name).
func isExperimentXML(path string) bool {
	head, err := ingest.Head(path, 4096)
	return err == nil && !bytes.HasPrefix(head, []byte("HPC")) && sniff(head)
}

func isFile(name string) bool {
	st, err := os.Stat(name)
	return err == nil && st.Mode().IsRegular()
}

// Read reads the HPCToolkit database at path (its directory, or one of its
// files: meta.db, trace.db, experiment.xml...) into sink with the default
// options.
func Read(path string, sink trace.Sink, opt trace.ReadOptions) error {
	return readWith(path, options{}, sink, opt)
}

// readWith is Read with the reader's options.
func readWith(path string, o options, sink trace.Sink, opt trace.ReadOptions) error {
	r, err := open(path, o)
	if err != nil {
		return err
	}
	return r.read(sink, opt)
}

// opened is a database ready to be read, of either kind.
type opened struct {
	read  func(trace.Sink, trace.ReadOptions) error
	lines int // trace lines
	files []string
	end   trace.Time // the end of the trace, known from the headers
	known bool       // end is known
}

// probe tells the span of the trace from what open decoded.
func (o *opened) probe() (start, end trace.Time, ok bool) { return 0, o.end, o.known }

// open finds the database directory of path and decodes what describes
// the traces; the samples are read by read.
func open(path string, o options) (*opened, error) {
	st, err := ingest.CheckPath(path)
	if err != nil {
		return nil, err
	}
	dir := path
	if !st.IsDir() {
		dir = filepath.Dir(path)
	}
	r, err := openKind(path, dir, st.IsDir(), o)
	if err == nil && o.Lines[1] > r.lines {
		return nil, errs.Argument("line_end", "the database has %d trace lines, not %d", r.lines, o.Lines[1])
	}
	return r, err
}

// openKind opens the database in dir of the kind path names.
func openKind(path, dir string, isDir bool, o options) (*opened, error) {
	name := strings.ToLower(filepath.Base(path))
	xmlFile := filepath.Join(dir, "experiment.xml")
	xmlDB := isFile(xmlFile)
	sparse := isFile(filepath.Join(dir, "meta.db"))
	switch {
	case !isDir && (name == "experiment.xml" || strings.HasSuffix(name, ".hpctrace")):
		sparse = false
	case !isDir && isSparseFile(name):
		xmlDB = false
	case !isDir && isExperimentXML(path):
		// An experiment file under another name: the database it
		// describes is its own and its directory's traces.
		xmlFile, xmlDB, sparse = path, true, false
	}
	switch {
	case sparse:
		db, err := openSparse(dir, o)
		if err != nil {
			return nil, err
		}
		files := []string{filepath.Join(dir, "meta.db"), filepath.Join(dir, "profile.db"), db.traceFile}
		db.part = o.Lines
		r := &opened{read: db.read, files: files, known: true, lines: len(db.traces.lines)}
		if !db.traces.empty && db.traces.max-db.traces.min < 1<<62 {
			r.end = trace.Time(db.traces.max - db.traces.min)
		}
		return r, nil
	case xmlDB:
		db, err := openXMLFile(dir, xmlFile, o)
		if err != nil {
			return nil, err
		}
		db.part = o.Lines
		r := &opened{read: db.read, files: db.files, lines: len(db.lines)}
		if db.hasMM {
			r.end, r.known = db.toTime(db.min, db.max, db.max)
		}
		return r, nil
	}
	// One of them there but not a file (a FIFO, a link leading out): say
	// what is wrong with it.
	for _, name := range []string{"meta.db", "experiment.xml"} {
		if _, err := ingest.CheckIn(dir, filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	if isMeasurements(dir) {
		return nil, errs.Format(path, 0, "is in %s", measurements)
	}
	return nil, errs.Format(path, 0, "not an HPCToolkit database: no meta.db nor experiment.xml in %s", dir)
}

// traceLines returns the number of trace lines of the database at path
// (a thread, a rank, a GPU stream each): the options line_start and
// line_end select some of them, in the order of the hierarchy.
func traceLines(path string) (int, error) {
	r, err := open(path, options{})
	if err != nil {
		return 0, err
	}
	return r.lines, nil
}

// inPart tells whether trace line i is among the lines [part[0],
// part[1]) a read selects (all of them when part is zero).
func inPart(i int, part [2]int) bool {
	return part[1] == 0 || (i >= part[0] && i < part[1])
}
