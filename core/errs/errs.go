// Package errs defines the error types every Macroscope package reports, so
// that front ends (the command line, the Python bridge) can tell a broken
// input file from a bad argument and say precisely where the problem is.
package errs

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// FormatError reports malformed or inconsistent input data. File, Line and
// Offset locate the problem as precisely as the reader knows it; zero values
// mean "not known" (Line counts from 1, Offset is a byte offset), but for
// an Offset that AtOffset says is known: a problem at byte 0 keeps its
// position. Where names a place neither gives: a database's table and
// row ("table T, row 7").
type FormatError struct {
	File     string
	Line     int
	Offset   int64
	AtOffset bool // Offset is known, even when it is 0
	Where    string
	Err      error
}

// HasOffset reports whether the error gives a byte offset.
func (e *FormatError) HasOffset() bool { return e.Offset > 0 || e.AtOffset }

func (e *FormatError) Error() string {
	if inner, ok := e.Err.(*FormatError); ok && inner.File == e.File && e.Line == 0 && e.Offset == 0 && e.Where == "" {
		return inner.Error() // the same file, named once
	}
	var b strings.Builder
	if e.File == "" && e.Line == 0 && !e.HasOffset() && e.Where == "" {
		// Data found at fault after the reading (an analysis of the
		// trace), before the caller names its files (NameFile).
		return Cap(e.Err.Error())
	}
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	} else if e.HasOffset() {
		fmt.Fprintf(&b, ": byte %d", e.Offset)
	}
	if e.Where != "" {
		b.WriteString(": ")
		b.WriteString(e.Where)
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return Cap(b.String())
}

func (e *FormatError) Unwrap() error { return e.Err }

// Format returns a FormatError for file and line whose cause is formatted
// like fmt.Errorf.
func Format(file string, line int, format string, args ...any) *FormatError {
	return &FormatError{File: file, Line: line, Err: fmt.Errorf(format, args...)}
}

// ArgumentError reports a parameter value that cannot be used, such as a
// negative number of slices or an empty time window.
type ArgumentError struct {
	Name   string // parameter name as the user spells it
	Reason string
}

func (e *ArgumentError) Error() string {
	if e.Name == "" {
		return Cap(e.Reason)
	}
	return Cap(e.Name + ": " + e.Reason)
}

// Argument returns an ArgumentError for the named parameter.
func Argument(name, format string, args ...any) *ArgumentError {
	return &ArgumentError{Name: name, Reason: fmt.Sprintf(format, args...)}
}

// EmptyError reports data that hold nothing for what was asked of them: a
// trace without states (none written, or every record skipped, as the
// reading's warnings count) has no model of states. Neither a parameter nor
// the file's syntax is at fault, so it is neither an ArgumentError nor a
// FormatError, and the way out is in the data. File names them when known.
type EmptyError struct {
	File   string
	Reason string
}

func (e *EmptyError) Error() string {
	if e.File == "" {
		return Cap(e.Reason)
	}
	return Cap(e.File + ": " + e.Reason)
}

// Empty returns an EmptyError about the data in file ("" when unknown).
func Empty(file, format string, args ...any) *EmptyError {
	return &EmptyError{File: file, Reason: fmt.Sprintf(format, args...)}
}

// NameFile names files (a trace's, joined by ", ") in err when err is an
// EmptyError or a FormatError that names none: a model built while
// reading, or an analysis of it, sees the data, not the files they came
// from, so the caller that opened them names them (before wrapping err: a
// wrapped error's message is fixed when it is made).
func NameFile(err error, files ...string) error {
	name := strings.Join(files, ", ")
	if name == "" {
		return err
	}
	var ee *EmptyError
	var fe *FormatError
	if errors.As(err, &ee) {
		if ee.File == "" {
			ee.File = name
		}
	} else if errors.As(err, &fe) && fe.File == "" {
		fe.File = name
	}
	return err
}

// NoDuration is the error of an analysis asked of a trace without
// duration, whose events all sit at one instant (SimGrid's platform-only
// traces: every event at t = 0), when no window was given: its window
// would be empty. The way out is spelled as keyword arguments, which the
// command line writes as its flags (--start, --end).
func NoDuration(at float64) *ArgumentError {
	return Argument("window", "the trace has no duration (all its events are at t = %s s); give a window (start=, end=) to model it",
		strconv.FormatFloat(at, 'g', -1, 64))
}

// NoDurationEnd is NoDuration when a start was given without an end: the
// window's end is then the trace's end, its one instant, and no start
// makes a window of it (a message of "0.5-0 s outside the trace" said
// what, not why).
func NoDurationEnd(at float64) *ArgumentError {
	return Argument("window", "the trace has no duration (all its events are at t = %s s), so a start without an end leaves no window: give an end (end=) too",
		strconv.FormatFloat(at, 'g', -1, 64))
}

// MaxQuote is the most bytes of an input's text an error message quotes:
// a bad field may be a line of gigabytes, or a system file's first line.
const MaxQuote = 64

// MaxMessage bounds the length of an error message: whatever a reader
// quoted, the message stays readable (and a field of 200 MB is not copied
// into it twice over on its way to Python).
const MaxMessage = 4096

// Cap cuts message to MaxMessage bytes, saying so.
func Cap(message string) string {
	if len(message) <= MaxMessage {
		return message
	}
	cut := MaxMessage
	for cut > 0 && !utf8.RuneStart(message[cut]) {
		cut--
	}
	return message[:cut] + "... (message cut: " + strconv.Itoa(len(message)) + " bytes)"
}

// Quote returns s as a Go-quoted string for an error message, cut to its
// first MaxQuote bytes (at a character boundary) and followed by its
// length when longer: every error quoting a field of an input does it
// through Quote.
func Quote(s string) string {
	if len(s) <= MaxQuote {
		return strconv.Quote(s)
	}
	cut := MaxQuote
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "... (" + strconv.Itoa(len(s)) + " bytes)"
}

// Excerpt returns s unquoted, cut as Quote cuts it: for a field that
// reads as a word of the message (a record's kind).
func Excerpt(s string) string {
	if len(s) <= MaxQuote {
		return s
	}
	cut := MaxQuote
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "... (" + strconv.Itoa(len(s)) + " bytes)"
}

// QuoteBytes is Quote for bytes (without copying them all).
func QuoteBytes(b []byte) string {
	if len(b) <= MaxQuote {
		return strconv.Quote(string(b))
	}
	cut := MaxQuote
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return strconv.Quote(string(b[:cut])) + "... (" + strconv.Itoa(len(b)) + " bytes)"
}
