package chrome

import (
	"errors"
	"strconv"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// parseMicros converts a decimal number of microseconds, as written in the
// file, to nanoseconds. It works on the decimal text, never through a
// float64, so "1669783687464181.123" keeps its last nanosecond; digits past
// the third decimal are rounded half away from zero, like trace.ParseTime.
func parseMicros(b []byte) (trace.Time, error) {
	if t, ok := parseMicrosPlain(b); ok {
		return t, nil
	}
	return parseMicrosExponent(b)
}

// parseMicrosPlain handles [-]digits[.digits], the form every writer we
// know of uses.
func parseMicrosPlain(b []byte) (trace.Time, bool) {
	i, neg := 0, false
	if i < len(b) && b[i] == '-' {
		neg = true
		i++
	}
	const limit = microsLimit
	var whole int64
	digits := 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		whole = whole*10 + int64(b[i]-'0')
		digits++
		if whole > limit {
			return 0, false
		}
	}
	if digits == 0 {
		return 0, false
	}
	ns := whole * 1000
	if i < len(b) && b[i] == '.' {
		i++
		scale, frac, roundUp := int64(100), int64(0), false
		fracDigits := 0
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			d := int64(b[i] - '0')
			switch {
			case fracDigits < 3:
				frac += d * scale
				scale /= 10
			case fracDigits == 3:
				roundUp = d >= 5
			}
			fracDigits++
		}
		if fracDigits == 0 {
			return 0, false
		}
		ns += frac
		if roundUp {
			ns++
		}
	}
	if i != len(b) {
		return 0, false
	}
	if neg {
		ns = -ns
	}
	return trace.Time(ns), true
}

// parseMicrosExponent handles the rare forms with an exponent, and reports
// the errors: it moves the decimal point six places left and lets
// trace.ParseTime, which parses seconds exactly, do the rest.
func parseMicrosExponent(b []byte) (trace.Time, error) {
	s := string(b)
	if len(s) > 100 {
		return 0, errors.New("number too long")
	}
	mant, exp := s, 0
	for i := 0; i < len(s); i++ {
		if s[i] == 'e' || s[i] == 'E' {
			e, err := strconv.Atoi(s[i+1:])
			if err != nil || e > 400 || e < -400 {
				return 0, errors.New("bad exponent")
			}
			mant, exp = s[:i], e
			break
		}
	}
	if mant == "" || mant[0] == '+' {
		return 0, errors.New("not a number")
	}
	t, err := trace.ParseTime(mant + "e" + strconv.Itoa(exp-6))
	if err != nil {
		return 0, err
	}
	return t, nil
}
