package pjdump

import (
	"math"
	"strconv"
)

// appendFixed appends v as C's "%.*f" with prec decimals, which pj_dump
// uses for the times and values of entities ("%.6f" unless -l). strconv
// rounds exactly, as glibc does.
func appendFixed(b []byte, v float64, prec int) []byte {
	if s, ok := nonFinite(v); ok {
		return append(b, s...)
	}
	return strconv.AppendFloat(b, v, 'f', prec, 64)
}

// appendShortest appends v as a C++ stream prints a double by default (six
// significant digits, like C's "%g"), which pj_dump uses on Container lines.
// Go's 'g' format with precision 6 chooses between fixed and exponent forms
// and trims zeros exactly as C does, and writes exponents with at least two
// digits, as C does.
func appendShortest(b []byte, v float64) []byte {
	if s, ok := nonFinite(v); ok {
		return append(b, s...)
	}
	return strconv.AppendFloat(b, v, 'g', 6, 64)
}

// nonFinite spells infinities and NaN as glibc does.
func nonFinite(v float64) (string, bool) {
	switch {
	case math.IsInf(v, 1):
		return "inf", true
	case math.IsInf(v, -1):
		return "-inf", true
	case math.IsNaN(v):
		if math.Signbit(v) {
			return "-nan", true
		}
		return "nan", true
	}
	return "", false
}
