package cli

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The memory budget is a flag, and the errors that name it as the way out
// say the flag, not Python's keyword.
func TestMemoryBudgetFlag(t *testing.T) {
	out := t.TempDir()
	code, _, errOut := runCLI("overview", bundledTrace, "--memory-budget", "1KiB", "--out", out)
	if code != StatusUsage || !strings.Contains(errOut, "invalid --slices: a model of 32 resources x 100 slices x 10 states") ||
		!strings.Contains(errOut, "memory budget of 1 KiB (--memory-budget sets it;") ||
		!strings.Contains(errOut, "--key domain or --key type") || strings.Contains(errOut, "memory_budget") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	code, _, errOut = runCLI("gantt", bundledTrace, "--memory-budget", "10KiB", "--out", out)
	if code != StatusUsage || !strings.HasPrefix(errOut, "macroscope gantt: invalid --memory-budget: reading "+bundledTrace+": the trace read into memory outgrew the memory budget of 10 KiB") ||
		!strings.Contains(errOut, "(as macroscope overview, treemap and moments do)") ||
		!strings.HasSuffix(strings.TrimSpace(errOut), "or raise --memory-budget") || strings.Contains(errOut, "ms.") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	code, _, errOut = runCLI("overview", bundledTrace, "--memory-budget", "lots", "--out", out)
	if code != StatusUsage || !strings.Contains(errOut, `invalid --memory-budget: "lots" is not a size`) {
		t.Errorf("exit %d: %s", code, errOut)
	}
	// Enough, and no limit.
	for _, b := range []string{"64MiB", "0"} {
		mustRun(t, "overview", bundledTrace, "--memory-budget", b, "--slices", "10", "--out", out, "--figure", "")
	}
}

func TestParseBudget(t *testing.T) {
	for s, want := range map[string]int64{"": 0, "0": -1, "1024": 1024, "1KiB": 1024, "1.5 MiB": 3 << 19, "2GB": 2e9, "4g": 4 << 30} {
		if got, err := parseBudget(s); err != nil || got != want {
			t.Errorf("%q: %d %v, want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"-1", "lots", "1XB", "NaN"} {
		if _, err := parseBudget(s); err == nil {
			t.Errorf("%q: no error", s)
		}
	}
}

// One clock: the summaries count from the trace's start, said once; the
// window flags take seconds from it; a window outside the trace is an
// error.
func TestSummariesFromTheStart(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "k.json")
	// Kineto's Unix-time microseconds: 1661203462.584767 s.
	if err := os.WriteFile(path, []byte(`{"traceEvents": [
		{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1661203462584767, "dur": 4000},
		{"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 1661203462588767, "dur": 4000},
		{"ph": "X", "name": "a", "pid": 1, "tid": 2, "ts": 1661203462586767, "dur": 4000}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, "overview", path, "--slices", "4", "--start", "0.002", "--out", dir, "--figure", "")
	for _, want := range []string{
		"3 states, 0 variables, 0 links, 0 events, 0-0.008 s (from 1661203462.584767 s on the trace's clock)\n",
		"model      2 resources x 4 slices x 2 states, 0.002-0.008 s\n",
		"  1/1: 1 resource, 0.002-0.0035 s, mostly a (100%)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	code, _, errOut := runCLI("overview", path, "--start", "1", "--end", "2", "--out", dir)
	if code != StatusUsage || !strings.Contains(errOut,
		"invalid --start/--end: the window 1-2 s (from the trace's start) is outside the trace, which lasts 0.008 s (from 1661203462.584767 s on its clock)") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// What a reader holds before it delivers it (here a line of 32 MiB
// without an end, in a gzip file of 32 KiB) weighs against
// --memory-budget in every command that reads: the read stops with the
// budget's error, where it went on to the reader's own bound of 256 MiB
// (and took 3 to 4 times that).
func TestReaderHeldUnderBudget(t *testing.T) {
	path := filepath.Join(t.TempDir(), "long.paje.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	z := gzip.NewWriter(f)
	io.WriteString(z, "%EventDef PajeDefineContainerType 0\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n0 CT 0 \"")
	chunk := bytes.Repeat([]byte("x"), 1<<20)
	for range 32 {
		z.Write(chunk)
	}
	z.Close()
	f.Close()
	out := t.TempDir()
	for _, cmd := range []string{"profile", "moments", "overview", "gantt"} {
		code, _, errOut := runCLI(cmd, path, "--memory-budget", "8MiB", "--out", out)
		if code != StatusUsage || !strings.Contains(errOut, "invalid --memory-budget: reading "+path+", line 6 (byte ") ||
			!strings.Contains(errOut, "): the read holds") || !strings.Contains(errOut, "more than the memory budget of 8 MiB") {
			t.Errorf("%s: exit %d: %s", cmd, code, errOut)
		}
	}
	// compare reads its runs with its own options: together (Build), and
	// one at a time (--series).
	for _, args := range [][]string{
		{"compare", path, path, "--memory-budget", "8MiB", "--out", out},
		{"compare", path, path, "--memory-budget", "8MiB", "--out", out, "--series", "series.csv", "--no-analyses"},
	} {
		code, _, errOut := runCLI(args...)
		if code != StatusUsage || !strings.Contains(errOut, "invalid --memory-budget: reading "+path+", line 6 (byte ") ||
			!strings.Contains(errOut, "): the read holds") || !strings.Contains(errOut, "more than the memory budget of 8 MiB") {
			t.Errorf("compare %v: exit %d: %s", args[7:], code, errOut)
		}
	}
	// dump holds the whole trace, read with pj_dump's reader or by its
	// format's.
	for _, args := range [][]string{
		{"dump", "--memory-budget=8MiB", path},
		{"dump", "--memory-budget", "8MiB", "--format", "paje", path},
	} {
		code, dumped, errOut := runCLI(args...)
		if code != StatusUsage || dumped != "" || !strings.Contains(errOut, "macroscope dump: invalid --memory-budget: reading "+path+", line 6 (byte ") ||
			!strings.Contains(errOut, "): the read holds") ||
			!strings.Contains(errOut, "more than the memory budget of 8 MiB") || !strings.Contains(errOut, "raise --memory-budget") {
			t.Errorf("%v: exit %d: %s", args[1:], code, errOut)
		}
	}
}

// dump's trace, held whole until it is written, weighs against
// --memory-budget as readTrace's does; a budget it fits in changes
// nothing.
func TestDumpUnderBudget(t *testing.T) {
	want := mustRun(t, "dump", bundledTrace)
	if got := mustRun(t, "dump", "--memory-budget=64MiB", bundledTrace); got != want {
		t.Errorf("under 64 MiB the dump differs")
	}
	code, dumped, errOut := runCLI("dump", "--memory-budget=10KiB", bundledTrace)
	if code != StatusUsage || dumped != "" ||
		!strings.HasPrefix(errOut, "macroscope dump: invalid --memory-budget: reading "+bundledTrace+": the trace read into memory outgrew the memory budget of 10 KiB") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	code, _, errOut = runCLI("dump", "--memory-budget=lots", bundledTrace)
	if code != StatusUsage || !strings.Contains(errOut, `macroscope dump: invalid --memory-budget: "lots" is not a size`) {
		t.Errorf("exit %d: %s", code, errOut)
	}
}
