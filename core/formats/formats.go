// Package formats is the registry of the trace formats Macroscope reads:
// it finds the format of a file (by the name the user gives, else by the
// file's extension, else by its first bytes or the files of its
// directory) and opens it through the format's reader (package ingest),
// and writes a trace in the formats Macroscope also writes (Write).
// Adding a format is one line in All.
package formats

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/readers/chrome"
	"github.com/macroscope-hpc/macroscope/core/readers/gotrace"
	"github.com/macroscope-hpc/macroscope/core/readers/hpctoolkit"
	"github.com/macroscope-hpc/macroscope/core/readers/nsys"
	"github.com/macroscope-hpc/macroscope/core/readers/otf2"
	"github.com/macroscope-hpc/macroscope/core/readers/paje"
	"github.com/macroscope-hpc/macroscope/core/readers/paraver"
	"github.com/macroscope-hpc/macroscope/core/readers/perfetto"
	"github.com/macroscope-hpc/macroscope/core/readers/pjdump"
	"github.com/macroscope-hpc/macroscope/core/readers/rocprof"
	"github.com/macroscope-hpc/macroscope/core/readers/speedscope"
	"github.com/macroscope-hpc/macroscope/core/readers/xplane"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// All lists the formats, in the order detection tries them.
//
// Formats whose files share an extension with others and which their
// content tells apart come before the more general ones: rocprofv3's JSON
// and speedscope's JSON before Chrome's trace-event JSON, rocprof's CSV before pj_dump's, the
// XSpace (.xplane.pb) before Perfetto's protobuf (.pb).
var All = []ingest.Format{
	paje.Format,
	otf2.Format,
	rocprof.JSONFormat,
	speedscope.Format,
	chrome.Format,
	paraver.Format,
	rocprof.CSVFormat,
	rocprof.LegacyCSVFormat,
	pjdump.Format,
	rocprof.RPDFormat,
	rocprof.RocpdFormat,
	nsys.Format,
	hpctoolkit.Format,
	xplane.Format,
	perfetto.Format,
	gotrace.Format,
}

// Names returns the names of the formats, in the order of All.
func Names() []string {
	names := make([]string, len(All))
	for i, f := range All {
		names[i] = f.Name
	}
	return names
}

// ByName returns the format called name.
func ByName(name string) (ingest.Format, error) {
	for _, f := range All {
		if f.Name == name {
			return f, nil
		}
	}
	return ingest.Format{}, errs.Argument("format", "unknown format %q (one of %s)", name, strings.Join(Names(), ", "))
}

// Detect chooses the format of path: for a directory, the first format
// that recognises its files; for a file, its extension (compression
// extensions stripped), else its first bytes (decompressed). A file or
// directory no format takes that a format explains (a producer's output
// without a trace) is refused with the explanation.
func Detect(path string) (ingest.Format, error) {
	st, err := ingest.CheckPath(path)
	if err != nil {
		return ingest.Format{}, err
	}
	if st.IsDir() {
		for _, f := range All {
			if f.SniffDir != nil && f.SniffDir(path) {
				return f, nil
			}
		}
		if why := ExplainDir(path); why != "" {
			return ingest.Format{}, errs.Format(path, 0, "is %s", why)
		}
		return ingest.Format{}, errs.Format(path, 0, "is a directory holding no trace Macroscope knows (%s); "+
			"a directory of two or more trace files of one format (the ranks of a job) is read as one trace: "+
			"give a trace file, or a directory of such files", strings.Join(Names(), ", "))
	}
	if err := notTrace(path); err != nil {
		return ingest.Format{}, err
	}
	head, err := ingest.Head(path, 4096)
	if err != nil {
		return ingest.Format{}, err
	}
	// A repository's placeholder of a large file, whatever the name (the
	// extension's reader would call it a damaged file of its format).
	if size, ok := ingest.LFSPointer(head); ok {
		return ingest.Format{}, errs.Format(path, 0, "%s", ingest.LFSPointerError(size))
	}
	// Whatever the name (trace.json.xz would be Chrome's, and its reader
	// would call its bytes a damaged trace).
	if name, tool := ingest.UnreadCompression(head); name != "" {
		return ingest.Format{}, errs.Format(path, 0, "%s", ingest.UnreadCompressionError(name, tool))
	}
	lower := strings.ToLower(ingest.StripCompressed(path))
	var byExt []ingest.Format
	for _, f := range All {
		for _, ext := range f.Extensions {
			if strings.HasSuffix(lower, ext) {
				byExt = append(byExt, f)
			}
		}
	}
	// The extension decides, unless its formats' content tells otherwise
	// (.json and .trace are written by more than one producer).
	for _, f := range byExt {
		if sniff(f, path, head) != no {
			return f, nil
		}
	}
	for _, f := range All {
		if sniff(f, path, head) == yes {
			return f, nil
		}
	}
	if why := explainFile(head); why != "" {
		return ingest.Format{}, errs.Format(path, 0, "is %s", why)
	}
	if enc := ingest.WideText(head); enc != "" {
		return ingest.Format{}, errs.Format(path, 0, "%s", ingest.WideTextError(enc))
	}
	if kind := ingest.Archive(head); kind != "" {
		return ingest.Format{}, errs.Format(path, 0, "%s", ingest.ArchiveError(kind))
	}
	if len(byExt) > 0 {
		return byExt[0], nil // its reader says what is wrong
	}
	return ingest.Format{}, errs.Format(path, 0, "cannot tell the trace format from the name or the content; name it (format=..., one of %s)",
		strings.Join(Names(), ", "))
}

// explainFile says what a file whose first bytes are head is, when a
// format knows it as a producer's output without a trace
// (ingest.Format.ExplainFile): "" otherwise.
func explainFile(head []byte) string {
	for _, f := range All {
		if f.ExplainFile != nil {
			if why := f.ExplainFile(head); why != "" {
				return why
			}
		}
	}
	return ""
}

// explainNamed refuses the file at path, read with format f named by the
// user, saying what it is when its content is a producer's output without
// a trace (a TAU profile named otf2): the reader of f would only say the
// file is not of its format. nil when f's content test, or another
// format's, takes the file (wrongFormat then gives the way), or when its
// first bytes cannot be read (the reader says why).
func explainNamed(path string, f ingest.Format) error {
	head, err := ingest.Head(path, 4096)
	if err != nil {
		return nil
	}
	if size, ok := ingest.LFSPointer(head); ok {
		return errs.Format(path, 0, "%s", ingest.LFSPointerError(size))
	}
	if name, tool := ingest.UnreadCompression(head); name != "" {
		return errs.Format(path, 0, "%s", ingest.UnreadCompressionError(name, tool))
	}
	why := explainFile(head)
	if why == "" || sniff(f, path, head) == yes {
		return nil
	}
	for _, g := range All {
		if g.Sniff != nil && g.Sniff(head) {
			return nil
		}
	}
	return errs.Format(path, 0, "is %s", why)
}

// explainNamedDir refuses the directory dir, read with a format named by
// the user, saying what it is when no format takes it and one explains it
// (a TAU run's profiles named otf2, Extrae's unfinished set-N named
// paraver): the named reader would only say it finds none of its files
// there. nil when a format's directory test takes it (its reader, or
// that of the format named, says the rest).
func explainNamedDir(dir string) error {
	for _, f := range All {
		if f.SniffDir != nil && f.SniffDir(dir) {
			return nil
		}
	}
	if why := ExplainDir(dir); why != "" {
		return errs.Format(dir, 0, "is %s", why)
	}
	return nil
}

// ExplainDir says what a directory that no format reads is, when a format
// knows it as a producer's output without a trace (a database of profiles
// only, measurements still to process): "" otherwise.
func ExplainDir(dir string) string {
	for _, f := range All {
		if f.ExplainDir != nil {
			if why := f.ExplainDir(dir); why != "" {
				return why
			}
		}
	}
	return ""
}

type verdict uint8

const (
	cannotTell verdict = iota
	yes
	no
)

// sniff asks format f whether the file at path, whose first bytes are
// head, is one of its own.
func sniff(f ingest.Format, path string, head []byte) verdict {
	switch {
	case f.Sniff != nil && f.Sniff(head), f.Sniff == nil && f.SniffFile != nil && f.SniffFile(path):
		return yes
	case f.Sniff == nil && f.SniffFile == nil:
		return cannotTell
	}
	return no
}

// notTrace refuses the file at path, saying what it is, when its name
// ends as a file of a producer that holds no trace
// (ingest.Format.NotTraces); nil otherwise.
func notTrace(path string) error {
	lower := strings.ToLower(ingest.StripCompressed(path))
	for _, f := range All {
		for _, n := range f.NotTraces {
			if strings.HasSuffix(lower, n.Ending) {
				return errs.Format(path, 0, "is %s", n.Is)
			}
		}
	}
	return nil
}

// Open finds the format of path (named, or detected when name is "") and
// opens the trace with the options given, checked against the format's.
func Open(path, name string, opt ingest.Values) (*ingest.Source, ingest.Format, error) {
	var f ingest.Format
	var err error
	if name == "" {
		f, err = Detect(path) // which refuses what is not a file or directory
	} else {
		var st os.FileInfo
		if st, err = ingest.CheckPath(path); err == nil && !st.IsDir() {
			err = notTrace(path) // whatever format is asked
		}
		if err == nil {
			f, err = ByName(name)
		}
		if err == nil && !st.IsDir() {
			err = explainNamed(path, f) // what the content says it is
		}
		if err == nil && st.IsDir() {
			err = explainNamedDir(path) // what its files say it is
		}
	}
	if err != nil {
		return nil, f, err
	}
	checked, err := f.Check(opt)
	if err != nil {
		return nil, f, err
	}
	var other string // the format the file is, when it is not the one named
	if name != "" {
		other = otherFormat(path, f)
	}
	src, err := f.Open(path, checked)
	if err != nil {
		return nil, f, wrongFormat(err, path, name, other)
	}
	if other != "" {
		read := src.Read
		src.Read = func(sink trace.Sink, ro trace.ReadOptions) error {
			return wrongFormat(read(sink, ro), path, name, other)
		}
	}
	return ingest.Strict(src, path, checked.Bool(ingest.StrictOption.Name)), f, nil
}

// otherFormat returns the name of the format a file is when it is not f:
// f's own sniffer refuses its first bytes and another format's takes
// them. "" when the content cannot tell, or for a directory.
func otherFormat(path string, f ingest.Format) string {
	if st, err := os.Stat(path); err != nil || st.IsDir() || f.Sniff == nil {
		return ""
	}
	head, err := ingest.Head(path, 4096)
	if err != nil || f.Sniff(head) {
		return ""
	}
	for _, g := range All {
		if g.Name != f.Name && g.Sniff != nil && g.Sniff(head) {
			return g.Name
		}
	}
	return ""
}

// wrongFormat adds to err, the error of reading path with the format
// named, the way out when the file is of format other ("" for none): the
// reader to use, in the syntax of both front ends.
func wrongFormat(err error, path, named, other string) error {
	if err == nil || other == "" || errors.Is(err, trace.ErrCanceled) {
		return err
	}
	g, _ := ByName(other)
	hint := fmt.Errorf("this file is %s, not %s: read it with format=%q or no format= (Python), "+
		"--format %s or no --format (command line)", g.Summary, named, other, other)
	var fe *errs.FormatError
	var ae *errs.ArgumentError
	switch {
	case errors.As(err, &fe):
		fe.Err = fmt.Errorf("%w; %v", fe.Err, hint)
		return err
	case errors.As(err, &ae):
		ae.Reason += "; " + hint.Error()
		return err
	}
	// Any other error (a file that cannot be opened, a memory budget, a
	// trace with nothing to model) keeps its kind, which the callers map
	// to their own (Python's FileNotFoundError, MemoryError...): the hint
	// is added, the chain kept.
	return fmt.Errorf("%w; %v", err, hint)
}

// Read streams the trace at path into sink, with the reader named format
// ("" to detect it) and its default options.
func Read(path, format string, sink trace.Sink, opt trace.ReadOptions) error {
	src, _, err := Open(path, format, nil)
	if err != nil {
		return err
	}
	return src.Read(sink, opt)
}

// ReadFile reads a whole trace into memory.
func ReadFile(path, format string) (*trace.Trace, error) {
	t := trace.New(path)
	if err := Read(path, format, t, trace.ReadOptions{}); err != nil {
		return nil, err
	}
	return t, nil
}

// Write writes t, a trace in memory, in the format called name, with the
// options of its writer (checked against Format.WriteOptions).
func Write(w io.Writer, t *trace.Trace, name string, opt ingest.Values) error {
	f, err := ByName(name)
	if err != nil {
		return err
	}
	if f.Write == nil {
		return errs.Argument("format", "Macroscope reads %s traces but does not write them", name)
	}
	checked, err := f.CheckWrite(opt)
	if err != nil {
		return err
	}
	return f.Write(w, t, checked)
}

// Describe lists every format with its options, for the front ends: the
// Python package takes the names of its readers' options from here.
func Describe() []Description {
	out := make([]Description, len(All))
	for i, f := range All {
		d := Description{Name: f.Name, Summary: f.Summary, Extensions: f.Extensions, Directory: f.SniffDir != nil}
		for _, o := range f.AllOptions() {
			d.Options = append(d.Options, OptionDescription{Name: o.Name, Kind: o.Kind.String(), Default: o.Default,
				Choices: o.Choices, Doc: o.Doc})
		}
		out[i] = d
	}
	return out
}

// Description is a format as the front ends see it.
type Description struct {
	Name       string              `json:"name"`
	Summary    string              `json:"summary"`
	Extensions []string            `json:"extensions"`
	Directory  bool                `json:"directory"` // a directory can hold a trace of it
	Options    []OptionDescription `json:"options"`
}

// OptionDescription is an option of a reader as the front ends see it.
type OptionDescription struct {
	Name    string   `json:"name"`
	Kind    string   `json:"kind"`
	Default any      `json:"default,omitempty"`
	Choices []string `json:"choices,omitempty"`
	Doc     string   `json:"doc"`
}
