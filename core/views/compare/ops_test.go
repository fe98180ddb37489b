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

// TestOpsByRoles: the steps are the values the reader gave a step role, not
// any value named ProfilerStep#N, and a GPU operation belongs to the
// iteration of the call its launch link leaves, whatever its arguments
// say (here none names a correlation).
func TestOpsByRoles(t *testing.T) {
	s := NewOpsSink()
	s.DefineType(trace.Type{Name: "Thread", Kind: trace.KindContainer})
	s.DefineType(trace.Type{Name: "Slice", Kind: trace.KindState})
	s.DefineType(trace.Type{Name: "Launch", Kind: trace.KindLink, Role: trace.RoleLaunch})
	const host, stream = 1, 2
	for _, v := range []trace.Value{
		{Type: 1, Name: "ProfilerStep#5", Category: "user_annotation", Role: trace.RoleStep}, // 0
		{Type: 1, Name: "ProfilerStep#9", Category: "gpu_user_annotation"},                   // 1: a copy, no role
		{Type: 1, Name: "cudaLaunchKernel", Category: "cuda_runtime", Role: trace.RoleLaunchCall},
		{Type: 1, Name: "k", Category: "kernel"},
		{Type: 2, Name: "launch"},
	} {
		s.DefineValue(v)
	}
	state := func(c, v int32, start, end trace.Time, args string) {
		s.State(trace.State{Container: c, Type: 1, Value: v, Start: start, End: end})
		if args != "" {
			s.Args(trace.KindState, len(s.records)-1, args)
		}
	}
	state(host, 0, 100, 200, "")
	state(host, 2, 150, 160, "")
	state(stream, 1, 300, 400, `{"stream": 7}`)
	state(host, 2, 310, 320, "") // in the copy's span, in no step
	state(stream, 3, 305, 306, `{"stream": 7}`)
	s.Link(trace.Link{Type: 2, Value: 4, Start: 151, End: 305, From: host, To: stream})
	sum := s.Summary()
	if len(sum.Iterations) != 1 || sum.Iterations[0] != 5 {
		t.Errorf("iterations %v, want [5]", sum.Iterations)
	}
	ops, err := Ops(sum, sum, OpsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, op := range ops {
		got[op.Name] = op.Counts[0]
	}
	want := map[string]float64{"ProfilerStep#5": 1, "cudaLaunchKernel": 1, "k": 1}
	if len(got) != len(want) {
		t.Errorf("step 5 has %v, want %v", got, want)
	}
	for n, c := range want {
		if got[n] != c {
			t.Errorf("step 5 has %v of %q, want %v", got[n], n, c)
		}
	}
}

// TestOpsSumsExactly: a name's durations over several iterations are
// summed in nanoseconds, then converted: ten 0.1 µs add up to 1 µs, in
// whatever order the cells come (a float sum in the map's order gave
// 0.9999999999999999, and last digits that changed from run to run).
func TestOpsSumsExactly(t *testing.T) {
	s := &OpsSummary{cells: map[opKey]opCell{}}
	for it := int64(0); it < 10; it++ {
		s.cells[opKey{"k", it, true}] = opCell{1, 100}
		s.Iterations = append(s.Iterations, it)
	}
	for range 20 {
		ops, err := Ops(s, s, OpsOptions{All: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(ops) != 1 || ops[0].Durations != [2]float64{1, 1} || ops[0].Counts != [2]float64{10, 10} {
			t.Fatalf("got %+v, want 10 counts of 1 µs", ops)
		}
	}
}
