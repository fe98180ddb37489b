package paje

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
	"strconv"

	"github.com/macroscope-hpc/macroscope/core/swar"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// span locates a field in a buffer: buf[from:to]; hash is its hashKey,
// for the lookups of identifiers, once eventDef.hashKeys has set it. A
// field the file wrote between double quotes (which the span excludes)
// follows a '"' in the buffer (see quoted): sixteen bytes a field, the
// memory the tokenizers write and the simulation reads.
type span struct {
	from, to uint32
	hash     uint64
}

// quoted tells whether the file wrote the field s locates in buf between
// double quotes. An unquoted field follows a blank or starts its line:
// appendFields refuses text right after a closing quote.
func (s span) quoted(buf []byte) bool { return s.from > 0 && buf[s.from-1] == '"' }

// maxBuffer bounds the buffers fields are located in: spans hold 32-bit
// offsets. Lines in longer buffers (a line of 4 GB...) are read alone.
// Lengths are compared as uint64, so that the constant fits where int is
// 32 bits.
const maxBuffer = 1<<32 - 1

// appendFields splits the event line buf[pos:end] into its blank-separated
// fields. A field that starts with a double quote runs to the next double
// quote and may hold blanks; the quotes are not part of the field. An
// unquoted field that starts with '#' begins a comment, as in PajeNG.
func appendFields(buf []byte, pos, end int, spans []span) ([]span, error) {
	i := pos
	for {
		for i < end && blank[buf[i]] {
			i++
		}
		if i == end || buf[i] == '#' {
			return spans, nil
		}
		if buf[i] == '"' {
			n := bytes.IndexByte(buf[i+1:end], '"')
			if n < 0 {
				return spans, errors.New("unterminated quoted string")
			}
			from := i + 1
			i = from + n
			spans = append(spans, span{from: uint32(from), to: uint32(i)})
			i++
			if i < end && !blank[buf[i]] {
				return spans, errors.New("quoted string followed by text without a blank")
			}
			continue
		}
		from := i
		i = fieldEnd(buf, i+1, end)
		spans = append(spans, span{from: uint32(from), to: uint32(i)})
	}
}

// fieldEnd returns the index of the first blank of buf[i:end], or end. It
// looks eight bytes at a time for a byte below '!' (blanks are; so is the
// '\n' that ends a line) and may read past end, within buf.
func fieldEnd(buf []byte, i, end int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for i+8 <= len(buf) {
		x := binary.LittleEndian.Uint64(buf[i:])
		if m := (x - 0x21*ones) &^ x & highs; m != 0 {
			// The lowest flagged byte is below '!'; those above it may
			// be flagged by the borrow: look at this one only.
			j := i + bits.TrailingZeros64(m)/8
			if j >= end {
				return end
			}
			if blank[buf[j]] {
				return j
			}
			i = j + 1
			continue
		}
		if i += 8; i >= end {
			return end
		}
	}
	for i < end && !blank[buf[i]] {
		i++
	}
	return i
}

// fieldList returns the fields spans locate in buf, for error texts.
func fieldList(buf []byte, spans []span) [][]byte {
	out := make([][]byte, len(spans))
	for i, s := range spans {
		out[i] = buf[s.from:s.to]
	}
	return out
}

// blank tells the bytes that separate fields.
var blank = [256]bool{' ': true, '\t': true, '\r': true, '\v': true, '\f': true}

// parseDate reads a Time field: decimal seconds, exact to the nanosecond.
func parseDate(b []byte) (trace.Time, error) {
	if t, ok := parseDatePlain(b); ok {
		return t, nil
	}
	if hugeExponent(b) {
		// Exact conversion of 1e-99999999 would take forever; no date
		// written in seconds needs such an exponent.
		return 0, &fieldError{"time", string(b), errors.New("exponent out of range")}
	}
	t, err := trace.ParseTime(string(b))
	if err != nil {
		return 0, &fieldError{"time", string(b), err}
	}
	return t, nil
}

// hugeExponent tells whether a number's decimal exponent exceeds 40 in size.
func hugeExponent(b []byte) bool {
	i := bytes.IndexAny(b, "eE")
	if i < 0 {
		return false
	}
	e := b[i+1:]
	if len(e) > 0 && (e[0] == '-' || e[0] == '+') {
		e = e[1:]
	}
	e = bytes.TrimLeft(e, "0")
	return len(e) > 2 || (len(e) == 2 && string(e) > "40")
}

// parseDatePlain is the allocation-free path of trace.ParseTime for the
// common form [-]digits[.digits] with at most nine decimals.
func parseDatePlain(b []byte) (trace.Time, bool) {
	if t, ok := nineDecimals(b); ok {
		return t, true
	}
	i, neg := 0, false
	if i < len(b) && (b[i] == '-' || b[i] == '+') {
		neg = b[i] == '-'
		i++
	}
	var whole uint64
	digits := 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		whole = whole*10 + uint64(b[i]-'0')
		digits++
		if whole > 9e9 {
			return 0, false
		}
	}
	var frac uint64
	scale := uint64(1e9)
	if i < len(b) && b[i] == '.' {
		i++
		if i+8 <= len(b) {
			if v, ok := eightDigits(b[i:]); ok {
				frac, scale = v*10, 10
				digits += 8
				i += 8
			}
		}
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			if scale == 1 {
				// Decimals past the ninth: zeros change nothing, others
				// need rounding, which the slow path does.
				if b[i] != '0' {
					return 0, false
				}
				continue
			}
			scale /= 10
			frac += uint64(b[i]-'0') * scale
			digits++
		}
	}
	if i != len(b) || digits == 0 {
		return 0, false
	}
	v := trace.Time(whole*1e9 + frac)
	if neg {
		v = -v
	}
	return v, true
}

// nineDecimals reads a date of the most common form, digits, '.' and
// nine decimals, of at most 9e9 seconds; false for any other. stateLines
// reads every date through it. (swar.Decimal, which takes other forms
// too, costs more instructions on these: 128 M against 88 M for 30 MB of
// the generated trace.)
func nineDecimals(b []byte) (trace.Time, bool) {
	n := len(b)
	if n < 11 || n > 20 || b[n-10] != '.' || b[n-1]-'0' > 9 {
		return 0, false
	}
	frac, ok := eightDigits(b[n-9:])
	var whole uint64
	for _, c := range b[:n-10] {
		ok = ok && c-'0' <= 9
		whole = whole*10 + uint64(c-'0')
	}
	if !ok || whole > 9e9 {
		return 0, false
	}
	return trace.Time(whole*1e9 + frac*10 + uint64(b[n-1]-'0')), true
}

// eightDigits reads the eight decimal digits at the start of b (which has
// at least eight bytes) at once.
func eightDigits(b []byte) (uint64, bool) {
	x := binary.LittleEndian.Uint64(b)
	return swar.EightDigits(x), swar.NonDigits(x) == 0
}

// parseValue reads a variable's value. single rounds it to float32 first,
// as PajeNG does (it reads values with strtof).
func parseValue(b []byte, single bool) (float64, error) {
	bits := 64
	if single {
		bits = 32
	}
	v, err := strconv.ParseFloat(string(b), bits)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange && single && !math.IsInf(v, 0) {
			err = nil // underflow to zero or a subnormal, as strtof gives
		} else if single && errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			err = nil // overflow to infinity, as strtof gives
		}
		if err != nil {
			return 0, &fieldError{"number", string(b), err}
		}
	}
	if math.IsNaN(v) || (!single && math.IsInf(v, 0)) {
		return 0, &fieldError{"number", string(b), errors.New("not a finite number")}
	}
	return v, nil
}

// fieldError reports a field that does not parse.
type fieldError struct {
	what  string
	field string
	err   error
}

func (e *fieldError) Error() string {
	err := e.err
	var ne *strconv.NumError
	if errors.As(err, &ne) {
		err = ne.Err
	}
	return "bad " + e.what + " " + strconv.Quote(e.field) + ": " + err.Error()
}
