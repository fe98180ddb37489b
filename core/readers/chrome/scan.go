package chrome

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
)

// maxNesting bounds the depth of nested arrays and objects the scanner
// accepts, so that hostile input cannot exhaust the stack.
const maxNesting = 512

// scanner reads JSON tokens from a stream without building values. It keeps
// a window of the input in buf; token slices it returns alias that window
// (or scratch) and stay valid only until the next call.
type scanner struct {
	file    string
	r       io.Reader // nil when the whole input is in buf
	buf     []byte
	pos     int   // next unread byte
	end     int   // bytes of buf holding input
	base    int64 // input offset of buf[0]
	line    int   // line of buf[pos], from 1
	keep    int   // first byte of a token being read, kept on refill; -1 if none
	hold    int   // first byte of a value being captured whole; -1 if none
	eof     bool
	readErr error // the reader's error, if it failed before the end
	scratch []byte
	// truncated tells that the last failure was the input ending (or its
	// compressed stream being cut) in the middle of something, the mark of
	// a trace whose writer stopped abruptly, rather than damage.
	truncated bool
	// lenient tells that the input was seen to use what Perfetto's parser
	// tolerates and JSON does not (trailing commas, raw control characters
	// in strings), so that argument text kept for a sink is made strict.
	lenient bool
	// slowOnly turns the fast paths off, for tests that compare them
	// with the ordinary one.
	slowOnly bool
	// whole is the input mapped in memory, if it is (see decodeMapped):
	// buf is all of it and fill moves end a window further. in counts
	// the bytes the windows passed, for progress, and tells of
	// cancellation (on a stream, fill reports the progress it counts);
	// dropped is the end of the pages given back (see release).
	// weigh, if set, is told of the window's growth past windowSize (a
	// value of hundreds of megabytes: a decompression bomb's string)
	// before the bigger window is made (trace.ReadOptions.Hold); weighed
	// is what it was told. Its error stops the read.
	weigh   func(int64) error
	weighed int64
	whole   []byte
	in      *countingReader
	dropped int
}

// The scanner's window starts small, so that small traces cost little to
// read, and doubles as it fills up to windowSize, where reads are large
// enough to cost nothing much per byte; it grows further only for a token
// longer than that.
const (
	firstWindow = 4 << 10
	windowSize  = 256 << 10
)

// MaxValue bounds the length of one token or captured value (a name, an
// event's arguments): a few kilobytes in real traces. A string of
// gigabytes (a decompression bomb's) stops the read with an error
// instead of a window of its size.
const MaxValue = 256 << 20

// errTooLong is the cause of the error on a value past MaxValue.
var errTooLong = fmt.Errorf("a value runs past %d MiB without its end: more than a trace's value may hold", MaxValue>>20)

func newScanner(file string, r io.Reader) *scanner {
	return &scanner{file: file, r: r, buf: make([]byte, firstWindow), line: 1, keep: -1, hold: -1}
}

// newBytesScanner scans b, which starts on the given line of file.
func newBytesScanner(file string, b []byte, line int) *scanner {
	return &scanner{file: file, buf: b, end: len(b), line: line, keep: -1, hold: -1, eof: true}
}

// unweigh tells weigh that the window is given back.
func (s *scanner) unweigh() {
	if s.weigh != nil && s.weighed != 0 {
		s.weigh(-s.weighed)
		s.weighed = 0
	}
}

// inputEnd is the offset of the end of the input read so far: the input's
// length once it is all read.
func (s *scanner) inputEnd() int64 { return s.base + int64(s.end) }

// offset is the input offset of the next unread byte.
func (s *scanner) offset() int64 { return s.base + int64(s.pos) }

// fail reports a problem at the current position. The line is given only
// past the first: traces are often written on one line, where the byte
// offset is what locates the problem.
func (s *scanner) fail(format string, args ...any) error {
	s.truncated = false
	line := s.line
	if line == 1 {
		line = 0
	}
	return &errs.FormatError{File: s.file, Line: line, AtOffset: true, Offset: s.offset(), Err: fmt.Errorf(format, args...)}
}

// failEnd reports input that stops in the middle of something.
func (s *scanner) failEnd(what string) error {
	var err error
	if s.readErr != nil {
		cause := s.readErr
		if errors.Is(cause, io.ErrUnexpectedEOF) || errors.Is(cause, ingest.ErrTruncated) {
			cause = ingest.ErrTruncated
		}
		err = s.fail("reading %s: %w", what, cause)
	} else {
		err = s.fail("input ends inside %s", what)
	}
	s.truncated = s.readErr == nil || errors.Is(s.readErr, io.ErrUnexpectedEOF) || errors.Is(s.readErr, ingest.ErrTruncated)
	return err
}

// fill reads more input into buf, keeping the bytes from the earliest of
// pos, keep and hold. It reports false at the end of the input.
func (s *scanner) fill() bool {
	if s.eof || s.readErr != nil {
		return false
	}
	if s.whole != nil {
		return s.fillMapped()
	}
	from := s.pos
	if s.keep >= 0 && s.keep < from {
		from = s.keep
	}
	if s.hold >= 0 && s.hold < from {
		from = s.hold
	}
	if from > 0 {
		n := copy(s.buf, s.buf[from:s.end])
		s.base += int64(from)
		s.pos -= from
		s.end = n
		if s.keep >= 0 {
			s.keep -= from
		}
		if s.hold >= 0 {
			s.hold -= from
		}
	}
	// Every fill below windowSize doubles the window: each one means a
	// window's worth was read, so the input is at least that long. (Growing
	// only when the unread rest filled half the window kept it at its
	// first few kilobytes for good, since an event is far shorter: the
	// events that straddle a window's end take the ordinary path, one in
	// twenty on Kineto traces.)
	if s.end == len(s.buf) || len(s.buf) < windowSize {
		if 2*len(s.buf) > MaxValue+windowSize {
			s.readErr = errTooLong
			return false
		}
		size := 2 * len(s.buf)
		if s.weigh != nil && size > windowSize {
			// The old window is alive during the copy: both weigh.
			if err := s.weigh(int64(size)); err != nil {
				s.weigh(-int64(size))
				s.readErr = err
				return false
			}
			s.weigh(-s.weighed)
			s.weighed = int64(size)
		}
		grown := make([]byte, size)
		copy(grown, s.buf[:s.end])
		s.buf = grown
	}
	for range 100 {
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		if s.in != nil && !s.in.quiet {
			s.in.report()
		}
		if err == io.EOF {
			s.eof = true
		} else if err != nil {
			s.readErr = err
		}
		if n > 0 {
			return true
		}
		if err != nil {
			return false
		}
	}
	s.readErr = io.ErrNoProgress
	return false
}

// spaces is eight spaces read as a little-endian word.
const spaces = 0x2020202020202020

// peek skips blanks and returns the next byte without consuming it; ok is
// false at the end of the input.
func (s *scanner) peek() (c byte, ok bool) {
	for {
		for s.pos < s.end {
			c := s.buf[s.pos]
			if c > ' ' {
				return c, true
			}
			switch c {
			case '\n':
				s.line++
				// Indentation follows: pass its spaces eight at a time.
				for s.pos+9 <= s.end && binary.LittleEndian.Uint64(s.buf[s.pos+1:s.pos+9]) == spaces {
					s.pos += 8
				}
			case ' ', '\t', '\r':
			default:
				return c, true
			}
			s.pos++
		}
		if !s.fill() {
			return 0, false
		}
	}
}

// expect consumes the byte c, after blanks.
func (s *scanner) expect(c byte, where string) error {
	got, ok := s.peek()
	if !ok {
		return s.failEnd(where)
	}
	if got != c {
		return s.fail("expected %q in %s, found %s", c, where, describe(got))
	}
	s.pos++
	return nil
}

// describe names a byte for error messages.
func describe(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("%q", c)
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

// nextObject passes the ',' after a member of an array and the blanks
// after it, if any, when the next member is an object that follows in
// one of the layouts writers use: ",{" (compact), ",\n{" (one event a
// line) and ",\n  {" (Kineto's, indented by two spaces). The checks and
// calls of peek and closesAfterComma come to the same. It reports false,
// consuming nothing, otherwise, and near the end of the buffer.
func (s *scanner) nextObject() bool {
	i := s.pos
	if i+8 > s.end {
		return false
	}
	// One load for all layouts: a file in another layout pays a few
	// masked compares, where byte compares cost it more.
	w := binary.LittleEndian.Uint64(s.buf[i : i+8])
	switch {
	case w&0xffff == ','|'{'<<8:
		s.pos = i + 1
	case w&0xffffff == ','|'\n'<<8|'{'<<16:
		s.pos = i + 2
		s.line++
	case w&0xffffffffff == ','|'\n'<<8|' '<<16|' '<<24|'{'<<32:
		s.pos = i + 4
		s.line++
	default:
		return false
	}
	return true
}

// closesAfterComma consumes close if it comes right after the comma just
// read: a trailing comma, as in {"a":1,} or [{...},], which is not JSON
// but which Perfetto's parser accepts and hand-edited or concatenated
// traces contain.
func (s *scanner) closesAfterComma(close byte) bool {
	if c, ok := s.peek(); ok && c == close {
		s.pos++
		s.lenient = true
		return true
	}
	return false
}

// stringSpecial marks the bytes a string scan must look at: the closing
// quote, backslash, control characters and the bytes of multi-byte UTF-8.
var stringSpecial = func() (t [256]bool) {
	for c := range t {
		t[c] = c == '"' || c == '\\' || c < 0x20 || c >= 0x80
	}
	return
}()

// str reads a string and returns its decoded bytes.
func (s *scanner) str() ([]byte, error) { return s.scanString(true) }

// scanString reads a string token; when decode is false it only validates
// it and returns nil.
func (s *scanner) scanString(decode bool) ([]byte, error) {
	c, ok := s.peek()
	if !ok {
		return nil, s.failEnd("a string")
	}
	if c != '"' {
		return nil, s.fail("expected a string, found %s", describe(c))
	}
	s.pos++
	s.keep = s.pos
	i := s.pos
	escaped, wide := false, false
	for {
		if i >= s.end {
			off := i - s.keep
			if !s.fill() {
				s.keep = -1
				return nil, s.failEnd("a string")
			}
			i = s.keep + off
			continue
		}
		if i = plainRun(s.buf[:s.end], i); i >= s.end {
			continue
		}
		c := s.buf[i]
		if !stringSpecial[c] {
			i++
			continue
		}
		if c == '"' {
			break
		}
		switch {
		case c == '\\':
			escaped = true
			i += 2
			continue
		case c < 0x20:
			// A raw control character (a newline copied from a log
			// line) is not JSON, but Perfetto and the trace viewers'
			// lenient parsers keep it in the string, and so do we.
			s.lenient = true
			i++
			continue
		}
		wide = true
		i++
	}
	tok := s.buf[s.keep:i]
	s.keep = -1
	if wide && !utf8.Valid(tok) {
		return nil, s.fail("string is not valid UTF-8")
	}
	s.pos = i + 1
	if !escaped {
		if !decode {
			return nil, nil
		}
		return tok, nil
	}
	out, err := unescape(tok, s.scratch[:0])
	if err != nil {
		return nil, s.fail("%v", err)
	}
	s.scratch = out
	return out, nil
}

// unescape appends the decoded form of a string body with escapes to out.
// Escaped UTF-16 surrogates that do not pair become U+FFFD, as in
// encoding/json.
func unescape(tok, out []byte) ([]byte, error) {
	for i := 0; i < len(tok); {
		c := tok[i]
		if c != '\\' {
			out = append(out, c)
			i++
			continue
		}
		if i+1 >= len(tok) {
			return out, errors.New("string ends with a lone backslash")
		}
		e := tok[i+1]
		i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(tok[i:])
			if !ok {
				return out, errors.New(`bad \u escape in a string`)
			}
			i += 4
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if i+1 < len(tok) && tok[i] == '\\' && tok[i+1] == 'u' {
					if v, ok := hex4(tok[i+2:]); ok {
						r2 = v
					}
				}
				if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
					r = dec
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			return out, fmt.Errorf("bad escape %s in a string", describe(e))
		}
	}
	return out, nil
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// number reads a number token and returns its text.
func (s *scanner) number() ([]byte, error) {
	if _, ok := s.peek(); !ok {
		return nil, s.failEnd("a number")
	}
	s.keep = s.pos
	i := s.pos
	atEnd := false
	for {
		if i >= s.end {
			off := i - s.keep
			more := s.fill() // moves the window, even when it finds no more input
			i = s.keep + off
			if !more {
				atEnd = true
				break
			}
			continue
		}
		if numberByte(s.buf[i]) {
			i++
			continue
		}
		break
	}
	tok := s.buf[s.keep:i]
	s.keep = -1
	if !validNumber(tok) {
		if atEnd {
			s.pos = i
			return nil, s.failEnd("a number")
		}
		return nil, s.fail("bad number %s", errs.QuoteBytes(tok))
	}
	s.pos = i
	return tok, nil
}

// validNumber checks the JSON number grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func validNumber(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(b) && b[i] == '0' {
		i++
	} else if digits() == 0 {
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(b)
}

// literal consumes the keyword word (true, false or null).
func (s *scanner) literal(word string) error {
	for s.end-s.pos < len(word) {
		if !s.fill() {
			break
		}
	}
	if n := s.end - s.pos; n < len(word) && string(s.buf[s.pos:s.end]) == word[:n] {
		s.pos = s.end
		return s.failEnd("a literal")
	}
	if s.end-s.pos < len(word) || string(s.buf[s.pos:s.pos+len(word)]) != word {
		return s.fail("bad literal, expected %s", word)
	}
	s.pos += len(word)
	return nil
}

// skip consumes one value of any kind, checking its syntax.
func (s *scanner) skip(depth int) error {
	// The fast path is tried for the values the decoder skips, not again
	// for each of their members when it failed (at the end of the window):
	// that would read a deep value once per level.
	if depth <= 1 && !s.slowOnly {
		if end, lines, lenient, ok := skipFast(s.buf[:s.end], s.pos, depth); ok {
			s.pos, s.line = end, s.line+lines
			s.lenient = s.lenient || lenient
			return nil
		}
	}
	return s.skipSlow(depth)
}

// skipSlow is skip without the fast path.
func (s *scanner) skipSlow(depth int) error {
	c, ok := s.peek()
	if !ok {
		return s.failEnd("a value")
	}
	switch {
	case c == '{' || c == '[':
		if depth >= maxNesting {
			return s.fail("values nested more than %d deep", maxNesting)
		}
		return s.skipContainer(c, depth)
	case c == '"':
		_, err := s.scanString(false)
		return err
	case c == '-' || (c >= '0' && c <= '9'):
		_, err := s.number()
		return err
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return s.fail("expected a value, found %s", describe(c))
}

func (s *scanner) skipContainer(open byte, depth int) error {
	close, what := byte(']'), "an array"
	if open == '{' {
		close, what = '}', "an object"
	}
	s.pos++
	c, ok := s.peek()
	if !ok {
		return s.failEnd(what)
	}
	if c == close {
		s.pos++
		return nil
	}
	for {
		if open == '{' {
			if _, err := s.scanString(false); err != nil {
				return err
			}
			if err := s.expect(':', what); err != nil {
				return err
			}
		}
		if err := s.skip(depth + 1); err != nil {
			return err
		}
		c, ok := s.peek()
		if !ok {
			return s.failEnd(what)
		}
		s.pos++
		if c == close {
			return nil
		}
		if c != ',' {
			s.pos--
			return s.fail("expected ',' or %q in %s, found %s", close, what, describe(c))
		}
		if s.closesAfterComma(close) {
			return nil
		}
	}
}

// capture consumes one value and returns a copy of its text, appended to
// dst, together with the line it starts on.
func (s *scanner) capture(dst []byte) ([]byte, int, error) {
	if _, ok := s.peek(); !ok {
		return dst, 0, s.failEnd("a value")
	}
	line := s.line
	s.hold = s.pos
	err := s.skip(0)
	if err == nil {
		dst = append(dst, s.buf[s.hold:s.pos]...)
	}
	s.hold = -1
	return dst, line, err
}

// strictJSON rewrites JSON text that uses the leniencies the scanner
// accepts into JSON: commas before '}' or ']' are dropped and control
// characters inside strings are escaped. Other text is returned as is.
func strictJSON(b []byte) []byte {
	var out []byte
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			switch {
			case c == '\\' && i+1 < len(b):
				out = append(out, c, b[i+1])
				i++
				continue
			case c == '"':
				inString = false
			case c < 0x20:
				out = append(out, fmt.Sprintf("\\u%04x", c)...)
				continue
			}
			out = append(out, c)
			continue
		}
		switch c {
		case '"':
			inString = true
		case ',':
			j := i + 1
			for j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == '\n' || b[j] == '\r') {
				j++
			}
			if j < len(b) && (b[j] == '}' || b[j] == ']') {
				continue
			}
		}
		out = append(out, c)
	}
	return out
}
