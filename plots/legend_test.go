package plots

import (
	"fmt"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Time axes read the window in the unit that keeps its length between 1
// and 10,000, from the trace's start (the origin), which the label names
// when it is not the clock's zero (they counted from the window's start
// on absolute clocks before one clock counted every time from the
// trace's start).
func TestTimeAxis(t *testing.T) {
	kineto := trace.Time(1695835542481129000) // ns since the Unix epoch
	for _, c := range []struct {
		origin     trace.Time
		start, end trace.Time
		unit       float64
		label      string
	}{
		{0, 0, 8503801000, 1e-3, "time (ms)"},
		{0, 0, 20 * trace.Second, 1, "time (s)"},
		{0, 0, 40 * 1000, 1e-6, "time (µs)"},
		{0, 0, 900, 1e-9, "time (ns)"},
		{kineto, kineto, kineto + 43*trace.Second, 1, "time (s) since the trace's start at 1695835542.481129 s"},
		{kineto, kineto, kineto + 300*1000*1000, 1e-3, "time (ms) since the trace's start at 1695835542.481129 s"},
		// A window late in the trace: values stay readable (no 1e7 ms),
		// so seconds.
		{0, 50 * trace.Second, 51 * trace.Second, 1, "time (s)"},
		{kineto, kineto + 50*trace.Second, kineto + 51*trace.Second, 1, "time (s) since the trace's start at 1695835542.481129 s"},
	} {
		u, l := TimeAxis(c.origin, c.start, c.end)
		if u != c.unit || l != c.label {
			t.Errorf("[%v, %v] from %v: %v %q, want %v %q", c.start, c.end, c.origin, u, l, c.unit, c.label)
		}
	}
}

// The origin is always labelled when the axis holds it.
func TestZeroTicks(t *testing.T) {
	for _, r := range [][2]float64{{0, 8503.8}, {-0.2, 11.58}, {0, 0.043}} {
		found := false
		for _, tk := range (zeroTicks{}).Ticks(r[0], r[1]) {
			if tk.Value == 0 && tk.Label != "" {
				found = true
			}
		}
		if !found {
			t.Errorf("%v: no labelled 0", r)
		}
	}
	for _, tk := range (zeroTicks{}).Ticks(5, 10) {
		if tk.Value == 0 {
			t.Error("a 0 tick outside the axis")
		}
	}
}

// Legend names that differ only past their start (GPU kernels of a
// Kineto trace) stay distinct once fitted to the legend's width, and fit
// it; cut at the end (the old way) they all read
// "void cutlass::Kernel<cutlass…".
func TestLegendNamesStayApart(t *testing.T) {
	sty := draw.TextStyle{Font: labelFont, Handler: plot.DefaultTextHandler}
	width := legendWidth - gap - labelFont.Size - 3
	names := []string{
		"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>(Params)",
		"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x6_nn_align4>(Params)",
		"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x128_16x3_tn_align4>(Params)",
		"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x256_16x3_nt_align4>(Params)",
		"aten::mm",
		"void at::native::(anonymous namespace)::elementwise_kernel<128, 2>(int)",
		"void at::native::(anonymous namespace)::vectorized_elementwise_kernel<4>(int)",
	}
	before := map[string]bool{}
	for _, n := range names[:4] {
		before[fitText(sty, n, width)] = true
	}
	if len(before) != 1 {
		t.Fatalf("the end-cut kernel names differ: %v; the test no longer shows the problem", before)
	}
	got := fitDistinct(sty, names, width)
	seen := map[string]string{}
	for i, s := range got {
		if w := sty.Width(s); w > width {
			t.Errorf("%q is %v wide, more than %v", s, w, width)
		}
		if other, ok := seen[s]; ok {
			t.Errorf("%q and %q both read %q", other, names[i], s)
		}
		seen[s] = names[i]
	}
	if got[4] != "aten::mm" {
		t.Errorf("a short name was cut: %q", got[4])
	}
	if want := "void cu…128x128_32x3_nn…"; got[0] != want {
		t.Errorf("got %q, want %q", got[0], want)
	}
	t.Logf("%q", got)
}

// Tick labels carry no padding zeros: gonum labels a 0-800 ms axis
// "0.00, 250.00, 500.00, 750.00" when its step is not a power of ten.
func TestZeroTicksTrimmed(t *testing.T) {
	var got []string
	for _, tk := range (zeroTicks{}).Ticks(0, 798) {
		if tk.Label != "" {
			got = append(got, tk.Label)
		}
	}
	if fmt.Sprint(got) != "[0 250 500 750]" {
		t.Errorf("labels %v", got)
	}
	for in, want := range map[string]string{"4425.00": "4425", "0.50": "0.5", "1e+06": "1e+06", "10": "10", "0.00": "0"} {
		if got := trimZeros(in); got != want {
			t.Errorf("trimZeros(%q) = %q, want %q", in, got, want)
		}
	}
}
