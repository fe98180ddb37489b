package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
)

const corpus = "../../../../shared/traces"

// binDir holds the command, built once for the tests that run it.
var (
	binDir    string
	buildOnce sync.Once
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// buildCLI compiles the command (once) and returns its path.
func buildCLI(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if binDir, buildErr = os.MkdirTemp("", "macroscope-cli"); buildErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", filepath.Join(binDir, "macroscope"), "..").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(binDir, "macroscope")
}

// result is what a run printed, the files it wrote and its exit status.
type result struct {
	stdout, stderr string
	files          map[string]string
	status         int
}

// execute runs bin with args in a fresh directory holding the files named
// in outputs, with stdin if not nil, and collects what it wrote.
func execute(t *testing.T, bin string, args []string, stdin []byte, outputs ...string) result {
	t.Helper()
	dir := t.TempDir()
	for i, a := range args {
		for _, o := range outputs {
			args[i] = strings.ReplaceAll(a, o, filepath.Join(dir, o))
			a = args[i]
		}
	}
	cmd := exec.Command(bin, args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	err := cmd.Run()
	r := result{stdout: o.String(), stderr: e.String(), files: map[string]string{}}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.status = ee.ExitCode()
	case err != nil:
		t.Fatalf("%s %v: %v", bin, args, err)
	}
	for _, name := range outputs {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
			r.files[name] = string(b)
		}
	}
	return r
}

// TestDumpAgainstPjDump runs macroscope dump and pj_dump with the same
// flags on every Pajé trace of the corpus: standard output, standard
// error, the hierarchy files and the exit status must be identical.
func TestDumpAgainstPjDump(t *testing.T) {
	pj, err := exec.LookPath("pj_dump")
	if err != nil {
		t.Skip("pj_dump (Debian package pajeng) is not installed")
	}
	traces := readertest.PajeCorpus(t, corpus)
	bin := buildCLI(t)
	variants := [][]string{
		{},
		{"-n"},
		{"-i"},
		{"-h"},
		{"-z"},
		{"-n", "-i", "-h"},
		{"-l", "9"},
		{"-l0", "-h"},
		{"--float-precision=12"},
		{"-q", "--entity-hierarchy", "entities.csv"},
		{"-q", "--type-hierarchy=types.csv"},
		{"-nq", "--entity-hierarchy=entities.csv", "--type-hierarchy", "types.csv"},
	}
	var compared atomic.Int64
	t.Run("corpus", func(t *testing.T) {
		for _, path := range traces {
			t.Run(filepath.Base(path), func(t *testing.T) {
				t.Parallel()
				for _, v := range variants {
					args := append(append([]string(nil), v...), path)
					want := execute(t, pj, args, nil, "entities.csv", "types.csv")
					args = append(append([]string(nil), v...), path)
					got := execute(t, bin, append([]string{"dump"}, args...), nil, "entities.csv", "types.csv")
					compared.Add(1)
					if got.status != want.status || got.stdout != want.stdout || got.stderr != want.stderr || !equalFiles(got.files, want.files) {
						t.Errorf("%v: differs from pj_dump: status %d (pj_dump %d), stderr %q (pj_dump %q)\n%s",
							v, got.status, want.status, got.stderr, want.stderr, readertest.FirstDiff(got.stdout, want.stdout))
					}
				}
			})
		}
	})
	if n := compared.Load(); n < 300 {
		t.Fatalf("compared only %d runs", n)
	}
}

// TestDumpStdinAndMissingFile: a trace on standard input, and a file that
// does not exist, as pj_dump handles them.
func TestDumpStdinAndMissingFile(t *testing.T) {
	pj, err := exec.LookPath("pj_dump")
	if err != nil {
		t.Skip("pj_dump (Debian package pajeng) is not installed")
	}
	path := filepath.Join(corpus, "pajeng/traces/simu-mardi.trace")
	in, err := os.ReadFile(path)
	if err != nil {
		t.Skip("the shared trace corpus is absent: ", err)
	}
	bin := buildCLI(t)
	for _, c := range []struct {
		args  []string
		stdin []byte
	}{
		{nil, in},
		{[]string{"-h"}, in},
		{[]string{"/nonexistent/trace.paje"}, nil},
	} {
		want := execute(t, pj, append([]string(nil), c.args...), c.stdin)
		got := execute(t, bin, append([]string{"dump"}, c.args...), c.stdin)
		if got.status != want.status || got.stdout != want.stdout || got.stderr != want.stderr {
			t.Errorf("%v: status %d (pj_dump %d), stderr %q (pj_dump %q)\n%s", c.args, got.status, want.status,
				got.stderr, want.stderr, readertest.FirstDiff(got.stdout, want.stdout))
		}
	}
}

func equalFiles(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestParseDumpArgs(t *testing.T) {
	cases := []struct {
		args []string
		want dumpFlags
	}{
		{[]string{"-nq", "t.paje"}, dumpFlags{noStrict: true, quiet: true, file: "t.paje"}},
		{[]string{"t.paje", "-i", "--entity-h=e.csv"}, dumpFlags{noImbrication: true, entityHierarchy: "e.csv", file: "t.paje"}},
		{[]string{"--type-hierarchy", "ty.csv", "-zh", "--", "-odd.paje"}, dumpFlags{typeHierarchy: "ty.csv", ignoreIncomplete: true, header: true, file: "-odd.paje"}},
		{[]string{"-l9"}, dumpFlags{precision: 9}},
		{[]string{"-hl", "0"}, dumpFlags{header: true, precision: -1}},
		{[]string{"--float=-3", "--format", "otf2", "--up", "x"}, dumpFlags{precision: 0, format: "otf2", upstream: true, file: "x"}},
		{[]string{"-?"}, dumpFlags{help: true}},
	}
	for _, c := range cases {
		got, err := parseDumpArgs(c.args)
		if err != nil || got != c.want {
			t.Errorf("%q: %+v, %v; want %+v", c.args, got, err, c.want)
		}
	}
	for args, msg := range map[string]string{
		"-x":          "invalid option -- 'x'",
		"-s 1":        "pj_dump's option -s (--start) is not supported",
		"--sto 1":     "pj_dump's option --stop-at is not supported",
		"--s=1":       "option --s is ambiguous (start, stop-at)",
		"--quiet=yes": "option --quiet does not take an argument",
		"--entity":    "option --entity-hierarchy requires an argument",
		"a b":         "one trace at a time (got 2: a b)",
		"--nothing":   "unrecognized option --nothing",
	} {
		if _, err := parseDumpArgs(strings.Fields(args)); err == nil || err.Error() != msg {
			t.Errorf("%q: error %v, want %q", args, err, msg)
		}
	}
}

// TestDumpDirectoryRefusedForWhatItIs: a directory no format reads is
// refused by dump as by the other commands, for what it is (hpcrun's
// measurements, Extrae's intermediate files) or as holding no trace; it
// was read as Pajé, which said "read DIR: is a directory" (pj_dump, whose
// reading dump follows, crashes on a directory: there are no words of its
// own to keep).
func TestDumpDirectoryRefusedForWhatItIs(t *testing.T) {
	root := t.TempDir()
	measurements, mpits, empty := filepath.Join(root, "hpctoolkit-measurements"), filepath.Join(root, "extrae"), filepath.Join(root, "empty")
	for _, f := range []struct{ dir, name, text string }{
		{measurements, "a.out-000000-000-a8c0-1.hpcrun", "HPCRUN-profile____"},
		{measurements, "a.out-000000-000-a8c0-1.hpctrace", "HPCRUN-trace______"},
		{mpits, "TRACE.mpits", ""},
		{empty, "", ""},
	} {
		if err := os.MkdirAll(f.dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if f.name != "" {
			if err := os.WriteFile(filepath.Join(f.dir, f.name), []byte(f.text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	checkRefusals(t, []refusal{
		{[]string{"dump", measurements}, StatusFailure, "macroscope dump: " + measurements + ": is an HPCToolkit measurements directory"},
		{[]string{"dump", mpits}, StatusFailure, "macroscope dump: " + mpits + ": is Extrae's intermediate trace"},
		{[]string{"dump", empty}, StatusFailure, "macroscope dump: " + empty + ": is a directory holding no trace Macroscope knows"},
	})
}
