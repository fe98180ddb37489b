package plots

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// The time view's colour bar reads round values in a readable unit, in
// order, without overlapping labels: the qsort spawn tree of the notebooks
// starts at 77.696 µs and ends at 782.592 µs, which the bar used to label
// "7.7696e-05, 0.00025392, ..., 0.000782592" (five fixed fractions).
func TestColourBarTicks(t *testing.T) {
	sty := draw.TextStyle{Font: kalFont, Handler: plot.DefaultTextHandler}
	for _, c := range []struct {
		t0, t1 float64
		head   string
		labels []string
	}{
		{7.7696e-05, 0.000782592, "start time (µs)", []string{"100", "400", "700"}},
		{0, 0.798, "start time (ms)", []string{"0", "250", "500", "750"}},
		// A Kineto clock (Unix epoch): from the trace's start, which it
		// says (it read from the first start of the view, before one clock
		// counted every time from the trace's start).
		{1682725897.2267468, 1682725900.594091, "start time (ms) since the trace's start at 1682725897.22674688 s", []string{"0", "1000", "2000", "3000"}},
	} {
		origin := trace.Time(0)
		if c.t0 > 1e6 {
			origin = trace.Time(math.Round(c.t0 * 1e9))
		}
		head, ticks := colourBarTicks(origin, c.t0, c.t1)
		if head != c.head {
			t.Errorf("[%v, %v]: heading %q, want %q", c.t0, c.t1, head, c.head)
		}
		var labels []string
		prev := -1.0
		for _, tk := range ticks {
			labels = append(labels, tk.Label)
			if tk.Value < 0 || tk.Value > 1 || tk.Value <= prev {
				t.Errorf("[%v, %v]: tick at %v of the bar (previous %v)", c.t0, c.t1, tk.Value, prev)
			}
			prev = tk.Value
			if _, err := strconv.ParseFloat(tk.Label, 64); err != nil || len(tk.Label) > 5 {
				t.Errorf("[%v, %v]: label %q is not a short number", c.t0, c.t1, tk.Label)
			}
		}
		if strconv.Quote(fmtList(labels)) != strconv.Quote(fmtList(c.labels)) {
			t.Errorf("[%v, %v]: labels %v, want %v", c.t0, c.t1, labels, c.labels)
		}
		// On the notebooks' bar (about 450 points high) the labels do not
		// overlap: consecutive ones are further apart than a line.
		const barHeight = 450
		for k := 1; k < len(ticks); k++ {
			if gap := (ticks[k].Value - ticks[k-1].Value) * barHeight; gap < float64(sty.Height("0")) {
				t.Errorf("[%v, %v]: labels %q and %q %v points apart", c.t0, c.t1, ticks[k-1].Label, ticks[k].Label, gap)
			}
		}
	}
}

func fmtList(s []string) string {
	out := ""
	for _, x := range s {
		out += x + ","
	}
	return out
}

// The kaleidoscope's names: whole up to 34 runes, else 16 runes, "..." and
// the last 15, counted in runes (not bytes) so that no character is cut.
func TestKaleidoscopeLabel(t *testing.T) {
	long := "void at::native::elementwise_kernel<128, 4>(int)"
	cases := map[string]string{
		"":                      "",
		"MPI_Send":              "MPI_Send",
		strings.Repeat("a", 34): strings.Repeat("a", 34),
		strings.Repeat("a", 35): strings.Repeat("a", 16) + "..." + strings.Repeat("a", 15),
		long:                    "void at::native:...el<128, 4>(int)",
		strings.Repeat("é", 40): strings.Repeat("é", 16) + "..." + strings.Repeat("é", 15),
	}
	for in, want := range cases {
		got := KaleidoscopeLabel(in)
		if got != want {
			t.Errorf("KaleidoscopeLabel(%q) = %q, want %q", in, got, want)
		}
		if n := len([]rune(got)); n > KaleidoscopeLabelRunes {
			t.Errorf("KaleidoscopeLabel(%q) is %d runes", in, n)
		}
	}
}
