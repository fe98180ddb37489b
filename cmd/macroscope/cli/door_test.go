package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKeyAndReaderOptions: -key chooses what the model's states are, and
// -read passes a reader's options, checked against the format's.
func TestKeyAndReaderOptions(t *testing.T) {
	dir := t.TempDir()
	byName := mustRun(t, "overview", "--slices", "10", "--out", dir, bundledTrace)
	byType := mustRun(t, "overview", "--slices", "10", "--key", "type", "--out", dir, bundledTrace)
	if !strings.Contains(byName, "x 10 states") || !strings.Contains(byType, "x 1 states") {
		t.Errorf("by name:\n%s\nby type:\n%s", byName, byType)
	}
	strict := mustRun(t, "overview", "--slices", "10", "--read", "strict=true", "--out", dir, bundledTrace)
	if !strings.Contains(strict, "x 10 states") {
		t.Errorf("strict read:\n%s", strict)
	}
	checkRefusals(t, []refusal{
		{[]string{"overview", "--key", "colour", bundledTrace}, 2, `key: must be "name"`},
		{[]string{"overview", "--read", "view=cpu", "--out", dir, bundledTrace}, 2, "view: is not an option of the paje reader"},
		{[]string{"overview", "--read", "strict=maybe", "--out", dir, bundledTrace}, 2, "strict: wants true or false"},
	})
}

// TestCLISaysWhatWasSkipped: the reader's notes are printed.
func TestCLISaysWhatWasSkipped(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.json")
	body := `[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":5},{},{"ph":"P","pid":1,"tid":1,"ts":1},` +
		`{"ph":"X","name":"b","pid":1,"tid":2,"ts":1,"dur":4}`
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, "overview", "--slices", "5", "--out", dir, path)
	if !strings.Contains(out, "warning") || !strings.Contains(out, "skipped 1 ") {
		t.Errorf("no word of what was skipped:\n%s", out)
	}
}

// TestStrictFlag: a cut trace is read with a warning saying it is
// incomplete, and refused with -strict (or -read strict=true), naming the
// file.
func TestStrictFlag(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cut.prv")
	body := "#Paraver (x):1000_ns:1(1):1:1(1:1)\n1:1:1:1:1:0:1000:1\n1:1:1:1:1:0:1"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, "moments", "-q", "--out", dir, path)
	if !strings.Contains(out, "warning    incomplete: "+path+": the last line (3) has no end of line") {
		t.Errorf("no word of the cut:\n%s", out)
	}
	want := path + ": the trace is incomplete (strict read): " + path + ": the last line (3) has no end of line"
	checkRefusals(t, []refusal{
		{[]string{"moments", "--strict", path}, 1, want},
		{[]string{"moments", "--read", "strict=true", path}, 1, want},
		{[]string{"overview", "--strict", "--out", dir, path}, 1, want},
	})
}
