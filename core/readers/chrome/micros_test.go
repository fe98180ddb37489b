package chrome

import (
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

func TestParseMicros(t *testing.T) {
	for _, c := range []struct {
		in   string
		want trace.Time
	}{
		{"0", 0},
		{"1", 1000},
		{"-1", -1000},
		{"1234.567", 1234567},
		{"1234.5", 1234500},
		{"3605057436108.407", 3605057436108407}, // Kineto, 16 significant digits
		{"1669783687464181", 1669783687464181000},       // integer microseconds since the epoch
		{"1690409326726943.0", 1690409326726943000},     // PerfFlowAspect
		{"1712195495519689.047", 1712195495519689047},   // beyond float64's 15.9 digits
		{"9223372036854775.807", 9223372036854775807},   // the largest Time
		{"-9223372036854775.807", -9223372036854775807}, // and its opposite
		{"0.0004", 0},
		{"0.0005", 1}, // half away from zero
		{"-0.0005", -1},
		{"0.00149", 1},
		{"2.9999", 3000},
		{"1e3", 1000000},
		{"1.5E-3", 2}, // 1.5 ns
		{"1.2345e2", 123450},
	} {
		got, err := parseMicros([]byte(c.in))
		if err != nil || got != c.want {
			t.Errorf("parseMicros(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "-", "+1", "1e", "1e999", "abc", "1.2.3", "9223372036854775.808", "1e16", "0x10", " 1", "NaN", "inf"} {
		if got, err := parseMicros([]byte(bad)); err == nil {
			t.Errorf("parseMicros(%q) = %d, want an error", bad, got)
		}
	}
}

func TestValidNumber(t *testing.T) {
	for _, ok := range []string{"0", "-0", "12", "1.5", "1e5", "1E+5", "-1.25e-3"} {
		if !validNumber([]byte(ok)) {
			t.Errorf("%q rejected", ok)
		}
	}
	for _, bad := range []string{"", "-", "01", "1.", ".1", "1e", "1e+", "+1", "1-2", "--1", "1.2.3", "1e5e5"} {
		if validNumber([]byte(bad)) {
			t.Errorf("%q accepted", bad)
		}
	}
}
