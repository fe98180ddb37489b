package cli

import (
	"os"
	"path/filepath"
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
