package cli

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestOverviewLeavesOutProfilerSpans: the overview of a PyTorch profiler
// trace models the program's work: it says once what it left out (the
// profiler's recording, the steps, the copies of annotations on the GPU
// streams, and the 3 rows that held nothing else: the recording's thread
// and two streams' annotations) and the flag that keeps them, which
// gives those 3 rows back and says nothing of spans.
func TestOverviewLeavesOutProfilerSpans(t *testing.T) {
	file := filepath.Join(corpus, "hta/tests/data/nccl_parser_config/nccl_data.json.gz")
	if _, err := os.Stat(file); err != nil {
		t.Skip("the shared trace corpus is absent: ", err)
	}
	args := []string{"overview", "--slices", "20", "--figure", "", "--table", "", file}
	out := mustRun(t, args...)
	for _, want := range []string{"model      5 resources x 20 slices x 150 states",
		`left out   left out of the model, as spans around the program's work rather than work: the profiler's recording ("PyTorch Profiler (0)"), 0.6962 s; the steps ("ProfilerStep"), 0.0006603 s; the copies of the host's annotations on the GPU streams ("DistributedDataParallel.forward", "## backward ##", "Optimizer.step#SGD.step", 2 more), 0.3698 s; 3 resources that held only them are not rows; --profiler-spans keeps them`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "left out"); n != 2 { // the label and the sentence's first words
		t.Errorf("the spans are said %d times:\n%s", n/2, out)
	}
	out = mustRun(t, append([]string{"overview", "--profiler-spans"}, args[1:]...)...)
	if !strings.Contains(out, "model      8 resources x 20 slices x ") || strings.Contains(out, "left out") {
		t.Errorf("--profiler-spans: output\n%s", out)
	}
}

// TestOnlyProfilerSpansSaysTheFlag: a trace of nothing but the profiler's
// spans is refused, naming the flag that models them, which does.
func TestOnlyProfilerSpansSaysTheFlag(t *testing.T) {
	file := filepath.Join(t.TempDir(), "only.json")
	mustWrite(t, file, `{"traceEvents":[
  {"ph":"X","cat":"Trace","name":"PyTorch Profiler (0)","pid":"Spans","tid":"PyTorch Profiler","ts":0,"dur":100,"args":{"Op count":0}},
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":10,"dur":50}]}`)
	checkRefusals(t, []refusal{{[]string{"overview", "--figure", "", "--table", "", file}, 2,
		"invalid --profiler-spans: every state of the trace is a span a profiler draws around the program's work"}})
	mustRun(t, "overview", "--profiler-spans", "--figure", "", "--table", "", file)
}

// TestCompareLeavesOutProfilerSpans: compare models the runs' work as the
// overview does, and says once, for all the runs, what their models left
// out (each kind's time summed over the runs, by hand from the events
// below: the recording's thread holds nothing else, a step's own time is
// its length less its operator's) and the flag that keeps them.
func TestCompareLeavesOutProfilerSpans(t *testing.T) {
	dir := t.TempDir()
	run := func(name string, rec, step, op int) string {
		f := filepath.Join(dir, name)
		mustWrite(t, f, fmt.Sprintf(`{"traceEvents":[
  {"ph":"X","cat":"Trace","name":"PyTorch Profiler (0)","pid":"Spans","tid":"PyTorch Profiler","ts":0,"dur":%d,"args":{"Op count":0}},
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":10,"dur":%d},
  {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":20,"dur":%d}]}`, rec, step, op))
		return f
	}
	a, b := run("a.json", 100, 80, 50), run("b.json", 200, 180, 100)
	args := []string{"compare", "--slices", "10", "--p", "0", "--permutations", "9", "--figure", "", "--table", "",
		"--proportions", "", "--runs", "", a, b}
	out := mustRun(t, args...)
	want := `left out   2 of the 2 runs, their times summed: left out of the model, as spans around the program's work ` +
		`rather than work: the profiler's recording ("PyTorch Profiler (0)"), 0.0003 s; the steps ("ProfilerStep"), ` +
		`0.00011 s; 2 resources that held only them are not rows; --profiler-spans keeps them`
	if !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
	if n := strings.Count(out, "left out"); n != 2 { // the label and the sentence's
		t.Errorf("the spans are said %d times:\n%s", n/2, out)
	}
	out = mustRun(t, append([]string{"compare", "--profiler-spans"}, args[1:]...)...)
	if strings.Contains(out, "left out") {
		t.Errorf("--profiler-spans: output\n%s", out)
	}
}

// TestCompareSeriesLeavesOutProfilerSpans: --series says, as compare
// does, once for all the runs, what their models left out, and its table
// holds each run's seconds by kind (by hand: the recording's 100 and 200
// µs; a step's own time, its length less its operator's: 30 and 80 µs);
// with --profiler-spans neither.
func TestCompareSeriesLeavesOutProfilerSpans(t *testing.T) {
	dir := t.TempDir()
	run := func(name string, rec, step, op int) string {
		f := filepath.Join(dir, name)
		mustWrite(t, f, fmt.Sprintf(`{"traceEvents":[
  {"ph":"X","cat":"Trace","name":"PyTorch Profiler (0)","pid":"Spans","tid":"PyTorch Profiler","ts":0,"dur":%d,"args":{"Op count":0}},
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":10,"dur":%d},
  {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":20,"dur":%d}]}`, rec, step, op))
		return f
	}
	a, b := run("a.json", 100, 80, 50), run("b.json", 200, 180, 100)
	table := filepath.Join(dir, "series.csv")
	args := []string{"compare", "--slices", "10", "--permutations", "9", "--no-analyses", "--series", table, a, b}
	out := mustRun(t, args...)
	want := `left out   2 of the 2 runs, their times summed: left out of the model, as spans around the program's work ` +
		`rather than work: the profiler's recording ("PyTorch Profiler (0)"), 0.0003 s; the steps ("ProfilerStep"), ` +
		`0.00011 s; 2 resources that held only them are not rows; --profiler-spans keeps them`
	if !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
	tab := readCSV(t, table)
	for r, w := range [][2]float64{{100e-6, 30e-6}, {200e-6, 80e-6}} {
		if got := tab.float(t, r, "left_out:recording"); math.Abs(got-w[0]) > 1e-12 {
			t.Errorf("run %d: recording left out %g s, want %g", r, got, w[0])
		}
		if got := tab.float(t, r, "left_out:step"); math.Abs(got-w[1]) > 1e-12 {
			t.Errorf("run %d: steps left out %g s, want %g", r, got, w[1])
		}
	}
	out = mustRun(t, append([]string{"compare", "--profiler-spans"}, args[1:]...)...)
	if strings.Contains(out, "left out") || slices.ContainsFunc(readCSV(t, table).header, func(h string) bool { return strings.HasPrefix(h, "left_out:") }) {
		t.Errorf("--profiler-spans: output\n%s", out)
	}
}
