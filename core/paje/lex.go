package paje

import (
	"bytes"
	"errors"
	"math"
	"strconv"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// splitFields splits an event line into its blank-separated fields. A field
// that starts with a double quote runs to the next double quote and may hold
// blanks; the quotes are not part of the field, and quoted[i] records them.
// An unquoted field that starts with '#' begins a comment, as in PajeNG.
// Fields alias line, which the caller must not modify while they are in use.
func splitFields(line []byte, fields [][]byte, quoted []bool) ([][]byte, []bool, error) {
	fields, quoted = fields[:0], quoted[:0]
	i := 0
	for {
		for i < len(line) && isBlank(line[i]) {
			i++
		}
		if i == len(line) || line[i] == '#' {
			return fields, quoted, nil
		}
		if line[i] == '"' {
			end := bytes.IndexByte(line[i+1:], '"')
			if end < 0 {
				return fields, quoted, errors.New("unterminated quoted string")
			}
			fields = append(fields, line[i+1:i+1+end])
			quoted = append(quoted, true)
			i += end + 2
			if i < len(line) && !isBlank(line[i]) {
				return fields, quoted, errors.New("quoted string followed by text without a blank")
			}
			continue
		}
		start := i
		for i < len(line) && !isBlank(line[i]) {
			i++
		}
		fields = append(fields, line[start:i])
		quoted = append(quoted, false)
	}
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }

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
		for i++; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
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
