package hpctoolkit

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Options are the reader's own options.
type Options struct {
	// Loops makes loop contexts frames of their own ("loop at file.c:
	// 12"), nested between the procedure that holds them and what they
	// call, as hpcviewer's calling-context view shows them (its trace
	// view does not).
	Loops bool
}

// Format registers the reader with the ingest door.
var Format = ingest.Format{
	Name:       "hpctoolkit",
	Summary:    "HPCToolkit databases (hpcprof): meta.db + trace.db, or experiment.xml + *.hpctrace",
	Extensions: []string{".hpctrace"},
	Sniff:      sniff,
	SniffDir:   SniffDir,
	Options: []ingest.Option{{
		Name: "loops", Kind: ingest.Bool, Default: false,
		Doc: "make loops frames of their own, between the procedure that holds them and its callees",
	}},
	Open: func(path string, v ingest.Values) (*ingest.Source, error) {
		o := Options{Loops: v.Bool("loops")}
		r, err := open(path, o)
		if err != nil {
			return nil, err
		}
		return &ingest.Source{Read: r.read, Probe: r.probe, Whole: true, Files: r.files}, nil
	},
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

// SniffDir reports whether dir holds an HPCToolkit database with traces:
// meta.db and trace.db (version 4), or experiment.xml and *.hpctrace files
// (the older XML database).
func SniffDir(dir string) bool {
	if isFile(filepath.Join(dir, "meta.db")) && isFile(filepath.Join(dir, "trace.db")) {
		return true
	}
	if !isFile(filepath.Join(dir, "experiment.xml")) {
		return false
	}
	m, _ := filepath.Glob(filepath.Join(dir, "*.hpctrace"))
	return len(m) > 0
}

func isFile(name string) bool {
	st, err := os.Stat(name)
	return err == nil && st.Mode().IsRegular()
}

// Read reads the HPCToolkit database at path (its directory, or one of its
// files: meta.db, trace.db, experiment.xml...) into sink with the default
// options.
func Read(path string, sink trace.Sink, opt trace.ReadOptions) error {
	return ReadWith(path, Options{}, sink, opt)
}

// ReadWith is Read with the reader's options.
func ReadWith(path string, o Options, sink trace.Sink, opt trace.ReadOptions) error {
	r, err := open(path, o)
	if err != nil {
		return err
	}
	return r.read(sink, opt)
}

// opened is a database ready to be read, of either kind.
type opened struct {
	read  func(trace.Sink, trace.ReadOptions) error
	files []string
	end   trace.Time // the end of the trace, known from the headers
	known bool       // end is known
}

// probe tells the span of the trace from what open decoded.
func (o *opened) probe() (start, end trace.Time, ok bool) { return 0, o.end, o.known }

// open finds the database directory of path and decodes what describes
// the traces; the samples are read by read.
func open(path string, o Options) (*opened, error) {
	st, err := ingest.CheckPath(path)
	if err != nil {
		return nil, err
	}
	dir := path
	if !st.IsDir() {
		dir = filepath.Dir(path)
	}
	name := strings.ToLower(filepath.Base(path))
	xmlDB := isFile(filepath.Join(dir, "experiment.xml"))
	sparse := isFile(filepath.Join(dir, "meta.db"))
	switch {
	case !st.IsDir() && (name == "experiment.xml" || strings.HasSuffix(name, ".hpctrace")):
		sparse = false
	case !st.IsDir() && isSparseFile(name):
		xmlDB = false
	}
	switch {
	case sparse:
		db, err := openSparse(dir, o)
		if err != nil {
			return nil, err
		}
		files := []string{filepath.Join(dir, "meta.db"), filepath.Join(dir, "profile.db"), db.traceFile}
		r := &opened{read: db.read, files: files, known: true}
		if !db.traces.empty && db.traces.max-db.traces.min < 1<<62 {
			r.end = trace.Time(db.traces.max - db.traces.min)
		}
		return r, nil
	case xmlDB:
		db, err := openXML(dir, o)
		if err != nil {
			return nil, err
		}
		r := &opened{read: db.read, files: db.files}
		if db.hasMM {
			r.end, r.known = db.toTime(db.min, db.max, db.max)
		}
		return r, nil
	}
	return nil, errs.Format(path, 0, "not an HPCToolkit database: no meta.db nor experiment.xml in %s", dir)
}
