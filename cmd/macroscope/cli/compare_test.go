package cli

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/gen/bsp"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
	"github.com/macroscope-hpc/macroscope/core/views/compare"
)

// bspTrace writes a bulk-synchronous run as pj_dump output.
func bspTrace(t *testing.T, dir, name string, sc bsp.Scenario) string {
	t.Helper()
	tr, err := sc.Trace()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := formats.Write(f, tr, "pjdump", nil); err != nil {
		t.Fatal(err)
	}
	return path
}

// The compare command finds the slowed rank first by outlier score, and
// its table holds what package compare computes from the same runs.
func TestCompareCommand(t *testing.T) {
	dir := t.TempDir()
	sc := bsp.Scenario{Ranks: 24, PerNode: 6, Iterations: 60, Noise: 0.02, Seed: 1}
	slow := sc
	slow.Seed, slow.Slow, slow.Slowdown = 2, []int{9}, 0.2
	a, b := bspTrace(t, dir, "a.trace", sc), bspTrace(t, dir, "b.trace", slow)
	out := mustRun(t, "compare", a, b, "--slices", "20", "--p", "0.4", "--rank", "outlier", "--top", "3",
		"--out", dir, "--table", "d.csv", "--proportions", "", "--runs", "runs.csv", "--levels", "")
	lines := strings.Split(out, "\n")
	at := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "differences, first 3 of") {
			at = i
		}
	}
	if at < 0 || !strings.HasPrefix(strings.TrimSpace(lines[at+2]), "node-1/rank-9 ") || !strings.Contains(lines[at+2], "true") {
		t.Fatalf("output:\n%s", out)
	}
	// The same comparison through the package.
	open := func(path string) compare.Input {
		src, _, err := formats.Open(path, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		return compare.Input{Name: strings.TrimSuffix(filepath.Base(path), ".trace"), Source: src}
	}
	set, err := compare.Build([]compare.Input{open(a), open(b)}, compare.Options{Slices: 20}, trace.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e, _ := aggregate.New(aggregate.KindSpatiotemporal, set.Input(), aggregate.Options{Normalize: true})
	part, _ := e.Solve(0.4)
	tab, err := set.Differences(compare.NodesOf(set.PartitionRows(part)), compare.TableOptions{Rank: compare.ByOutlier})
	if err != nil {
		t.Fatal(err)
	}
	table := readCSV(t, filepath.Join(dir, "d.csv"))
	if len(table.rows) != len(tab.Rows) {
		t.Fatalf("%d rows, want %d", len(table.rows), len(tab.Rows))
	}
	for i, d := range tab.Rows {
		if got := table.float(t, i, "divergence"); got != d.Divergence {
			t.Errorf("row %d: divergence %v, want %v", i, got, d.Divergence)
		}
		if got := table.float(t, i, "prop:b:Compute"); got != d.Props[1][0] {
			t.Errorf("row %d: proportion %v, want %v", i, got, d.Props[1][0])
		}
	}
	runs := readCSV(t, filepath.Join(dir, "runs.csv"))
	if len(runs.rows) != 2 || runs.rows[0][0] != "a" || runs.rows[1][0] != "b" {
		t.Errorf("runs table %v", runs.rows)
	}
	if img := readPNG(t, filepath.Join(dir, "compare.png")); img.Bounds().Dx() != 960 {
		t.Errorf("figure %v", img.Bounds())
	}

	// A series: a row per run against the first.
	meta := filepath.Join(dir, "meta.csv")
	os.WriteFile(meta, []byte("run,slowdown\nb,0.2\na,0\n"), 0o644)
	out = mustRun(t, "compare", a, b, "--slices", "20", "--series", "series.csv", "--metadata", meta, "--out", dir)
	if !strings.Contains(out, "a: ") || !strings.Contains(out, "like the reference slice by slice") ||
		!regexp.MustCompile(`b: .* departs from [0-9.]+ s, most at [0-9.]+-[0-9.]+ s`).MatchString(out) {
		t.Errorf("series output:\n%s", out)
	}
	series := readCSV(t, filepath.Join(dir, "series.csv"))
	if k := series.col(t, "peak_from"); series.rows[0][k] != "NULL" || series.float(t, 1, "peak_divergence") <= 0 {
		t.Errorf("departure %v", series.rows)
	}
	if len(series.rows) != 2 || series.float(t, 0, "divergence_to_ref") != 0 || series.float(t, 1, "divergence_to_ref") <= 0 {
		t.Errorf("series %v", series.rows)
	}
	if k := series.col(t, "meta:slowdown"); series.rows[0][k] != "0" || series.rows[1][k] != "0.2" {
		t.Errorf("metadata %v", series.rows)
	}

	checkRefusals(t, []refusal{
		{[]string{"compare", a}, StatusUsage, "missing argument: 1 given, at least 2 needed"},
		{[]string{"compare", a, b, "--align", "sideways"}, StatusUsage, "invalid --align"},
		{[]string{"compare", a, b, "--labels", "x"}, StatusUsage, "invalid --labels: 1 labels for 2 runs"},
		{[]string{"compare", a, b, "--kind", "spatial"}, StatusUsage, "invalid --kind"},
		{[]string{"compare", a, b, "--reference", "2"}, StatusUsage, "invalid --reference"},
		{[]string{"compare", a, filepath.Join(dir, "none.trace")}, StatusFailure, "none.trace"},
	})
}

// --ops writes HTA TraceDiff's table, equal to HTA's on the corpus pair.
func TestCompareOps(t *testing.T) {
	data := filepath.Join("..", "..", "..", "..", "shared", "traces", "hta", "tests", "data", "trace_diff")
	control, test := filepath.Join(data, "control", "control.json.gz"), filepath.Join(data, "test", "test.json.gz")
	if _, err := os.Stat(control); err != nil {
		t.Skipf("corpus pair absent: %v", err)
	}
	dir := t.TempDir()
	mustRun(t, "compare", control, test, "--names", "control,test", "--match", "position", "--slices", "10", "--p", "0.5",
		"--ops", "ops.csv", "--iteration", "all", "--out", dir, "--figure", "", "--table", "", "--proportions", "", "--runs", "")
	got := readCSV(t, filepath.Join(dir, "ops.csv"))
	want := readCSV(t, filepath.Join("..", "..", "..", "core", "views", "compare", "testdata", "hta_tracediff", "tracediff_all_compare_ALL.csv"))
	if strings.Join(got.header, ",") != strings.Join(want.header, ",") || len(got.rows) != len(want.rows) {
		t.Fatalf("header %v, %d rows; HTA %v, %d", got.header, len(got.rows), want.header, len(want.rows))
	}
	for i := range want.rows {
		if got.rows[i][0] != want.rows[i][0] || got.float(t, i, "test_total_duration") != want.float(t, i, "test_total_duration") ||
			got.float(t, i, "control_counts") != want.float(t, i, "control_counts") || got.rows[i][7] != want.rows[i][7] {
			t.Fatalf("row %d: %v, HTA %v", i, got.rows[i], want.rows[i])
		}
	}
}

// TestCompareNamesTheRunWithoutDuration: among runs compared, one whose
// events all sit at t = 0, or one without states, is named in the
// message, which said "the trace has no duration" (or "no states") and
// left the user to find which of the runs it was.
func TestCompareNamesTheRunWithoutDuration(t *testing.T) {
	dir := t.TempDir()
	good := bspTrace(t, dir, "good.csv", bsp.Scenario{Ranks: 4, PerNode: 2, Iterations: 5, Seed: 1})
	instant := filepath.Join(dir, "instant.trace")
	text := "%EventDef PajeDefineContainerType 0\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n" +
		"%EventDef PajeCreateContainer 1\n% Time date\n% Alias string\n% Type string\n% Container string\n% Name string\n%EndEventDef\n" +
		"0 P 0 \"Process\"\n1 0 p1 P 0 \"p1\"\n"
	nothread := filepath.Join(dir, "nothread.prv")
	if err := os.WriteFile(instant, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(nothread, []byte("#Paraver (26/01/04 at 16:35):260199:1:1:1(1:1)\n1:1:1:1:2000000000:0:5374:2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, align := range []string{"stretch", "start"} {
		checkRefusals(t, []refusal{
			{[]string{"compare", "--out", dir, "--align", align, good, instant}, StatusFailure,
				`macroscope compare: run "instant": the trace has no duration (all its events are at t = 0 s); give a window (--start, --end) to model it`},
			{[]string{"compare", "--out", dir, "--align", align, good, nothread}, StatusFailure,
				`macroscope compare: run "nothread": ` + nothread + `: the trace has no states to model`},
		})
	}
}

// TestCompareWindow: --start and --end, which the message above asks
// for, restrict every run to a window from its own start (they were
// parsed and then ignored).
func TestCompareWindow(t *testing.T) {
	dir := t.TempDir()
	good := bspTrace(t, dir, "good.csv", bsp.Scenario{Ranks: 4, PerNode: 2, Iterations: 5, Seed: 1})
	out := mustRun(t, "compare", "--out", dir, "--slices", "4", "--runs", "runs.csv", "--table", "", "--proportions", "",
		"--levels", "", "--figure", "", "--start", "0.001", "--end", "0.002", good, good)
	if !strings.Contains(out, "4 slices") {
		t.Errorf("output %q", out)
	}
	runs := readCSV(t, filepath.Join(dir, "runs.csv"))
	for i := range runs.rows {
		if s, e := runs.float(t, i, "window_start"), runs.float(t, i, "window_end"); math.Abs(s-runs.float(t, i, "start")-0.001) > 1e-12 || math.Abs(e-s-0.001) > 1e-12 {
			t.Errorf("run %d: window %v..%v from its start %v", i, s, e, runs.float(t, i, "start"))
		}
	}
	// The series too: each run's seconds are those of its window.
	mustRun(t, "compare", "--out", dir, "--slices", "4", "--series", "series.csv", "--no-analyses",
		"--start", "0.001", "--end", "0.002", good, good)
	series := readCSV(t, filepath.Join(dir, "series.csv"))
	for i := range series.rows {
		total := 0.0
		for k, name := range series.header {
			if strings.HasPrefix(name, "seconds:") {
				v, _ := strconv.ParseFloat(series.rows[i][k], 64)
				total += v
			}
		}
		// 4 ranks over 1 ms.
		if math.Abs(total-0.004) > 1e-9 {
			t.Errorf("series row %d: %v s in the window, want 0.004", i, total)
		}
	}
	code, _, stderr := runCLI("compare", "--out", dir, "--align", "markers", "--start", "0.001", good, good)
	if code == StatusDone || !strings.Contains(stderr, "does not apply") {
		t.Errorf("markers with a window: %d %q", code, stderr)
	}
}

// TestCompareOpsSaysWhy: --ops on runs it cannot count says why, in the
// command line's words and naming the file: an Nsight Systems export
// (no operation: exit 1), a Kineto trace without steps (no iteration:
// the usage status), an iteration the test run lacks (a warning line,
// the table written).
func TestCompareOpsSaysWhy(t *testing.T) {
	data := filepath.Join("..", "..", "..", "..", "shared", "traces")
	base := filepath.Join(data, "hta", "tests", "data", "trace_compare", "base", "base.json.gz")
	cpu := filepath.Join(data, "hta", "tests", "data", "cpu_only", "rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz")
	simple := filepath.Join(data, "hta", "tests", "data", "critical_path", "simple_add", "benchmark_result_493459_1694039959_trace.json.gz")
	nsys := filepath.Join(data, "nsys", "h100_2gpu_1s.sqlite")
	for _, f := range []string{base, cpu, simple, nsys} {
		if _, err := os.Stat(f); err != nil {
			t.Skipf("corpus trace absent: %v", err)
		}
	}
	dir := t.TempDir()
	flags := []string{"--slices", "10", "--p", "0.5", "--ops", "ops.csv", "--out", dir, "--figure", "", "--table", "", "--proportions", "", "--runs", ""}
	code, _, stderr := runCLI(append([]string{"compare", base, nsys, "--iteration", "all"}, flags...)...)
	if code != StatusFailure || !strings.Contains(stderr, nsys+": no operator-level states to compare") {
		t.Errorf("nsys: %d %q", code, stderr)
	}
	code, _, stderr = runCLI(append([]string{"compare", simple, base}, flags...)...)
	if code != StatusUsage || !strings.Contains(stderr, "invalid --iteration: "+simple+" has no iteration: none of its 837 operations") {
		t.Errorf("no steps: %d %q", code, stderr)
	}
	code, stdout, stderr := runCLI(append([]string{"compare", base, cpu, "--iteration", "1010"}, flags...)...)
	if code != 0 || !strings.Contains(stdout, "warning    "+cpu+" has no iteration 1010 (its iterations: ") {
		t.Errorf("an iteration missing: %d %q %q", code, stdout, stderr)
	}
	if rows := readCSV(t, filepath.Join(dir, "ops.csv")).rows; len(rows) == 0 {
		t.Error("an iteration missing: no table")
	}
}

// TestCompareWarningsInFlags: the ways out that the comparison's notes
// name (a run lacking resources, names matched by their pattern) are
// written as the command's flags, not as Python's keywords the command
// line cannot take (rank="present" was printed as such).
func TestCompareWarningsInFlags(t *testing.T) {
	dir := t.TempDir()
	small := bspTrace(t, dir, "small.trace", bsp.Scenario{Ranks: 4, PerNode: 2, Iterations: 5, Seed: 1})
	large := bspTrace(t, dir, "large.trace", bsp.Scenario{Ranks: 8, PerNode: 2, Iterations: 5, Seed: 2})
	out := mustRun(t, "compare", small, large, "--slices", "10", "--p", "0.4", "--permutations", "-1",
		"--out", dir, "--table", "", "--proportions", "", "--runs", "", "--levels", "", "--figure", "")
	want := "warning    small: lacks 4 of the 8 resources of the runs: node-3/rank-7, node-3/rank-6, node-2/rank-5, and 1 more; " +
		"their cells are (absent), a divergence of presence (presence_divergence); --rank present ranks first what differs where every run has the resource\n"
	if !strings.Contains(out, want) {
		t.Fatalf("no line\n%s\nin the output:\n%s", want, out)
	}
	if strings.Contains(out, `="`) {
		t.Errorf("a keyword argument in the output:\n%s", out)
	}
	out = mustRun(t, "compare", small, large, "--slices", "10", "--p", "0.4", "--permutations", "-1", "--align", "auto",
		"--out", dir, "--table", "", "--proportions", "", "--runs", "", "--levels", "", "--figure", "")
	if !strings.Contains(out, "\nalign      --align auto chose \"start\": the runs' durations") {
		t.Errorf("no --align auto in the output:\n%s", out)
	}
}

// TestCompareSeriesWarns: --series says what the reader of each run
// skipped (here a cut last line), under the run's name and once for the
// reference, as the comparison does; it said nothing.
func TestCompareSeriesWarns(t *testing.T) {
	dir := t.TempDir()
	a := bspTrace(t, dir, "a.trace", bsp.Scenario{Ranks: 4, PerNode: 2, Iterations: 5, Seed: 1})
	b := bspTrace(t, dir, "b.trace", bsp.Scenario{Ranks: 4, PerNode: 2, Iterations: 5, Seed: 2})
	text, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Count(string(text), "\n")
	mustWrite(t, b, strings.TrimSuffix(string(text), "\n"))
	out := mustRun(t, "compare", a, b, "--slices", "10", "--out", dir, "--series", "s.csv", "--no-analyses")
	want := "warning    b: incomplete: " + b + ": the last line (" + strconv.Itoa(lines) + ") has no end of line: the file is cut\n"
	if strings.Count(out, "warning") != 1 || !strings.Contains(out, want) {
		t.Fatalf("want one warning\n%s\nin the output:\n%s", want, out)
	}
	// The reference warns once, not for its two reads.
	out = mustRun(t, "compare", b, a, "--slices", "10", "--out", dir, "--series", "s.csv", "--no-analyses")
	if strings.Count(out, "warning") != 1 || !strings.Contains(out, want) {
		t.Fatalf("want one warning\n%s\nin the output:\n%s", want, out)
	}
}
