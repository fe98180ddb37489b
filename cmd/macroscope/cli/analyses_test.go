package cli

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/views/profile"
)

const (
	cpMixed = "../../../testdata/critpath/cp_mixed.trace"
	epoch   = "../../../testdata/epoch/epoch_%dproc.prv.zst"
)

// The flat profile's table holds what core/views/profile computes from
// the trace in memory; the load imbalance's its largest and mean times.
func TestProfileCommands(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, "profile", "--out", dir, "--table", "p.csv", "-q", bundledTrace)
	mustRun(t, "imbalance", "--out", dir, "--table", "i.csv", "--figure", "", "-q", bundledTrace)
	tr, err := formats.ReadFile(bundledTrace, "paje")
	if err != nil {
		t.Fatal(err)
	}
	r, err := profile.Compute(tr, profile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	flat := r.Flat()
	table := readCSV(t, filepath.Join(dir, "p.csv"))
	if len(table.rows) != len(flat) || len(flat) != 10 {
		t.Fatalf("%d rows, want %d", len(table.rows), len(flat))
	}
	for i, f := range flat {
		if table.rows[i][0] != f.Name.Name || table.float(t, i, "exclusive_ns") != float64(f.Exclusive) || table.float(t, i, "count") != float64(f.Count) {
			t.Errorf("row %d: %v, want %+v", i, table.rows[i], f)
		}
	}
	imb := r.Imbalance(profile.Exclusive, 3)
	table = readCSV(t, filepath.Join(dir, "i.csv"))
	for i, w := range imb {
		if table.rows[i][0] != w.Name.Name || table.float(t, i, "max") != w.Max || table.float(t, i, "mean") != w.Mean {
			t.Errorf("row %d: %v, want %+v", i, table.rows[i], w)
		}
	}
	readPNG(t, filepath.Join(dir, "profile.png"))
}

// pop over an OpenMP run without MPI calls (pypop's ImageMagick run of 2
// threads) names it so and the models as pypop does (OpenMP_Metrics),
// not as hybrid MPI+OpenMP runs; its factors are pypop's, and neither the
// table nor the CSV has a row of the MPI model (they had BSC's MPI rows,
// all 100 %, serialisation, transfer and pypop's process level).
func TestPOPCommandOpenMPOnly(t *testing.T) {
	dir := t.TempDir()
	out := mustRun(t, "pop", "--out", dir, "--form", "additive", "../../../testdata/imagemagick/omp2.prv.zst")
	want := "runs without MPI calls (OpenMP, 2 threads per process): pypop's OpenMP_Metrics " +
		"(OpenMP and serial region efficiencies), BSC's load balance and communication efficiency; no MPI factors"
	if !strings.Contains(out, want) || strings.Contains(out, "MPI_OpenMP") ||
		!regexpLine(out, "OpenMP region efficiency", "99.84") || !regexpLine(out, "Serial region efficiency", "72.90") {
		t.Errorf("report:\n%s\nwant %q", out, want)
	}
	for _, no := range []string{"MPI ", "Process level", "Serialisation", "Transfer", "Load balance", "Thread level"} {
		if strings.Contains(out[strings.Index(out, "Global efficiency"):], no) {
			t.Errorf("additive table has %q:\n%s", no, out)
		}
	}
	table := readCSV(t, filepath.Join(dir, "pop.csv"))
	var keys []string
	for _, row := range table.rows {
		keys = append(keys, row[1]+"/"+row[3])
	}
	wantKeys := "global_efficiency/ parallel_efficiency/ load_balance/multiplicative communication_efficiency/multiplicative " +
		"thread_level_efficiency/multiplicative openmp_region_efficiency/multiplicative serial_region_efficiency/multiplicative " +
		"openmp_region_efficiency/additive serial_region_efficiency/additive computation_scalability/ instruction_scalability/ " +
		"ipc_scalability/ frequency_scalability/ speedup/ ipc/ frequency/"
	if got := strings.Join(keys, " "); got != wantKeys {
		t.Errorf("pop.csv keys\n%s\nwant\n%s", got, wantKeys)
	}
}

// pop over a hybrid MPI+OpenMP run (HPCToolkit's LULESH, 27 ranks of 3
// threads) says so and prints the hybrid factors, BSC's and pypop's,
// whose products give the parallel efficiency.
func TestPOPCommandHybrid(t *testing.T) {
	lulesh := corpus + "/hpctoolkit-db/issue-233-lulesh"
	if _, err := os.Stat(lulesh); err != nil {
		t.Skipf("corpus not available: %v", err)
	}
	dir := t.TempDir()
	out := mustRun(t, "pop", "--out", dir, lulesh)
	if !strings.Contains(out, "hybrid runs (MPI+OpenMP, 3 threads per process): BSC's MPI and OpenMP factors, pypop's MPI_OpenMP_Metrics") ||
		!regexpLine(out, "Parallel efficiency", "66.54") || !regexpLine(out, "MPI parallel efficiency", "89.80") ||
		!regexpLine(out, "OpenMP parallel efficiency", "74.10") || !regexpLine(out, "Serial region efficiency (pypop)", "76.98") {
		t.Errorf("report:\n%s", out)
	}
	add := mustRun(t, "pop", "--form", "additive", "--out", dir, lulesh)
	if !regexpLine(add, "Process level efficiency", "88.97") || !regexpLine(add, "Thread level efficiency", "77.57") {
		t.Errorf("additive report:\n%s", add)
	}
	table := readCSV(t, filepath.Join(dir, "pop.csv"))
	v := map[string]float64{}
	for i := range table.rows {
		if table.rows[i][3] != "additive" {
			v[table.rows[i][1]] = table.float(t, i, "27x3")
		}
	}
	if pe := v["mpi_parallel_efficiency"] * v["openmp_parallel_efficiency"]; math.Abs(pe-v["parallel_efficiency"]) > 1e-12 {
		t.Errorf("MPI x OpenMP parallel efficiency %v, parallel efficiency %v", pe, v["parallel_efficiency"])
	}
}

// pop over the EPOCH series prints BSC's factors and writes them.
func TestPOPCommand(t *testing.T) {
	dir := t.TempDir()
	out := mustRun(t, "pop", "--out", dir, "--raw", "raw.csv", "--labels", "one,two,four",
		strings.Replace(epoch, "%d", "1", 1), strings.Replace(epoch, "%d", "2", 1), strings.Replace(epoch, "%d", "4", 1))
	// modelfactors.csv: parallel efficiency 99.925583, 99.378252, 97.349953.
	if !strings.Contains(out, "pop        3 runs (one, two, four), strong scaling") ||
		!regexpLine(out, "Parallel efficiency", "99.93", "99.38", "97.35") {
		t.Errorf("report:\n%s", out)
	}
	table := readCSV(t, filepath.Join(dir, "pop.csv"))
	for i := range table.rows {
		if table.rows[i][1] == "load_balance" && table.rows[i][3] == "multiplicative" {
			if v := table.float(t, i, "four"); math.Abs(v-0.98687584) > 1e-8 {
				t.Errorf("load balance on 4 processes %v, BSC 0.98687584", v)
			}
		}
	}
	raw := readCSV(t, filepath.Join(dir, "raw.csv"))
	if raw.float(t, 2, "instructions") != 88518412143 || raw.rows[2][0] != "four" {
		t.Errorf("raw %v", raw.rows[2])
	}
	readPNG(t, filepath.Join(dir, "pop.png"))
	// Bad usage is reported at once.
	checkRefusals(t, []refusal{
		{[]string{"pop", "--scaling", "linear", bundledTrace}, StatusUsage, "invalid --scaling"},
		{[]string{"pop", "--labels", "a,b", bundledTrace}, StatusUsage, "invalid --labels: 2 labels for 1 traces"},
		{[]string{"pop", "--eager-limit", "-1", bundledTrace}, StatusUsage, "invalid --eager-limit"},
	})
}

// regexpLine tells whether a line of out starts with label and holds the
// fields in order.
func regexpLine(out, label string, fields ...string) bool {
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if strings.Contains(l, label) && len(f) >= len(fields) && strings.Join(f[len(f)-len(fields):], " ") == strings.Join(fields, " ") {
			return true
		}
	}
	return false
}

// critpath prints the known path of cp_mixed and writes its segments;
// stragglers and commmatrix run on the same kind of trace.
func TestCritPathCommands(t *testing.T) {
	dir := t.TempDir()
	out := mustRun(t, "critpath", "--out", dir, "--table", "seg.csv", "--states", "st.csv", cpMixed)
	for _, want := range []string{
		"path       4 segments over 4 resources, 3.90002 s",
		"rank-1    1.000000000  3.000004000  late sender",
		"rank-3    3.000004000  3.400016000  collective",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	seg := readCSV(t, filepath.Join(dir, "seg.csv"))
	if len(seg.rows) != 4 || seg.rows[3][0] != "rank-2" || seg.float(t, 3, "end_ns") != 3900020000 {
		t.Errorf("segments %v", seg.rows)
	}
	st := readCSV(t, filepath.Join(dir, "st.csv"))
	if st.rows[0][0] != "computing" || st.float(t, 0, "on_path") != 3.9 {
		t.Errorf("by state %v", st.rows)
	}
	// A Kineto trace: HTA's semantics (core/views/critpath's Example_gpu),
	// the segments' kind and name in the table, no delay costs.
	out = mustRun(t, "critpath", "--out", dir, "--table", "gpu.csv", "--figure", "", "--delays", "gd.csv",
		"../../../core/views/critpath/testdata/kineto_launch.json")
	for _, want := range []string{
		"semantics  Holistic Trace Analysis' (CPU calls, launches, streams, synchronisations)",
		"path       6 segments over 2 resources, 0.00023 s",
		"0/stream 7  0.000030000  0.000200000  kernel      add_kernel",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	gpu := readCSV(t, filepath.Join(dir, "gpu.csv"))
	if len(gpu.rows) != 6 || gpu.rows[2][gpu.col(t, "kind")] != "kernel" || gpu.rows[2][gpu.col(t, "name")] != "add_kernel" ||
		gpu.float(t, 2, "end_ns") != 200000 {
		t.Errorf("GPU segments %v %v", gpu.header, gpu.rows)
	}
	if gd := readCSV(t, filepath.Join(dir, "gd.csv")); len(gd.rows) != 0 {
		t.Errorf("delay costs of a GPU path: %v", gd.rows)
	}
	// cp_delay's delay costs (core/views/critpath's TestDelayCostsSMPI).
	out = mustRun(t, "critpath", "--out", dir, "--figure", "", "-q", "--delays", "d.csv", "../../../testdata/critpath/cp_delay.trace")
	if want := "delay      rank-0 computing: 2 s short-term, 0 s long-term of late sender waiting"; !strings.Contains(out, want) {
		t.Errorf("no %q in:\n%s", want, out)
	}
	d := readCSV(t, filepath.Join(dir, "d.csv"))
	if len(d.rows) != 4 || d.rows[1][0] != "rank-0" || d.rows[1][2] != "collective" || d.float(t, 1, "long_term") != 2 {
		t.Errorf("delay costs %v", d.rows)
	}
	out = mustRun(t, "stragglers", "--out", dir, "--figure", "", "-q", "../../../testdata/critpath/cp_coll.trace")
	if !strings.Contains(out, "3 collectives over 4 resources") {
		t.Errorf("stragglers:\n%s", out)
	}
	out = mustRun(t, "commmatrix", "--out", dir, "--table", "m.csv", "../../../testdata/critpath/cp_laterecv.trace")
	m := readCSV(t, filepath.Join(dir, "m.csv"))
	if len(m.rows) != 1 || m.float(t, 0, "bytes") != 4<<20 || !strings.Contains(out, "1 links, 4194304 bytes") {
		t.Errorf("matrix %v\n%s", m.rows, out)
	}
	checkRefusals(t, []refusal{
		{[]string{"critpath", "--type", "gantt", cpMixed}, StatusUsage, "invalid --type"},
		{[]string{"stragglers", "--iteration", "[x", cpMixed}, StatusUsage, "invalid --iteration"},
		{[]string{"commmatrix", "--level", "rack", cpMixed}, StatusUsage, "invalid --level"},
	})
}

// TestDirectoryOfRanks checks that the command line reads a directory of
// trace files of one format as one trace, with or without --format.
func TestDirectoryOfRanks(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	for r, body := range []string{
		`{"traceEvents":[{"ph":"X","name":"ProfilerStep#1","pid":0,"tid":7,"ts":100,"dur":10}]}`,
		`{"traceEvents":[{"ph":"X","name":"ProfilerStep#1","pid":1,"tid":7,"ts":101,"dur":12}]}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, "rank-"+string(rune('0'+r))+".json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, format := range [][]string{nil, {"--format", "chrome"}} {
		args := append([]string{"stragglers", "--out", out, "--figure", "", "-q"}, format...)
		got := mustRun(t, append(args, dir)...)
		if !strings.Contains(got, "1 iterations (ProfilerStep*) over 2 resources") {
			t.Errorf("%v:\n%s", format, got)
		}
	}
}

// TestAnalysesOutsideTheirScope checks that an analysis asked of a trace
// it does not apply to (no MPI calls, no links, no collectives: two
// threads of plain slices) is a failure of the data, status 1 as
// docs/cli.md says, naming the file and what the analysis needs; not bad
// usage (status 2), which no flag was.
// A trace whose flows join two threads both ways at one instant makes
// the critical path's graph loop: the data's fault, not the command
// line's, so exit 1 naming the file once and the states of the loop
// (was status 2, "invalid trace").
func TestCriticalPathCycleIsTheTraces(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cycle.json")
	body := `{"traceEvents":[` +
		`{"ph":"X","name":"X","pid":1,"tid":1,"ts":0,"dur":10},{"ph":"X","name":"Y","pid":1,"tid":1,"ts":10,"dur":10},` +
		`{"ph":"X","name":"P","pid":1,"tid":2,"ts":0,"dur":10},{"ph":"X","name":"Q","pid":1,"tid":2,"ts":10,"dur":10},` +
		`{"ph":"s","name":"f","cat":"c","id":1,"pid":1,"tid":1,"ts":10},{"ph":"f","name":"f","cat":"c","id":1,"pid":1,"tid":2,"ts":10,"bp":"e"},` +
		`{"ph":"s","name":"g","cat":"c","id":2,"pid":1,"tid":2,"ts":10},{"ph":"f","name":"g","cat":"c","id":2,"pid":1,"tid":1,"ts":10,"bp":"e"}]}`
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLI("critpath", "--out", t.TempDir(), path)
	want := "macroscope critpath: " + path + ": the graph of the critical path has a cycle: links join states both ways at one instant " +
		`(one from "Y" on 1/1, begun at 0.000010000 s, to "Q" on 1/2, begun at 0.000010000 s`
	if code != StatusFailure || !strings.HasPrefix(errOut, want) || strings.Count(errOut, path) != 1 {
		t.Errorf("exit %d, %q; want exit %d, %q...", code, errOut, StatusFailure, want)
	}
}

func TestAnalysesOutsideTheirScope(t *testing.T) {
	path := filepath.Join(t.TempDir(), "threads.json")
	body := `{"traceEvents":[` +
		`{"ph":"X","name":"work","pid":1,"tid":1,"ts":0,"dur":10},` +
		`{"ph":"X","name":"work","pid":1,"tid":2,"ts":5,"dur":10}]}`
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	for _, c := range []struct {
		args []string
		says []string
	}{
		{[]string{"pop"}, []string{"POP does not apply to this trace", "needs MPI calls", "Score-P (OTF2)"}},
		{[]string{"critpath"}, []string{"the critical path does not apply to this trace", "no MPI calls", "no links"}},
		{[]string{"stragglers"}, []string{"stragglers do not apply to this trace", "no collective operation", "give --iteration"}},
	} {
		args := append(append(c.args, "--out", out), path)
		code, _, errOut := runCLI(args...)
		if code != StatusFailure || !strings.HasPrefix(errOut, "macroscope "+c.args[0]+": "+path+": ") ||
			strings.Count(errOut, path) != 1 {
			t.Errorf("%v: exit %d, %q; want exit %d naming %s once", args, code, errOut, StatusFailure, path)
		}
		for _, want := range c.says {
			if !strings.Contains(errOut, want) {
				t.Errorf("%v: %q, want it to say %q", args, errOut, want)
			}
		}
	}
	// A series of such runs has no POP factors, and no failure: POP does
	// not apply to them (compare tells that refusal from the others).
	mustRun(t, "compare", "--out", out, "--slices", "4", "--series", "series.csv", path, path)
	series := readCSV(t, filepath.Join(out, "series.csv"))
	for _, name := range series.header {
		if strings.HasPrefix(name, "pop:") {
			t.Errorf("series of runs without MPI calls has column %s: %v", name, series.header)
		}
	}
	if len(series.rows) != 2 {
		t.Errorf("series rows %v", series.rows)
	}
}
