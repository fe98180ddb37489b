package chrome

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"

	"github.com/macroscope-hpc/macroscope/core/swar"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// The fast paths of the scanner look at eight bytes at a time (SWAR: SIMD
// within a register), in portable Go. Each of them only ever accepts: on
// anything unusual (an error, a value cut by the end of the window, more
// nesting than it tracks) it reports failure and the scanner reads the
// same bytes again on its ordinary path, which makes the decisions and
// writes the error messages. So a fast path changes no result, only the
// time it takes.
//
// Words are loaded from b[i:i+8], not b[i:]: given both bounds, the
// compiler checks them once and builds no slice (5% fewer instructions in
// the event reader).

const (
	lows  = 0x0101010101010101
	highs = 0x8080808080808080
)

// stringStops marks, in the eight bytes of w (little-endian), those a
// string scan must stop at: '"', '\\', control characters and the bytes of
// multi-byte UTF-8. The lowest marked byte is exact; the ones above it may
// be false marks, so only the lowest is used.
//
// A byte x - 0x01 has its high bit set when x is zero, the usual test of
// a zero byte, and also when x is 0x81 or above, which that test excludes
// with "&^ x": here no exclusion is needed, since a byte of w from 0x80 up
// makes at least one of q, b and w - 0x20 that large (q and b are 0x80
// for different bytes of w, 0xa2 and 0xdc), and it is to be marked.
// Below the lowest mark no byte borrows, so that one is exact.
func stringStops(w uint64) uint64 {
	q := w ^ (lows * '"')
	b := w ^ (lows * '\\')
	return ((q - lows) | (b - lows) | (w - lows*0x20)) & highs
}

// plainRun returns the index of the first byte at or after i in b that a
// string scan must stop at (see stringStops), or the largest index past
// which fewer than eight bytes remain.
func plainRun(b []byte, i int) int {
	for i+8 <= len(b) {
		if m := stringStops(binary.LittleEndian.Uint64(b[i : i+8])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	return i
}

// skipStringFast passes the rest of a string whose opening quote is
// before b[i], as scanString does without decoding: escapes are passed,
// not checked, raw control characters make the input lenient, and a
// string with multi-byte characters must be valid UTF-8. It returns the
// index after the closing quote.
func skipStringFast(b []byte, i int) (end int, lenient, ok bool) {
	from, wide, escaped := i, false, false
	for {
		i = plainRun(b, i)
		if i >= len(b) {
			return 0, false, false
		}
		switch c := b[i]; {
		case c == '"':
			if wide && !utf8.Valid(b[from:i]) || escaped && !validEscapes(b[from:i]) {
				return 0, false, false
			}
			return i + 1, lenient, true
		case c == '\\':
			escaped = true
			i += 2
		case c < 0x20:
			lenient = true
			i++
		case c >= 0x80:
			wide = true
			i++
		default:
			i++ // a false mark cannot be the lowest; kept for safety
		}
	}
}

// validEscapes tells whether unescape accepts the escapes of a string's
// body.
func validEscapes(tok []byte) bool {
	for i := 0; i < len(tok); {
		if tok[i] != '\\' {
			i++
			continue
		}
		if i+1 >= len(tok) {
			return false
		}
		e := tok[i+1]
		i += 2
		switch e {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		case 'u':
			if _, ok := hex4(tok[i:]); !ok {
				return false
			}
			i += 4
		default:
			return false
		}
	}
	return true
}

// skipSpace is skipBlanks after a ':' or a ',', where most writers put
// a single space: that one is passed before the loop, whose first turn
// then ends it.
func skipSpace(b []byte, i, lines int) (int, int) {
	if i < len(b) && b[i] == ' ' {
		i++
	}
	return skipBlanks(b, i, lines)
}

// skipBlanks passes blanks, counting newlines.
func skipBlanks(b []byte, i, lines int) (int, int) {
	for i < len(b) {
		c := b[i]
		if c > ' ' {
			return i, lines
		}
		if c == '\n' {
			lines++
		} else if c != ' ' && c != '\t' && c != '\r' {
			return i, lines
		}
		i++
	}
	return i, lines
}

// numberEnd returns the index after the number token at b[i], checking
// the JSON grammar in the same pass, if it is valid and followed, before
// the end of b, by a byte that cannot continue it: the token the scanner's
// ordinary path would read (see scanner.number and validNumber).
func numberEnd(b []byte, i int) (int, bool) {
	if j, ok := shortNumberEnd(b, i); ok {
		return j, true
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return 0, false
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		i = digitRun(b, i+1)
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		from := i
		i = digitRun(b, i)
		if i == from {
			return 0, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		from := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == from {
			return 0, false
		}
	}
	if i >= len(b) || numberBytes[b[i]] {
		return 0, false
	}
	return i, true
}

// shortNumberEnd is numberEnd for a non-negative integer of one to seven
// digits, told from one word: pids, tids and most arguments. (A leading
// zero only alone, as JSON has it.) It is inlined where numbers are read
// most, which then call numberEnd only when it reports false.
func shortNumberEnd(b []byte, i int) (int, bool) {
	if i+8 > len(b) {
		return 0, false
	}
	w := binary.LittleEndian.Uint64(b[i : i+8])
	n := bits.TrailingZeros64(swar.NonDigits(w)) >> 3
	if byte(w) == '0' {
		n = 1 // a digit after it is then refused as the number's next byte
	}
	return i + n, n&7 != 0 && !numberBytes[byte(w>>(8*n))] // n from 1 to 7
}

// digitRun returns the index of the first byte at or after i in b that is
// not an ASCII digit, len(b) if there is none: timestamps of thirteen
// digits and more pass in two steps.
func digitRun(b []byte, i int) int {
	for i+8 <= len(b) {
		if m := swar.NonDigits(binary.LittleEndian.Uint64(b[i : i+8])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// fastStack is how deep skipFast follows nesting before it leaves a value
// to the ordinary path.
const fastStack = 64

// skipFast passes the value that starts, after blanks, at b[i], as
// scanner.skip does at the given depth, if it lies whole in b and is
// valid: it returns the index after it, the newlines passed and whether
// the value used a leniency (a comma before a closing bracket, a raw
// control character in a string). ok is false otherwise, and then the
// scanner's ordinary path must read the value.
func skipFast(b []byte, i, depth int) (end, lines int, lenient, ok bool) {
	var closers [fastStack]byte
	n := 0
	var c byte
value:
	if i, lines = skipSpace(b, i, lines); i >= len(b) {
		return 0, 0, false, false
	}
	switch c = b[i]; {
	case c == '{' || c == '[':
		if depth+n >= maxNesting || n == fastStack {
			return 0, 0, false, false
		}
		close := byte(']')
		if c == '{' {
			close = '}'
		}
		closers[n] = close
		n++
		if i, lines = skipBlanks(b, i+1, lines); i >= len(b) {
			return 0, 0, false, false
		}
		if b[i] == close {
			i++
			n--
			goto after
		}
		if close == '}' {
			goto key
		}
		goto value
	case c == '"':
		var l, found bool
		if i, l, found = skipStringFast(b, i+1); !found {
			return 0, 0, false, false
		}
		lenient = lenient || l
		goto after
	case c == '-' || (c >= '0' && c <= '9'):
		// A number that reaches the end of the window may go on past it.
		var valid bool
		if j, short := shortNumberEnd(b, i); short {
			i = j
			goto after
		}
		if i, valid = numberEnd(b, i); !valid {
			return 0, 0, false, false
		}
		goto after
	case c == 't':
		if !hasWord(b, i, "true") {
			return 0, 0, false, false
		}
		i += 4
		goto after
	case c == 'f':
		if !hasWord(b, i, "false") {
			return 0, 0, false, false
		}
		i += 5
		goto after
	case c == 'n':
		if !hasWord(b, i, "null") {
			return 0, 0, false, false
		}
		i += 4
		goto after
	}
	return 0, 0, false, false
key:
	if b[i] != '"' {
		return 0, 0, false, false
	}
	{
		var l, found bool
		if i, l, found = skipStringFast(b, i+1); !found {
			return 0, 0, false, false
		}
		lenient = lenient || l
	}
	if i, lines = skipBlanks(b, i, lines); i >= len(b) || b[i] != ':' {
		return 0, 0, false, false
	}
	i++
	goto value
after:
	if n == 0 {
		return i, lines, lenient, true
	}
	if i, lines = skipBlanks(b, i, lines); i >= len(b) {
		return 0, 0, false, false
	}
	c = b[i]
	if c == closers[n-1] {
		i++
		n--
		goto after
	}
	if c != ',' {
		return 0, 0, false, false
	}
	if i, lines = skipSpace(b, i+1, lines); i >= len(b) {
		return 0, 0, false, false
	}
	if b[i] == closers[n-1] { // a trailing comma
		lenient = true
		i++
		n--
		goto after
	}
	if closers[n-1] == '}' {
		goto key
	}
	goto value
}

// numberByte tells whether c may be part of a number token.
func numberByte(c byte) bool {
	return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// numberBytes is numberByte as a table: one load where the end of every
// number is checked.
var numberBytes = func() (t [256]bool) {
	for c := range t {
		t[c] = numberByte(byte(c))
	}
	return
}()

// hasWord tells whether b holds word at i.
func hasWord(b []byte, i int, word string) bool {
	return len(b)-i >= len(word) && string(b[i:i+len(word)]) == word
}

// microsFast reads the number of microseconds at b[i] in the form nearly
// every writer uses, [-]digits[.digits] with at most 16 digits before the
// point, in one pass: numberEnd's check of the token and parseMicros's
// conversion together, the digits found and converted eight at a time. It
// reports false for anything else (an exponent, a token reaching the end
// of b...), and then numberEnd and parseMicros decide.
func microsFast(b []byte, i int) (trace.Time, int, bool) {
	neg := false
	if i < len(b) && b[i] == '-' {
		neg = true
		i++
	}
	if i+16 > len(b) {
		return 0, 0, false
	}
	whole, n, ok := wholeMicros(binary.LittleEndian.Uint64(b[i:i+8]), binary.LittleEndian.Uint64(b[i+8:i+16]))
	if !ok {
		return 0, 0, false
	}
	i += n
	ns := int64(whole) * 1000
	if i < len(b) && b[i] == '.' {
		i++
		var frac int64
		if frac, i, ok = fracNanos(b, i); !ok {
			return 0, 0, false
		}
		ns += frac
	}
	if i >= len(b) || numberBytes[b[i]] {
		return 0, 0, false
	}
	if neg {
		ns = -ns
	}
	return trace.Time(ns), i, true
}

// wholeMicros converts the integer part of a number whose first sixteen
// bytes are w1 and w2: it returns its value and its number of digits, if
// it has one to sixteen, no leading zero unless alone, and a value of at
// most microsLimit. (The byte after sixteen digits may be one more.)
func wholeMicros(w1, w2 uint64) (uint64, int, bool) {
	m1 := swar.NonDigits(w1)
	n := bits.TrailingZeros64(m1) >> 3 // 8 if all eight are digits
	if n == 0 || (w1&0xff == '0' && n > 1) {
		return 0, 0, false
	}
	if n < 8 { // the bytes past the digits are shifted out
		return swar.EightDigits(w1 << (64 - 8*n)), n, true
	}
	// Eight when all are digits: the caller checks the byte after them.
	k := bits.TrailingZeros64(swar.NonDigits(w2)) >> 3
	whole := swar.EightDigits(w1)*pow10[k] + swar.EightDigits(w2<<(64-8*k)) // k = 0: Go shifts it all out
	if whole > microsLimit {
		return 0, 0, false
	}
	return whole, 8 + k, true
}

// pow10 holds the powers of ten a number of up to eight digits is scaled by.
var pow10 = [9]uint64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8}

// fracNanos converts the fraction of microseconds whose digits start at
// b[i] to nanoseconds, rounding half up past the third digit as
// parseMicros does, and returns the index after its digits; there must be
// at least one.
func fracNanos(b []byte, i int) (int64, int, bool) {
	if i+8 > len(b) {
		return 0, 0, false
	}
	w := binary.LittleEndian.Uint64(b[i : i+8])
	n := bits.TrailingZeros64(swar.NonDigits(w)) >> 3
	if n == 0 {
		return 0, 0, false
	}
	k := min(n, 3)
	frac := int64(swar.EightDigits(w<<(64-8*k)) * pow10[3-k])
	if n > 3 && byte(w>>24) >= '5' {
		frac++
	}
	end := i + n
	if n == 8 {
		end = digitRun(b, end)
	}
	return frac, end, true
}

// microsLimit is the largest whole number of microseconds whose
// nanoseconds, fraction included, fit an int64 (parseMicrosPlain's limit).
const microsLimit = (1<<63 - 1 - 999) / 1000
