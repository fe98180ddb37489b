package compare

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// corpus is the shared trace corpus, from the repository root.
var corpus = filepath.Join("..", "..", "..", "..", "shared", "traces")

func opsOf(t *testing.T, path string) *OpsSummary {
	t.Helper()
	full := filepath.Join(corpus, path)
	if _, err := os.Stat(full); err != nil {
		t.Skipf("corpus trace %s absent: %v", path, err)
	}
	sink := NewOpsSink()
	if err := formats.Read(full, "chrome", sink, trace.ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	return sink.Summary()
}

// TestOpsEqualHTA checks the per-operation table against HTA TraceDiff's
// compare_traces on the corpus's Kineto pairs (testdata/hta_tracediff),
// row by row: names in HTA's order, counts and durations (microseconds)
// exactly.
func TestOpsEqualHTA(t *testing.T) {
	const data = "hta/tests/data/"
	base, test := opsOf(t, data+"trace_compare/base/base.json.gz"), opsOf(t, data+"trace_compare/test/test.json.gz")
	control, treated := opsOf(t, data+"trace_diff/control/control.json.gz"), opsOf(t, data+"trace_diff/test/test.json.gz")
	if len(control.Iterations) != 6 || control.Iterations[0] != 1009 {
		t.Errorf("control iterations %v", control.Iterations)
	}
	cases := []struct {
		prefix string
		a, b   *OpsSummary
		opt    OpsOptions
	}{
		{"compare1010", base, test, OpsOptions{Iterations: [2][]int64{{1010}, {1010}}, ShortNames: true}},
		{"tracediff_first", control, treated, OpsOptions{}},
		{"tracediff_all", control, treated, OpsOptions{All: true}},
	}
	for _, c := range cases {
		for _, dev := range []Device{AllDevices, CPU, GPU} {
			opt := c.opt
			opt.Device = dev
			got, err := Ops(c.a, c.b, opt)
			if err != nil {
				t.Fatal(err)
			}
			want := readOracle(t, filepath.Join("testdata", "hta_tracediff", c.prefix+"_compare_"+string(dev)+".csv"))
			if len(got) != len(want) {
				t.Errorf("%s %s: %d rows, HTA %d", c.prefix, dev, len(got), len(want))
				continue
			}
			bad := 0
			for i, w := range want {
				g := got[i]
				if g.Name != w.Name || g.Counts != w.Counts || g.Durations != w.Durations || g.DiffCounts != w.DiffCounts ||
					g.DiffDur != w.DiffDur || g.Change != w.Change {
					if bad++; bad <= 3 {
						t.Errorf("%s %s row %d: %+v, HTA %+v", c.prefix, dev, i, g, w)
					}
				}
			}
		}
	}
}

func readOracle(t *testing.T, path string) []Op {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return v
	}
	var out []Op
	for _, r := range recs[1:] {
		out = append(out, Op{Name: r[0], Counts: [2]float64{num(r[1]), num(r[3])}, Durations: [2]float64{num(r[2]), num(r[4])},
			DiffCounts: num(r[5]), DiffDur: num(r[6]), Change: r[7]})
	}
	return out
}

func TestShortName(t *testing.T) {
	for name, want := range map[string]string{
		"aten::empty": "aten::empty",
		"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)": "at::native::vectorized_elementwise_kernel",
		"Memcpy HtoD (Pageable -> Device)": "Memcpy HtoD (Pageable -> Device)",
		"std::vector<int> f(int) const":    "const",
	} {
		if got := ShortName(name); got != want {
			t.Errorf("ShortName(%q) = %q, want %q", name, got, want)
		}
	}
}
