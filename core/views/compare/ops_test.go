package compare

import (
	"encoding/csv"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
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
			got, warnings, err := Ops(c.a, c.b, opt)
			if err != nil {
				t.Fatal(err)
			}
			// HTA's table of iteration 1010 on the GPU has the control's
			// kernels only: the test's iteration 1010 has none, which
			// the warning says (HTA says nothing).
			var wantWarnings []string
			if c.prefix == "compare1010" && dev == GPU {
				wantWarnings = []string{"the test run has no GPU operation in iteration 1010: its counts are zeros"}
			}
			if !slices.Equal(warnings, wantWarnings) {
				t.Errorf("%s %s: warnings %q, want %q", c.prefix, dev, warnings, wantWarnings)
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
		{Type: 1, Name: "ProfilerStep#5", Category: "user_annotation", Role: trace.RoleStep, Step: 5}, // 0
		{Type: 1, Name: "ProfilerStep#9", Category: "gpu_user_annotation"},                            // 1: a copy, no role
		{Type: 1, Name: "cudaLaunchKernel", Category: "cuda_runtime", Role: trace.RoleLaunchCall},
		{Type: 1, Name: "k", Category: "kernel"},
		{Type: 2, Name: "launch"},
	} {
		s.DefineValue(v)
	}
	state := func(c, v int32, start, end trace.Time, on int32) {
		s.State(trace.State{Container: c, Type: 1, Value: v, Start: start, End: end})
		if on >= 0 {
			s.StateStream(len(s.records)-1, on)
		}
	}
	state(host, 0, 100, 200, -1)
	state(host, 2, 150, 160, -1)
	state(stream, 1, 300, 400, 7)
	state(host, 2, 310, 320, -1) // in the copy's span, in no step
	state(stream, 3, 305, 306, 7)
	s.Link(trace.Link{Type: 2, Value: 4, Start: 151, End: 305, From: host, To: stream})
	sum := s.Summary()
	if len(sum.Iterations) != 1 || sum.Iterations[0] != 5 {
		t.Errorf("iterations %v, want [5]", sum.Iterations)
	}
	ops, warnings, err := Ops(sum, sum, OpsOptions{})
	if err != nil || len(warnings) > 0 {
		t.Fatal(err, warnings)
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
		ops, warnings, err := Ops(s, s, OpsOptions{All: true})
		if err != nil || len(warnings) > 0 {
			t.Fatal(err, warnings)
		}
		if len(ops) != 1 || ops[0].Durations != [2]float64{1, 1} || ops[0].Counts != [2]float64{10, 10} {
			t.Fatalf("got %+v, want 10 counts of 1 µs", ops)
		}
	}
}

// renamingSink passes a trace on to an OpsSink with every value's name and
// category replaced by a number (an empty category stays empty) and no
// arguments: what the ops table is made of must come from the roles, the
// steps' numbers and the streams the reader gives, not from the names
// ("ProfilerStep#N"), the categories ("Trace") or the args ("stream")
// of Kineto's files.
type renamingSink struct {
	*OpsSink
	names   map[string]string // new name -> the file's
	renamed map[string]string // the file's name -> new
}

func (r *renamingSink) DefineValue(v trace.Value) {
	// One name for each of the file's names: the table sums the values
	// of a name (in several categories, of several types).
	n, ok := r.renamed[v.Name]
	if !ok {
		n = fmt.Sprintf("name %d", len(r.renamed))
		r.renamed[v.Name] = n
		r.names[n] = v.Name
	}
	v.Name = n
	if v.Category != "" {
		v.Category = fmt.Sprintf("category %d", len(r.OpsSink.names))
	}
	r.OpsSink.DefineValue(v)
}

// TestOpsReadNoNames: the ops of Kineto traces are the same, cell by cell,
// when every name and category is replaced by a number and no argument is
// given (on main, compare parsed ProfilerStep#N, skipped category
// "Trace" and read args.stream: no iteration at all then). The traces hold
// Kineto's stream -1 written 4294967295 (simple_add), a host call with a
// stream (triton_example), and steps of six iterations (trace_diff).
func TestOpsReadNoNames(t *testing.T) {
	for _, path := range []string{"hta/tests/data/trace_diff/control/control.json.gz",
		"hta/tests/data/critical_path/simple_add/benchmark_result_493459_1694039959_trace.json.gz",
		"hta/tests/data/triton_example/triton_example.json.gz", "hta/tests/data/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz"} {
		full := filepath.Join(corpus, path)
		if _, err := os.Stat(full); err != nil {
			t.Skipf("corpus trace %s absent: %v", path, err)
		}
		want := opsOf(t, path)
		r := &renamingSink{OpsSink: NewOpsSink(), names: map[string]string{}, renamed: map[string]string{}}
		if err := formats.Read(full, "chrome", r, trace.ReadOptions{}); err != nil {
			t.Fatal(err)
		}
		got := r.Summary()
		if !slices.Equal(got.Iterations, want.Iterations) || len(want.Iterations) == 0 && !strings.Contains(path, "simple_add") {
			t.Errorf("%s: iterations %v renamed, %v as read", path, got.Iterations, want.Iterations)
		}
		cells := map[opKey]opCell{}
		gpu := 0
		for k, c := range got.cells {
			k.name = r.names[k.name]
			cells[k] = c
			if k.gpu {
				gpu++
			}
		}
		if !maps.Equal(cells, want.cells) || gpu == 0 {
			t.Errorf("%s: %d cells (%d on GPU) renamed, %d as read", path, len(cells), gpu, len(want.cells))
		}
	}
}

// TestOpsSayWhy: where the table would be empty or zeros for want of what
// it counts, Ops says so, naming the file: an Nsight Systems trace (its
// reader gives no categories: no operation), a Kineto trace without steps
// (simple_add: operations in no iteration; its 837 are the events of
// phase X with a category other than Kineto's span, counted with Python's
// json module), an iteration a run lacks, a device a run has nothing of.
func TestOpsSayWhy(t *testing.T) {
	const data = "hta/tests/data/"
	read := func(path, format string) *OpsSummary {
		full := filepath.Join(corpus, path)
		if _, err := os.Stat(full); err != nil {
			t.Skipf("corpus trace %s absent: %v", path, err)
		}
		sink := NewOpsSink()
		if err := formats.Read(full, format, sink, trace.ReadOptions{}); err != nil {
			t.Fatal(err)
		}
		s := sink.Summary()
		s.File = filepath.Base(path)
		return s
	}
	nsys := read("nsys/h100_2gpu_1s.sqlite", "nsys")
	simple := read(data+"critical_path/simple_add/benchmark_result_493459_1694039959_trace.json.gz", "chrome")
	base := read(data+"trace_compare/base/base.json.gz", "chrome")
	cpu := read(data+"cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz", "chrome")
	for _, c := range []struct {
		a, b *OpsSummary
		opt  OpsOptions
		err  string
	}{
		{base, nsys, OpsOptions{All: true}, "h100_2gpu_1s.sqlite: no operator-level states to compare (states of a category, as Kineto's cpu_op, cuda_runtime and kernel): HTA TraceDiff's operations are those of PyTorch profiler (Kineto) traces, and this trace's reader gives its states no category"},
		{nsys, base, OpsOptions{}, "h100_2gpu_1s.sqlite: no operator-level states"},
		{simple, base, OpsOptions{}, "iteration: benchmark_result_493459_1694039959_trace.json.gz has no iteration: none of its 837 operations is in a step of PyTorch's profiler (ProfilerStep#N), by which HTA's TraceDiff counts them"},
	} {
		_, _, err := Ops(c.a, c.b, c.opt)
		if err == nil || !strings.HasPrefix(err.Error(), c.err) {
			t.Errorf("%+v: %v, want %s", c.opt, err, c.err)
		}
	}
	// All the iterations of a run that has none: its counts are zeros.
	rows, warnings, err := Ops(base, simple, OpsOptions{All: true})
	if want := []string{"benchmark_result_493459_1694039959_trace.json.gz has no iteration: none of its 837 operations is in a step of " +
		"PyTorch's profiler (ProfilerStep#N), by which HTA's TraceDiff counts them: its counts are zeros"}; err != nil || len(rows) == 0 ||
		!slices.Equal(warnings, want) {
		t.Errorf("all iterations of a run without: %d rows, %q, %v", len(rows), warnings, err)
	}
	for _, r := range rows {
		if r.Counts[1] != 0 {
			t.Errorf("%+v: counts of a run without iterations", r)
		}
	}
	var empty *errs.EmptyError
	if _, _, err := Ops(base, nsys, OpsOptions{}); !errors.As(err, &empty) || empty.File != "h100_2gpu_1s.sqlite" {
		t.Errorf("no operations: %#v, want an EmptyError naming the file", err)
	}
	// base has iterations 1009-1010, cpu_only one; an iteration one run
	// lacks, the GPU of a CPU-only run: a table, with the reason of its
	// zeros.
	if !slices.Equal(base.Iterations, []int64{1009, 1010}) || len(cpu.Iterations) != 1 {
		t.Fatalf("iterations %v, %v", base.Iterations, cpu.Iterations)
	}
	cpuIt := cpu.Iterations[0]
	for _, c := range []struct {
		opt  OpsOptions
		want []string
	}{
		{OpsOptions{Iterations: [2][]int64{{1010}, {1010}}}, []string{fmt.Sprintf(
			"rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz has no iteration 1010 (its iterations: %d): its counts there are zeros", cpuIt)}},
		{OpsOptions{Iterations: [2][]int64{{1008, 1009, 1010, 1012}, {cpuIt}}}, []string{
			"base.json.gz has no iterations 1008, 1012 (its iterations: 1009-1010): its counts there are zeros"}},
		{OpsOptions{Device: GPU, All: true}, []string{fmt.Sprintf(
			"rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz has no GPU operation in iteration %d: its counts are zeros", cpuIt)}},
		{OpsOptions{Device: CPU, All: true}, nil},
	} {
		rows, warnings, err := Ops(base, cpu, c.opt)
		if err != nil || len(rows) == 0 {
			t.Fatalf("%+v: %d rows, %v", c.opt, len(rows), err)
		}
		if !slices.Equal(warnings, c.want) {
			t.Errorf("%+v: warnings %q, want %q", c.opt, warnings, c.want)
		}
	}
}
