package chrome

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// An idSet holds the ids it was made of and no other, dense (a bitmap)
// or not, the extreme int64 values included.
func TestIDSet(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 1))
	for trial := range 200 {
		n := r.IntN(300)
		spread := []int64{2, 100, 1 << 40, math.MaxInt64}[trial%4]
		base := []int64{0, -50, math.MinInt64, math.MaxInt64 - 1000}[trial/4%4]
		ids := make([]int64, n)
		want := map[int64]bool{}
		for i := range ids {
			ids[i] = base + r.Int64N(spread)%1000*(spread/1000+1)
			want[ids[i]] = true
		}
		s := newIDSet(slices.Clone(ids))
		if (s.bits != nil) == (s.sorted != nil) && n > 0 {
			t.Fatalf("trial %d: both forms or neither", trial)
		}
		probes := append(slices.Clone(ids), math.MinInt64, math.MaxInt64, 0, -1, base-1, base+spread)
		for range 200 {
			probes = append(probes, base+r.Int64N(spread)%1000*(spread/1000+1)+r.Int64N(3)-1)
		}
		for _, p := range probes {
			if s.has(p) != want[p] {
				t.Fatalf("trial %d (%d ids, bitmap %v): has(%d) = %v", trial, n, s.bits != nil, p, s.has(p))
			}
		}
	}
}

// flowID reads a flow id as strconv.ParseInt does, whatever its form.
func TestFlowIDAsParseInt(t *testing.T) {
	for _, id := range []string{"0", "7", "328", "123456789012345", "1234567890123456", "9223372036854775807",
		"9223372036854775808", "007", "-5", "+5", "", "0x1f", "12a", " 1", "1.5", "-9223372036854775808"} {
		n, ok := flowID(id)
		want, err := strconv.ParseInt(id, 10, 64)
		if ok != (err == nil) || ok && n != want {
			t.Errorf("flowID(%q) = %d, %v; ParseInt gives %d, %v", id, n, ok, want, err)
		}
	}
}
