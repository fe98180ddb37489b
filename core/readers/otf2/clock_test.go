package otf2

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

func TestToTimeMatchesBigArithmetic(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	resolutions := []uint64{1, 3, 1e6, 1e9, 2095197216, 3699958577, 1e12, math.MaxUint64}
	for i := 0; i < 20000; i++ {
		res := resolutions[i%len(resolutions)]
		offset := rng.Uint64() >> rng.IntN(64)
		ticks := rng.Uint64() >> rng.IntN(64)
		got, ok := timeBase{offset, res}.toTime(ticks)
		want := nanosBig(ticks, offset, res)
		if ok != want.fits {
			t.Fatalf("ticks %d offset %d resolution %d: ok=%v, want %v", ticks, offset, res, ok, want.fits)
		}
		if ok && got != want.t {
			t.Fatalf("ticks %d offset %d resolution %d: got %d, want %d", ticks, offset, res, got, want.t)
		}
	}
}

type bigResult struct {
	t    trace.Time
	fits bool
}

func nanosBig(ticks, offset, res uint64) bigResult {
	q := nanosExact(ticks, offset, res)
	return bigResult{trace.Time(q.Int64()), q.IsInt64()}
}

func TestToTimeRounding(t *testing.T) {
	tb := timeBase{offset: 1000, resolution: 2e9} // one tick is half a nanosecond
	for _, c := range []struct {
		ticks uint64
		want  trace.Time
	}{
		{1000, 0}, {1001, 1}, {1002, 1}, {1003, 2}, // halves round away from zero
		{999, -1}, {998, -1}, {997, -2},
	} {
		if got, ok := tb.toTime(c.ticks); !ok || got != c.want {
			t.Errorf("toTime(%d) = %d, %v; want %d", c.ticks, got, ok, c.want)
		}
	}
	// Times span [-2^63, 2^63-1] ns exactly.
	ns := timeBase{offset: 1 << 63, resolution: 1e9}
	if got, ok := ns.toTime(math.MaxUint64); !ok || got != math.MaxInt64 {
		t.Errorf("toTime(2^64-1) = %d, %v; want 2^63-1", got, ok)
	}
	if got, ok := ns.toTime(0); !ok || got != math.MinInt64 {
		t.Errorf("toTime(0) = %d, %v; want -2^63", got, ok)
	}
	if _, ok := (timeBase{offset: 0, resolution: 1e9}).toTime(1 << 63); ok {
		t.Error("2^63 ns should not fit")
	}
	if _, ok := (timeBase{offset: 0, resolution: 1}).toTime(math.MaxUint64); ok {
		t.Error("2^64-1 s should not fit")
	}
}

// TestClockCorrection checks the linear interpolation of clock offsets and
// its rounding to even, which the OTF2 library applies.
func TestClockCorrection(t *testing.T) {
	cc := clockCorrection{intervals: []clockInterval{
		{begin: 1000, end: 2000, offset: -30, slope: 11.0 / 1000},
		{begin: 2000, end: 4000, offset: -19, slope: 0},
	}}
	for _, c := range []struct{ in, want uint64 }{
		{500, 500 - 30 - 6},    // before the first interval: -5.5 rounds to -6
		{1000, 970},            // at a synchronisation point
		{1500, 1500 - 30 + 6},  // 5.5 rounds to 6 (even)
		{1250, 1250 - 30 + 3},  // 2.75 rounds to 3
		{2000, 2000 - 30 + 11}, // the end of the first interval belongs to it
		{2001, 2001 - 19},
		{9000, 9000 - 19}, // after the last interval, it extends
	} {
		if got := cc.apply(c.in); got != c.want {
			t.Errorf("apply(%d) = %d, want %d", c.in, got, c.want)
		}
	}
	var none clockCorrection
	if got := none.apply(42); got != 42 {
		t.Errorf("no offsets: apply(42) = %d", got)
	}
}
