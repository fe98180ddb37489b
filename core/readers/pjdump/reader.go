package pjdump

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/readers/textlines"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// readFile reads a whole trace dump (a file, or a directory of split
// files) into memory.
func readFile(path string) (*trace.Trace, error) {
	return trace.Load(path, Read)
}

// readOptions tune the reader beyond trace.ReadOptions.
type readOptions struct {
	trace.ReadOptions
	// OnInverted, if set, is called with the file and line of each state,
	// variable or link row whose end precedes its start, and the row is
	// skipped; otherwise such a row fails the read. StarVZ's dumps hold a
	// few: variables set after their container was destroyed, which
	// pj_dump prints as pieces of negative duration.
	OnInverted func(file string, line int)
	// MaxDecompressed bounds what a compressed file (gzip, bzip2, zstd)
	// may expand to: 0 means ingest.DefaultMaxDecompressed, a negative
	// value no limit.
	MaxDecompressed int64
	// TimeUnit is the unit of the dump's dates, in nanoseconds: 0 (or
	// trace.Second) reads seconds, pj_dump's unit for SimGrid's and
	// PajeNG's traces; StarVZ's dumps of StarPU's traces are in
	// milliseconds (trace.Second/1000). The door's time_unit option
	// (auto) sets it from the hierarchy: see starPU.
	TimeUnit trace.Time
}

// Read streams the dump at path into sink. A file is read alone; a
// directory is read as the split files of one trace (see dirFiles).
func Read(path string, sink trace.Sink, opt trace.ReadOptions) error {
	return readWith(path, sink, readOptions{ReadOptions: opt})
}

// readWith is Read with readOptions.
func readWith(path string, sink trace.Sink, opt readOptions) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return readFiles([]string{path}, sink, opt)
	}
	files, err := dirFiles(path)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return errs.Argument("path", "directory %s holds no pj_dump files", path)
	}
	// A part of the trace that is there by name but cannot be read as a
	// file (a directory in its place) is missing: say so rather than read
	// the others as if they were the whole trace.
	bad, err := unreadableParts(path)
	if err != nil {
		return err
	}
	for _, b := range bad {
		opt.Incomplete("%s is not a regular file: that part of the trace is missing", b)
	}
	return readFiles(files, sink, opt)
}

// dirFiles lists the pj_dump files of one trace in dir, hierarchy first:
// entities.csv (StarVZ) and *.container.csv (pj_dump_csv), then StarVZ's
// paje.*.csv and pj_dump_csv's *.state.csv, *.variable.csv, *.event.csv
// and *.link.csv, each possibly compressed (.gz, .bz2, .zst). Other files (StarVZ's
// rec.tasks.csv, dag.csv...) are not trace dumps and are left out.
func dirFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var hierarchy, rest []string
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		part, isHierarchy := partName(e.Name())
		if !part || !regular(dir, path) {
			continue
		}
		if isHierarchy {
			hierarchy = append(hierarchy, path)
		} else {
			rest = append(rest, path)
		}
	}
	sort.Strings(hierarchy)
	sort.Strings(rest)
	return append(hierarchy, rest...), nil
}

// partName tells whether a file name is that of a part of a split dump
// (see dirFiles), and whether that part is the hierarchy.
func partName(file string) (part, hierarchy bool) {
	name := ingest.StripCompressed(file)
	switch {
	case name == "entities.csv" || strings.HasSuffix(name, ".container.csv"):
		return true, true
	case strings.HasPrefix(name, "paje.") && strings.HasSuffix(name, ".csv"),
		strings.HasSuffix(name, ".state.csv"), strings.HasSuffix(name, ".variable.csv"),
		strings.HasSuffix(name, ".event.csv"), strings.HasSuffix(name, ".link.csv"):
		return true, false
	}
	return false, false
}

// regular reports whether path is a regular file inside dir (following
// links that stay inside: see ingest.CheckIn).
func regular(dir, path string) bool {
	st, err := ingest.CheckIn(dir, path)
	return err == nil && st.Mode().IsRegular()
}

// unreadableParts lists the entries of dir named as parts of the trace
// that are not regular files (directories, FIFOs, broken links). A part
// that is a link leading outside dir is an error: it is not read, and not
// quietly missing either.
func unreadableParts(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		part, _ := partName(e.Name())
		if !part {
			continue
		}
		if _, err := ingest.CheckIn(dir, path); errors.Is(err, ingest.ErrOutside) {
			return nil, err
		}
		if !regular(dir, path) {
			out = append(out, path)
		}
	}
	return out, nil
}

// readFiles reads the files of one trace, in order, into sink: the
// container hierarchy must come before the entities that refer to it.
func readFiles(paths []string, sink trace.Sink, opt readOptions) error {
	var total int64
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil {
			total += st.Size()
		}
	}
	d := newDecoder(sink)
	d.onInverted, d.unit = opt.OnInverted, opt.TimeUnit
	var done int64
	for _, p := range paths {
		f, err := ingest.OpenFile(p)
		if err != nil {
			return err
		}
		d.startFile(p)
		n, err := d.decode(f, textlines.Input{Name: p, Before: done, Total: total, MaxDecompressed: opt.MaxDecompressed, Map: true}, opt.ReadOptions)
		f.Close()
		if err != nil {
			return err
		}
		if d.line == 0 {
			// No line at all, not even a header: a file truncated to
			// nothing or never written, not a part with nothing to say.
			opt.Incomplete("%s is empty: that part of the trace is missing", p)
		}
		done += n
	}
	return d.finish()
}

// decodeStream reads one pj_dump stream, plain or compressed, from r; name
// labels errors, total is the input size for progress reports (0 if
// unknown).
func decodeStream(r io.Reader, name string, total int64, sink trace.Sink, opt trace.ReadOptions) error {
	d := newDecoder(sink)
	d.startFile(name)
	if _, err := d.decode(r, textlines.Input{Name: name, Total: total}, opt); err != nil {
		return err
	}
	return d.finish()
}

// decode reads one file and returns how many bytes it consumed.
func (d *decoder) decode(r io.Reader, in textlines.Input, opt trace.ReadOptions) (int64, error) {
	// pj_dump ends every line: a last line without its end was cut, though
	// what is left of it may parse (a name or a number shortened).
	cut := false
	d.held = opt.Held
	size, err := textlines.Scan(r, in, opt, func(line []byte, n int) error {
		d.line = d.base + n
		cut = line[len(line)-1] != '\n' && len(bytes.TrimSpace(line)) > 0
		return d.parseLine(line)
	})
	if err == nil && cut {
		opt.Incomplete("%s: the last line (%d) has no end of line: the file is cut", in.Name, d.line)
	}
	return size, err
}

// parseLong parses a long line. Its fields take 32 bytes each where the
// line took as little as one (a comma): a line of tens of megabytes of
// commas, from a small compressed file, would split into gigabytes. The
// slice is made at the size the commas bound, weighed against the budget
// first (a line that fits in the budget may still be refused here), and
// dropped after the line.
func (d *decoder) parseLong(line []byte) error {
	d.long = true
	defer func() { d.long = false }()
	n := bytes.Count(line, []byte{','}) + 1
	if n <= cap(d.fields) {
		return d.parseLine(line)
	}
	size := int64(n) * int64(unsafe.Sizeof(field{}))
	if d.held != nil {
		if err := d.held(size); err != nil {
			d.held(-size)
			// Where the read outgrew the budget (budget.Named).
			return &errs.FormatError{File: d.file, Line: d.line, Err: err}
		}
		defer d.held(-size)
	}
	d.fields = make([]field, 0, n)
	defer func() { d.fields = nil }()
	return d.parseLine(line)
}

// longLine is the length past which a line's fields are counted, and
// weighed, before it is split (parseLong).
const longLine = 64 << 10

func (d *decoder) parseLine(line []byte) error {
	// One comparison on the path of every line, no call.
	if len(line) > longLine && !d.long {
		return d.parseLong(line)
	}

	for n := len(line); n > 0 && (line[n-1] == '\n' || line[n-1] == '\r'); n-- {
		line = line[:n-1]
	}
	if blankLine(line) {
		return nil
	}
	d.lines++
	// Most lines are ASCII without quotes: splitPlain takes them, and
	// tells whether they are ASCII, which is valid UTF-8. The others are
	// checked before they are split, as the errors come in that order.
	fields, plain, ascii := splitPlain(line, d.fields[:0])
	d.fields = fields
	if !ascii && !utf8.Valid(line) {
		return d.fail("line is not valid UTF-8")
	}
	if !plain {
		var err error
		if d.fields, err = splitQuoted(line, d.fields[:0]); err != nil {
			return d.fail("%v", err)
		}
	}
	if !d.sawData {
		if l, ok := parseHeader(d.fields); ok {
			d.layout, d.hasHeader = l, true
			if first := string(d.fields[0].text); first != "Nature" && first != "Parent" {
				d.headerNature = first
				d.layout = extendLayout(d.layout, first, len(d.fields))
			}
			d.sawData = true
			return nil
		}
	}
	d.sawData = true
	return d.data()
}

// blankLine tells a line of white space only (bytes.TrimSpace's), at
// once for the lines that start with a printable ASCII byte: every line
// pj_dump writes.
func blankLine(line []byte) bool {
	if len(line) > 0 && line[0] > ' ' && line[0] < 0x7f {
		return false
	}
	return len(bytes.TrimSpace(line)) == 0
}
