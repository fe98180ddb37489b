package trace

import (
	"errors"
	"math"
	"math/big"
	"strconv"

	"github.com/macroscope-hpc/macroscope/core/swar"
)

// Time is an instant or a duration in nanoseconds of the trace's time unit
// (seconds for Pajé, OTF2 and Paraver once their clock is applied). Integer
// nanoseconds keep long traces free of floating-point drift: a date of
// 1e9 s keeps its last nanosecond, which a float64 cannot.
type Time int64

// Common durations.
const (
	Nanosecond Time = 1
	Second     Time = 1e9
)

// Seconds returns t in seconds. The division is correctly rounded, so for
// |t| < 2^53 it equals strconv.ParseFloat of t's exact decimal form.
func (t Time) Seconds() float64 { return float64(t) / 1e9 }

// FromSeconds converts seconds to Time, rounding to the nearest nanosecond.
// It reports false for NaN, infinities and values out of range.
func FromSeconds(s float64) (Time, bool) {
	ns := math.Round(s * 1e9)
	if math.IsNaN(ns) || ns >= math.MaxInt64 || ns < math.MinInt64 {
		return 0, false
	}
	return Time(ns), true
}

// String formats t as decimal seconds with nine decimals, exactly.
func (t Time) String() string {
	neg := t < 0
	u := uint64(t)
	if neg {
		u = -u
	}
	b := strconv.AppendUint(nil, u/1e9, 10)
	frac := strconv.AppendUint(nil, u%1e9+1e9, 10) // leading "1" keeps the zeros
	b = append(b, '.')
	b = append(b, frac[1:]...)
	if neg {
		return "-" + string(b)
	}
	return string(b)
}

var errTimeSyntax = errors.New("not a number")
var errTimeRange = errors.New("out of range (more than 292 years in nanoseconds)")

// ParseTime parses a decimal number of seconds ("12", "-0.5", "1.25e-3") into
// nanoseconds, rounding half away from zero beyond the ninth decimal. The
// common form, at most nine decimals and no exponent, is converted without
// any floating-point step.
func ParseTime(s string) (Time, error) {
	if t, ok := parsePlain(s); ok {
		return t, nil
	}
	return parseSlow(s)
}

// ParseTimeBytes is ParseTime for a field of a text line: the common form
// is read from the bytes, without the string a conversion would allocate.
func ParseTimeBytes(b []byte) (Time, error) {
	if ns, ok := swar.Decimal(b); ok {
		return Time(ns), nil
	}
	if t, ok := parsePlain(b); ok {
		return t, nil
	}
	return parseSlow(string(b))
}

// parsePlain handles [-+]digits[.digits] with at most 9 decimals.
func parsePlain[S string | []byte](s S) (Time, bool) {
	i, neg := 0, false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	var whole uint64
	digits := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		whole = whole*10 + uint64(s[i]-'0')
		digits++
		if whole > 9e9 { // may overflow int64 nanoseconds: the slow path checks exactly
			return 0, false
		}
	}
	var frac uint64
	scale := uint64(1e9)
	if i < len(s) && s[i] == '.' {
		i++
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			if scale == 1 {
				return 0, false
			}
			scale /= 10
			frac += uint64(s[i]-'0') * scale
			digits++
		}
	}
	if i != len(s) || digits == 0 {
		return 0, false
	}
	v := Time(whole*1e9 + frac)
	if neg {
		v = -v
	}
	return v, true
}

func parseSlow(s string) (Time, error) {
	if len(s) == 0 || len(s) > 400 {
		return 0, errTimeSyntax
	}
	// big.Rat accepts "1.5e-3" exactly; reject what strconv would not
	// accept as a float (hex, fractions "1/2", "inf", "nan").
	if _, err := strconv.ParseFloat(s, 64); err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
			return 0, errTimeRange
		}
		return 0, errTimeSyntax
	}
	for _, c := range s {
		if c == 'x' || c == 'X' || c == 'p' || c == 'P' || c == '_' || c == 'i' || c == 'I' || c == 'n' || c == 'N' {
			return 0, errTimeSyntax
		}
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return 0, errTimeSyntax
	}
	r.Mul(r, big.NewRat(1e9, 1))
	// Round half away from zero: trunc(r + sign(r)/2).
	half := big.NewRat(1, 2)
	if r.Sign() < 0 {
		half.Neg(half)
	}
	r.Add(r, half)
	q := new(big.Int).Quo(r.Num(), r.Denom())
	if !q.IsInt64() {
		return 0, errTimeRange
	}
	return Time(q.Int64()), nil
}
