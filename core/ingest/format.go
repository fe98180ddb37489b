package ingest

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// NotTrace is a kind of file a format's producer writes that holds no
// trace: the files whose names end in Ending, and what they are (Is,
// which says the way to a trace).
type NotTrace struct {
	Ending, Is string
}

// Format describes a trace format and opens its files.
type Format struct {
	// Name is the format's identifier, as users spell it (format="paje").
	Name string
	// Summary says in a line what writes such files.
	Summary string
	// Extensions are the lower-case file name endings of the format, with
	// the dot (".prv"). Compressed variants need not be listed: detection
	// strips ".gz", ".bz2" and ".zst" first.
	Extensions []string
	// NotTraces are the file name endings (lower case, with the dot) of
	// files this format's producer writes that hold no trace (a profile,
	// intermediate files), each with what such a file is and the way to a
	// trace: the door refuses such a file saying so, whatever format was
	// asked. They are not Extensions: the format reads none of them.
	NotTraces []NotTrace
	// Sniff reports whether the first bytes of a file (decompressed) look
	// like this format; nil if the content cannot tell.
	Sniff func(head []byte) bool
	// SniffFile, for formats whose first bytes are shared with others
	// (SQLite databases), reports whether the file at path is of this
	// format by looking further (its tables); it is asked only when Sniff
	// is nil.
	SniffFile func(path string) bool
	// SniffDir reports whether a directory holds a trace of this format
	// (an OTF2 archive, a database); nil for single-file formats.
	SniffDir func(dir string) bool
	// ExplainDir, for a directory no format's SniffDir takes, says what it
	// is when it is something of this format without a trace to read (a
	// database of profiles only) and why: the door's error then says it
	// rather than calling it a directory of nothing known. "" otherwise;
	// nil for formats with nothing to explain.
	ExplainDir func(dir string) string
	// ExplainFile, for a file no format's Sniff takes, says what it is
	// when its first bytes (head, decompressed) are those of a file of
	// this format's producer that holds no trace (a summary of totals)
	// and the way to the trace: the door's error then says it rather
	// than the error of the reader its extension would pick. "" otherwise;
	// nil for formats with nothing to explain.
	ExplainFile func(head []byte) string
	// Options are the options the reader takes, besides those every
	// reader takes (trace.ReadOptions).
	Options []Option
	// Open checks the options and prepares the read of the trace at path.
	// It may look at the file (to find companion files, to check a
	// header) but does not read the trace.
	Open func(path string, opt Values) (*Source, error)
	// Parts, for formats whose traces can be read in parts by separate
	// readers, says what the parts are; nil when a trace is read whole.
	Parts *Parts
	// Write, for formats Macroscope also writes, writes a trace in memory
	// in the format, with the options WriteOptions lists (checked: see
	// CheckWrite); nil for formats it only reads.
	Write func(w io.Writer, t *trace.Trace, opt Values) error
	// WriteOptions are the options Write takes.
	WriteOptions []Option
}

// Source is an opened trace, ready to be streamed, once or several times.
type Source struct {
	// Read streams the trace into sink.
	Read func(sink trace.Sink, opt trace.ReadOptions) error
	// Probe, if not nil, guesses the first and last instants of the trace
	// cheaply, without reading it all; ok is false when it cannot tell.
	Probe func() (start, end trace.Time, ok bool)
	// StartOrdered tells that the states of each container and type come
	// in the order they start, each before the states nested in it
	// (pj_dump's tables), rather than in the order they end.
	StartOrdered bool
	// Whole tells that the reader holds the whole input in memory before
	// it delivers anything (JSON, databases): streaming the model from it
	// would save nothing, so the model builder reads it into memory once.
	Whole bool
	// Job tells that the trace is a whole job, whose communicators are its
	// own (an OTF2 archive, a Paraver trace: every rank of the run): read
	// with others as one trace (partition.Runs), each such run is an
	// application of its own (trace.RoleApplication), so that a collective
	// of one run never meets another's. A file of one rank or process (a
	// Kineto trace, an Nsight report) is not: the ranks of a job read
	// together share their communicators.
	Job bool
	// Files are the files the trace is made of, for the record.
	Files []string
}

// OptionKind is the type of an option's value.
type OptionKind uint8

// The kinds of option values.
const (
	Bool    OptionKind = iota // true or false
	String                    // any text; Choices, if set, lists the accepted ones
	Strings                   // a list of texts
	Int                       // an integer
)

func (k OptionKind) String() string {
	switch k {
	case Bool:
		return "bool"
	case String:
		return "str"
	case Strings:
		return "list[str]"
	case Int:
		return "int"
	}
	return "?"
}

// Option is an option of a reader.
type Option struct {
	Name    string
	Kind    OptionKind
	Default any      // the value when the option is not given
	Choices []string // String options only: the accepted values (empty: any)
	Doc     string
}

// Values are the options a user gave, by name, as JSON decodes them (bool,
// string, float64, []any) or as Go code sets them (bool, string, int,
// []string).
type Values map[string]any

// Check verifies that every value in v is an option of f, of its kind,
// and returns the values completed with the defaults, converted to the
// option's Go type (bool, string, []string, int).
func (f Format) Check(v Values) (Values, error) {
	return check(v, f.AllOptions(), "the "+f.Name+" reader")
}

// CheckWrite is Check for the options of the format's writer
// (WriteOptions).
func (f Format) CheckWrite(v Values) (Values, error) {
	return check(v, f.WriteOptions, "the "+f.Name+" writer")
}

// check verifies that every value in v is one of options, of its kind,
// and returns the values completed with the defaults, converted; whose
// names the taker of the options in errors.
func check(v Values, options []Option, whose string) (Values, error) {
	out := Values{}
	byName := map[string]Option{}
	for _, o := range options {
		byName[o.Name] = o
		if o.Default != nil {
			out[o.Name] = o.Default
		}
	}
	names := make([]string, 0, len(v))
	for name := range v {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		o, ok := byName[name]
		if !ok {
			return nil, errs.Argument(name, "is not an option of %s (%s)", whose, optionList(options))
		}
		val, err := o.convert(v[name])
		if err != nil {
			return nil, err
		}
		out[name] = val
	}
	return out, nil
}

func optionList(options []Option) string {
	if len(options) == 0 {
		return "it takes none"
	}
	names := make([]string, len(options))
	for i, o := range options {
		names[i] = o.Name
	}
	return "it takes " + strings.Join(names, ", ")
}

// Text is an option's value written as text (on a command line): Check
// converts it to the option's kind.
type Text string

func (o Option) convert(v any) (any, error) {
	bad := func() error { return errs.Argument(o.Name, "wants a %s, not %v (%T)", o.Kind, v, v) }
	if t, ok := v.(Text); ok {
		switch o.Kind {
		case Bool:
			b, err := strconv.ParseBool(string(t))
			if err != nil {
				return nil, errs.Argument(o.Name, "wants true or false, not %q", string(t))
			}
			return b, nil
		case Int:
			n, err := strconv.Atoi(string(t))
			if err != nil {
				return nil, errs.Argument(o.Name, "wants an integer, not %q", string(t))
			}
			return n, nil
		case Strings:
			return strings.Split(string(t), ":"), nil
		}
		v = string(t)
	}
	switch o.Kind {
	case Bool:
		b, ok := v.(bool)
		if !ok {
			return nil, bad()
		}
		return b, nil
	case String:
		s, ok := v.(string)
		if !ok {
			return nil, bad()
		}
		if len(o.Choices) > 0 {
			for _, c := range o.Choices {
				if s == c {
					return s, nil
				}
			}
			return nil, errs.Argument(o.Name, "%q is not one of %s", s, strings.Join(o.Choices, ", "))
		}
		return s, nil
	case Strings:
		switch l := v.(type) {
		case []string:
			return l, nil
		case []any:
			out := make([]string, len(l))
			for i, e := range l {
				s, ok := e.(string)
				if !ok {
					return nil, bad()
				}
				out[i] = s
			}
			return out, nil
		case string:
			return []string{l}, nil
		}
		return nil, bad()
	case Int:
		switch n := v.(type) {
		case int:
			return n, nil
		case int64:
			return int(n), nil
		case float64:
			if n != float64(int(n)) {
				return nil, bad()
			}
			return int(n), nil
		}
		return nil, bad()
	}
	return nil, fmt.Errorf("option %s: unknown kind %d", o.Name, o.Kind)
}

// Bool returns the boolean option name (false if absent).
func (v Values) Bool(name string) bool {
	b, _ := v[name].(bool)
	return b
}

// String returns the text option name ("" if absent).
func (v Values) String(name string) string {
	s, _ := v[name].(string)
	return s
}

// Strings returns the list option name (nil if absent).
func (v Values) Strings(name string) []string {
	l, _ := v[name].([]string)
	return l
}

// Int returns the integer option name (0 if absent).
func (v Values) Int(name string) int {
	n, _ := v[name].(int)
	return n
}

// Has reports whether option name was given or has a default.
func (v Values) Has(name string) bool {
	_, ok := v[name]
	return ok
}

// ReadFunc adapts a reader's plain entry point to a Source's Read.
func ReadFunc(path string, read func(path string, sink trace.Sink, opt trace.ReadOptions) error) func(trace.Sink, trace.ReadOptions) error {
	return func(sink trace.Sink, opt trace.ReadOptions) error { return read(path, sink, opt) }
}

// Simple returns a Format's Open for a reader without options that reads
// one file or directory with read.
func Simple(read func(path string, sink trace.Sink, opt trace.ReadOptions) error) func(string, Values) (*Source, error) {
	return func(path string, _ Values) (*Source, error) {
		return &Source{Read: ReadFunc(path, read), Files: []string{path}}, nil
	}
}
