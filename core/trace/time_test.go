package trace

import (
	"fmt"
	"math"
	"testing"
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
	for _, s := range []string{"0", "1.5", "-2e3", "1700000000.123456789", "1e-12"} {
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
