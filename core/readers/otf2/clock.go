package otf2

import (
	"math"
	"math/bits"
	"strconv"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// timeBase converts OTF2 timestamps (ticks of the global clock) to trace
// time: nanoseconds since the trace's global offset.
type timeBase struct {
	offset     uint64 // ticks at time 0
	resolution uint64 // ticks per second, never 0
}

// toTime returns (ticks - offset) * 1e9 / resolution rounded to the nearest
// nanosecond, halves away from zero. The product is kept exact in 128 bits,
// so no tick count loses precision. It reports false when the result does
// not fit a trace.Time (more than 292 years).
func (tb timeBase) toTime(ticks uint64) (trace.Time, bool) {
	neg := ticks < tb.offset
	mag := ticks - tb.offset
	if neg {
		mag = tb.offset - ticks
	}
	if tb.resolution == 1e9 { // nanosecond ticks, the common case
		if !neg && mag <= math.MaxInt64 {
			return trace.Time(mag), true
		}
		if neg && mag <= 1<<63 {
			return trace.Time(-mag), true
		}
		return 0, false
	}
	hi, lo := bits.Mul64(mag, 1e9)
	if hi >= tb.resolution { // the quotient would not fit 64 bits
		return 0, false
	}
	q, r := bits.Div64(hi, lo, tb.resolution)
	if r >= tb.resolution-r { // 2r >= resolution, without overflow
		q++
	}
	switch {
	case !neg && q <= math.MaxInt64:
		return trace.Time(q), true
	case neg && q <= 1<<63:
		return trace.Time(-q), true // -(2^63) wraps to MinInt64, as wanted
	}
	return 0, false
}

func itoa(v uint64) string { return strconv.FormatUint(v, 10) }
