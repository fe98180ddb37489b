package paraver

import (
	"fmt"
	"math"
	"strconv"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// eventValue is the value of a Paraver event: Extrae writes it as an
// unsigned 64-bit integer (hardware counters, addresses), other writers
// sometimes as a negative one. It is kept exactly, as its magnitude and
// sign, so that 18446744073709551615 and -1 stay two different values
// (Paraver's own kernel stores both in one int64_t, where they collide).
type eventValue struct {
	mag uint64
	neg bool
}

func (v eventValue) String() string {
	s := strconv.FormatUint(v.mag, 10)
	if v.neg {
		return "-" + s
	}
	return s
}

// parseEventValue parses an event value: an integer from -2^63 to
// 2^64-1, decimal digits with an optional minus sign.
func parseEventValue(b []byte) (eventValue, error) {
	digits := b
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		digits = b[1:]
	}
	if len(digits) == 0 {
		return eventValue{}, fmt.Errorf("event value %s is not an integer", errs.QuoteBytes(b))
	}
	var v uint64
	over := false
	for _, c := range digits {
		if c < '0' || c > '9' {
			return eventValue{}, fmt.Errorf("event value %s is not an integer", errs.QuoteBytes(b))
		}
		d := uint64(c - '0')
		if v > (math.MaxUint64-d)/10 {
			over = true
		}
		v = v*10 + d
	}
	if over {
		return eventValue{}, fmt.Errorf("value %s is out of range for an unsigned 64-bit event value", b)
	}
	if neg {
		if v > 1<<63 {
			return eventValue{}, fmt.Errorf("value %s is out of range for a 64-bit event value (the least is -9223372036854775808)", b)
		}
		if v == 0 {
			neg = false // -0 is 0
		}
	}
	return eventValue{mag: v, neg: neg}, nil
}
