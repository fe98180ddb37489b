package cli

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestVersionIsThePackages: --version prints the version of the Python
// distribution, pyproject.toml's, the one source the two agree on.
func TestVersionIsThePackages(t *testing.T) {
	b, err := os.ReadFile("../../../pyproject.toml")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^version = "([^"]+)"$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("pyproject.toml has no version")
	}
	if string(m[1]) != Version {
		t.Errorf("cli.Version is %q, pyproject.toml's version %q", Version, m[1])
	}
	for _, args := range [][]string{{"--version"}, {"-version"}, {"version"}} {
		if out := mustRun(t, args...); out != "macroscope "+string(m[1])+"\n" {
			t.Errorf("%v: %q", args, out)
		}
	}
}

// TestUsageListsEveryCommand: help lists the registered commands, each
// with its help; no command is bad usage.
func TestUsageListsEveryCommand(t *testing.T) {
	out := mustRun(t, "help")
	for _, c := range commands {
		if !strings.Contains(out, "\n  "+c.name+" ") {
			t.Errorf("help does not list %s:\n%s", c.name, out)
		}
		if code, help, _ := runCLI("help", c.name); code != 0 || !strings.HasPrefix(help, "usage: macroscope "+c.name+" ") {
			t.Errorf("help %s: exit %d, %q", c.name, code, help)
		}
	}
	if code, _, errOut := runCLI(); code != 2 || !strings.HasPrefix(errOut, "usage: macroscope <command>") {
		t.Errorf("no command: exit %d, %q", code, errOut)
	}
}

// TestFlagsAnywhere: flags come before or after the trace, as --name
// value, --name=value or -name; "--" ends them; --no-name turns off a
// switch that is on by default.
func TestFlagsAnywhere(t *testing.T) {
	dir := t.TempDir()
	want := mustRun(t, "treemap", "--slices", "10", "--p", "0", "--out", dir, "--no-proportions", bundledTrace)
	for _, args := range [][]string{
		{"treemap", bundledTrace, "--slices", "10", "--p", "0", "--out", dir, "--proportions=false"},
		{"treemap", "-slices=10", bundledTrace, "-p", "0", "--out=" + dir, "--no-proportions"},
		{"treemap", "--slices", "10", "--p", "0", "--out", dir, "--no-proportions", "--", bundledTrace},
	} {
		if got := mustRun(t, args...); timeless(got) != timeless(want) {
			t.Errorf("%v:\n%s\nwant\n%s", args, got, want)
		}
	}
	checkRefusals(t, []refusal{
		{[]string{"overview", bundledTrace, "--slices"}, 2, "macroscope overview: --slices needs a value\nusage: macroscope overview [flags] trace"},
		{[]string{"overview", "--slices", "ten", bundledTrace}, 2, `macroscope overview: invalid --slices: "ten": not a number`},
		{[]string{"overview", "--strict=maybe", bundledTrace}, 2, `invalid --strict: "maybe": a switch takes no value, or =true or =false`},
		{[]string{"overview", "--", "--slices", bundledTrace}, 2, "too many arguments: " + bundledTrace},
		{[]string{"overview", bundledTrace, "--end", "1", "--start", "2"}, 2, "invalid --start/--end: --end (1 s) must come after --start (2 s)"},
	})
}

// timeless drops the measures of time of a report.
func timeless(s string) string {
	return regexp.MustCompile(`in +\d+\.\d\d s`).ReplaceAllString(s, "in T s")
}

// TestInterrupted: a command whose context is canceled (Ctrl-C) stops at
// its next check, says so and exits with status 130, writing nothing.
// The analyses stop in the read here; their own looks are tested in their
// packages (TestCanceled) and below (TestAnalysesInterruptedAfterRead).
func TestInterrupted(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, args := range [][]string{
		{"overview", "--out", dir, bundledTrace},
		{"moments", "--out", dir, bundledTrace},
		{"kaleido", "--out", dir, bundledTrace},
		{"convert", "--out", filepath.Join(dir, "ds"), bundledTrace},
		{"dump", bundledTrace},
		{"profile", "--out", dir, "--figure", filepath.Join(dir, "profile.png"), bundledTrace},
		{"imbalance", "--out", dir, "--figure", filepath.Join(dir, "imbalance.png"), bundledTrace},
		{"commmatrix", "--out", dir, "--figure", filepath.Join(dir, "commmatrix.png"), bundledTrace},
		{"pop", "--out", dir, "--figure", filepath.Join(dir, "pop.png"), bundledTrace},
		{"critpath", "--out", dir, "--figure", filepath.Join(dir, "critpath.png"), "--delays", filepath.Join(dir, "d.parquet"), "../../../testdata/critpath/cp_delay.trace"},
		{"stragglers", "--out", dir, "--figure", filepath.Join(dir, "stragglers.png"), bundledTrace},
	} {
		var out, errOut strings.Builder
		code := Run(ctx, args, &out, &errOut)
		if code != StatusInterrupted || errOut.String() != "macroscope "+args[0]+": interrupted\n" {
			t.Errorf("%v: exit %d, %q", args, code, errOut.String())
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("an interrupted command wrote %v", entries)
	}
}

// TestOutputCheckedFirst: an output that cannot be written is found
// before the trace is read, naming the flag.
func TestOutputCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	mustWrite(t, file, "")
	locked := filepath.Join(dir, "locked")
	if err := os.Mkdir(locked, 0o500); err != nil {
		t.Fatal(err)
	}
	refusals := []refusal{
		{[]string{"overview", "--out", file, "missing.trace"}, 1, "macroscope overview: cannot write in --out " + file + ": " + file + " is not a directory"},
		{[]string{"gantt", "--figure", filepath.Join(file, "g.png"), "missing.trace"}, 1, "cannot write --figure " + filepath.Join(file, "g.png")},
		{[]string{"moments", "--table", filepath.Join(file, "sub", "m.csv"), "missing.trace"}, 1, "cannot write --table"},
		{[]string{"convert", "--out", filepath.Join(file, "ds"), "missing.trace"}, 1, "cannot write --out"},
		{[]string{"synth", filepath.Join(file, "s.trace")}, 1, "cannot write " + filepath.Join(file, "s.trace")},
	}
	if os.Geteuid() != 0 { // root writes anywhere
		refusals = append(refusals, refusal{[]string{"overview", "--out", filepath.Join(locked, "new"), "missing.trace"}, 1, locked + " is not writable"})
	}
	checkRefusals(t, refusals)
}

// TestNoDurationNotBlamedOnFlags: a trace whose events all sit at t = 0 (a
// StarPU trace's header alone, an HPCToolkit database without samples) is
// refused for what it is, as a failure of the data; the message named
// "--start/--end" as invalid though neither was typed. Given, they are
// named as before.
func TestNoDurationNotBlamedOnFlags(t *testing.T) {
	path := filepath.Join(t.TempDir(), "instant.trace")
	text := "%EventDef PajeDefineContainerType 0\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n" +
		"%EventDef PajeCreateContainer 1\n% Time date\n% Alias string\n% Type string\n% Container string\n% Name string\n%EndEventDef\n" +
		"0 P 0 \"Process\"\n1 0 p1 P 0 \"p1\"\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	checkRefusals(t, []refusal{
		{[]string{"overview", "--out", out, path}, StatusFailure, "macroscope overview: the trace has no duration (all its events are at t = 0 s); give a window (--start, --end) to model it"},
		{[]string{"overview", "--out", out, "--end", "0", path}, StatusUsage, "macroscope overview: invalid --start/--end: "},
	})
	if _, _, errOut := runCLI("overview", "--out", out, path); strings.Contains(errOut, "invalid") {
		t.Errorf("no flag given, yet: %q", errOut)
	}
}

// TestNoStatesNotBlamedOnFlags: a trace without states (a Paraver trace
// whose every record names a thread that does not exist, skipped with a
// warning) is refused for what it is, a failure of the data naming the
// file; the message called --state-types invalid though it was not typed
// (and overview has no such flag). Typed, it is named as before.
func TestNoStatesNotBlamedOnFlags(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nothread.prv")
	text := "#Paraver (26/01/04 at 16:35):260199:1:1:1(1:1)\n1:1:1:1:2000000000:0:5374:2\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	checkRefusals(t, []refusal{
		{[]string{"overview", "--out", out, path}, StatusFailure, "macroscope overview: " + path + ": the trace has no states to model\n"},
		{[]string{"profile", "--out", out, "--state-types", "X", path}, StatusUsage, "macroscope profile: invalid --state-types: "},
	})
}

// TestEventsOnlyTraceRefusedForItsData: the analyses of states refuse a
// trace of events only (EAR's ear2prv writes sampled node and GPU metrics
// as Paraver events, without a state) for what it is, naming the file with
// status 1; they said "invalid rows: nothing to draw" with status 2 (a
// usage error), after printing an empty table.
func TestEventsOnlyTraceRefusedForItsData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ear.prv")
	text := "#Paraver (01/12/26 at 10:05):12000000:0:1:2(2:1,2:2)\n" +
		"2:0:1:1:1:1000000:5:1200\n2:0:1:1:2:1000000:6:300\n2:0:1:2:1:2000000:5:1100\n2:0:1:2:2:3000000:6:250\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	checkRefusals(t, []refusal{
		{[]string{"profile", "--out", out, path}, StatusFailure, "macroscope profile: " + path + ": the trace has no states to profile\n"},
		{[]string{"imbalance", "--out", out, path}, StatusFailure, "macroscope imbalance: " + path + ": the trace has no states to compare over processes\n"},
		{[]string{"moments", "--out", out, path}, StatusFailure, "macroscope moments: " + path + ": the trace has no states to compute moments of\n"},
	})
}

// cancelAfterRead is a report that cancels the command's context (as
// Ctrl-C would) once the trace is read: the analysis then has the trace,
// and only its own looks at the context stop it.
type cancelAfterRead struct {
	strings.Builder
	cancel context.CancelFunc
	// read is what the report of the read says ("), read" if empty).
	read string
}

func (w *cancelAfterRead) Write(p []byte) (int, error) {
	if strings.Contains(string(p), cmp.Or(w.read, "), read")) {
		w.cancel()
	}
	return w.Builder.Write(p)
}

// TestAnalysesInterruptedAfterRead: each analysis interrupted once the
// trace is read stops in its own computation, says so and exits with
// status 130, writing nothing; before, it ran to its end and wrote its
// figure. The topology stops in the construction of its graph (its
// layout, which looked at the context already, stopped it before).
func TestAnalysesInterruptedAfterRead(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"profile", "--out", dir, "--figure", filepath.Join(dir, "profile.png"), bundledTrace},
		{"imbalance", "--out", dir, "--figure", filepath.Join(dir, "imbalance.png"), bundledTrace},
		{"commmatrix", "--out", dir, "--figure", filepath.Join(dir, "commmatrix.png"), bundledTrace},
		{"pop", "--out", dir, "--figure", filepath.Join(dir, "pop.png"), bundledTrace},
		{"critpath", "--out", dir, "--figure", filepath.Join(dir, "critpath.png"), "--delays", filepath.Join(dir, "d.parquet"),
			"../../../testdata/critpath/cp_delay.trace"},
		{"stragglers", "--out", dir, "--figure", filepath.Join(dir, "stragglers.png"), "../../../testdata/critpath/cp_coll.trace"},
		{"topology", "--out", dir, bundledTrace},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		out := &cancelAfterRead{cancel: cancel}
		if args[0] == "topology" {
			out.read = "trace " // a trace in memory, its counts
		}
		var errOut strings.Builder
		code := Run(ctx, args, out, &errOut)
		cancel()
		if code != StatusInterrupted || errOut.String() != "macroscope "+args[0]+": interrupted\n" ||
			!strings.Contains(out.String(), cmp.Or(out.read, "), read")) {
			t.Errorf("%v: exit %d, %q after %q", args, code, errOut.String(), out.String())
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("an interrupted command wrote %v", entries)
	}
}
