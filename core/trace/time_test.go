package trace

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/swar"
)

func TestParseTime(t *testing.T) {
	cases := []struct {
		in   string
		want Time
	}{
		{"0", 0},
		{"12", 12 * Second},
		{"-0.5", -Second / 2},
		{"+1.000000001", Second + 1},
		{"1205", 1205 * Second},
		{"1.25e-3", 1_250_000},
		{"1E2", 100 * Second},
		{"0.0000000015", 2},   // half away from zero
		{"-0.0000000015", -2}, // symmetric
		{"0.0000000014999", 1},
		{"1700000000.123456789", 1_700_000_000_123_456_789},
		{".5", Second / 2},
		{"5.", 5 * Second},
	}
	for _, c := range cases {
		got, err := ParseTime(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseTime(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "-", ".", "abc", "1..2", "0x10", "inf", "NaN", "1e400", "1_000", "1/2", "9300000000"} {
		if got, err := ParseTime(bad); err == nil {
			t.Errorf("ParseTime(%q) = %d, want an error", bad, got)
		}
	}
}

func TestTimeSecondsAndString(t *testing.T) {
	if got := Time(1_500_000_001).Seconds(); got != 1.500000001 {
		t.Errorf("Seconds = %v", got)
	}
	if s := Time(-1_500_000_001).String(); s != "-1.500000001" {
		t.Errorf("String = %q", s)
	}
	if s := Time(7).String(); s != "0.000000007" {
		t.Errorf("String = %q", s)
	}
	if _, ok := FromSeconds(math.NaN()); ok {
		t.Error("FromSeconds(NaN) accepted")
	}
	if v, ok := FromSeconds(2.5); !ok || v != 2_500_000_000 {
		t.Errorf("FromSeconds(2.5) = %d, %v", v, ok)
	}
}

func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"0", "1.5", "-2e3", "1700000000.123456789", "1e-12",
		"0.000817", "12.345678", "1234567.123456789", ".1234567", "1234567.", "0.12345678x", "-0.000817", "00000.000000001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseTime(s)
		// The form for a field's bytes gives the same time and error.
		if vb, errb := ParseTimeBytes([]byte(s)); vb != v || fmt.Sprint(errb) != fmt.Sprint(err) {
			t.Fatalf("ParseTimeBytes(%q) = %d, %v; ParseTime %d, %v", s, vb, errb, v, err)
		}
		if err != nil {
			return
		}
		// Whatever parses must agree with the float reading to within the
		// float's own precision.
		want, _ := FromSeconds(mustFloat(t, s))
		if d := float64(v - want); math.Abs(d) > 1+math.Abs(float64(want))*1e-15 {
			t.Fatalf("ParseTime(%q) = %d, float reading %d", s, v, want)
		}
	})
}

// decimal is swar.Decimal as a time.
func decimal(b []byte) (Time, bool) {
	ns, ok := swar.Decimal(b)
	return Time(ns), ok
}

// TestShortDecimal compares the word-at-a-time reading (swar.Decimal) of the common form
// with parsePlain's on numbers of every shape it takes and near it: every
// length from 8 to 16 bytes, the point anywhere, bytes that are not digits
// anywhere.
func TestShortDecimal(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte("0123456789.-+e ,x/:")
	taken := 0
	for range 400_000 {
		b := make([]byte, 8+r.IntN(9))
		for i := range b {
			b[i] = byte('0' + r.IntN(10))
		}
		b[r.IntN(len(b))] = '.'
		if r.IntN(3) == 0 {
			b[r.IntN(len(b))] = alphabet[r.IntN(len(alphabet))]
		}
		got, ok := decimal(b)
		want, wantOK := parsePlain(b)
		if ok && (!wantOK || got != want) {
			t.Fatalf("swar.Decimal(%q) = %d; parsePlain %d, %v", b, got, want, wantOK)
		}
		if ok {
			taken++
		}
	}
	if taken < 100_000 {
		t.Errorf("the fast path read only %d numbers", taken)
	}
	for _, s := range []string{"0.000817", "12.345678", "123456.123456789", ".12345678", "0.123456789"} {
		if _, ok := decimal([]byte(s)); !ok {
			t.Errorf("swar.Decimal(%q) left it to parsePlain", s)
		}
	}
}
