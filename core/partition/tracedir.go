package partition

import (
	"os"
	"path/filepath"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/ingest"
)

// Open opens the trace at path (formats.Open) or, for a directory of
// trace files of one format (TraceFiles), those files as one trace
// (OpenRuns). It returns the source and the format's name. The directory
// is looked at first: a reader given a format may open any path and
// refuse a directory only when it reads it.
func Open(path, format string, opt ingest.Values) (*ingest.Source, string, error) {
	if files, kind := traceFiles(path, format); files != nil {
		// The files' format, found once: not detected again per file.
		return OpenRuns(files, kind, opt)
	}
	src, f, err := formats.Open(path, format, opt)
	if err != nil {
		return nil, "", err
	}
	return src, f.Name, nil
}

// OpenRuns opens the traces at paths as one trace, each under a container
// of type RunType named after its file (PlanRuns, Runs): the ranks' files
// of one job, for instance. format "" detects each file's. It returns the
// source and the format's name: the files' when they share one, "runs"
// otherwise.
func OpenRuns(paths []string, format string, opt ingest.Values) (*ingest.Source, string, error) {
	if len(paths) == 0 {
		return nil, "", errs.Argument("path", "no file given")
	}
	plan, err := PlanRuns(paths, format, opt)
	if err != nil {
		return nil, "", err
	}
	src, err := Runs(plan)
	if err != nil {
		return nil, "", err
	}
	if format != "" {
		return src, format, nil
	}
	for i, p := range paths {
		f, err := formats.Detect(p)
		if err != nil {
			return nil, "", err
		}
		if i > 0 && f.Name != format {
			return src, "runs", nil
		}
		format = f.Name
	}
	return src, format, nil
}

// TraceFiles lists, for a directory that no format reads as a whole, the
// files in it (not in its subdirectories; hidden ones left out) that are
// traces of one format (format, or the one each file's content or name
// tells), by name, when there are at least two: the files of a job's
// ranks, each a trace of its own. It returns nil for anything else (a
// file, a directory a format reads, fewer than two traces, traces of
// several formats), which then goes to the readers as it is, and they
// say what they make of it.
func TraceFiles(dir, format string) []string {
	files, _ := traceFiles(dir, format)
	return files
}

// traceFiles is TraceFiles, with the files' format.
func traceFiles(dir, format string) ([]string, string) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, ""
	}
	// A directory a format reads, or one it knows as a whole without a
	// trace (hpcrun's measurements, whose *.hpctrace files name call
	// paths only hpcprof resolves), is not a set of traces.
	if _, err := formats.Detect(dir); err == nil || formats.ExplainDir(dir) != "" {
		return nil, ""
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, ""
	}
	var files []string
	kind := format
	for _, e := range entries { // sorted by name
		path := filepath.Join(dir, e.Name())
		if e.Name()[0] == '.' {
			continue
		}
		if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
			continue // a subdirectory, or a link to none or to one
		}
		if format == "" {
			f, err := formats.Detect(path)
			if err != nil {
				continue // not a trace: left out
			}
			if kind != "" && f.Name != kind {
				return nil, ""
			}
			kind = f.Name
		}
		files = append(files, path)
	}
	if len(files) < 2 {
		return nil, ""
	}
	return files, kind
}
