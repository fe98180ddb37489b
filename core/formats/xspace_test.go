package formats

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The profilers' XSpace files are the xplane reader's, by name or by
// content, though Perfetto's reader takes .pb files too; so is the
// directory of a run (which also holds the trace-event JSON jax
// converted), and the log directory above it. Asked to read one as
// Perfetto, the door names the reader to use.
func TestDetectXSpace(t *testing.T) {
	data, err := os.ReadFile("../readers/xplane/testdata/jax_cpu.xplane.pb")
	if err != nil {
		t.Fatal(err)
	}
	json, err := os.ReadFile("../readers/xplane/testdata/jax_cpu.perfetto_trace.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	logdir := t.TempDir()
	run := filepath.Join(logdir, "plugins", "profile", "2026_12_01_07_58_29")
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(dir, name string, b []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	write(run, "perfetto_trace.json.gz", json)
	paths := []string{write(run, "vm.xplane.pb", data), write(logdir, "renamed.pb", data), write(logdir, "space.bin", data), run, logdir}
	for _, p := range paths {
		f, err := Detect(p)
		if err != nil || f.Name != "xplane" {
			t.Errorf("Detect(%s) = %q, %v; want xplane", p, f.Name, err)
		}
	}
	tr, err := ReadFile(logdir, "")
	if err != nil || tr.States.Len() != 108 {
		t.Fatalf("log directory: %v", err)
	}
	if _, err := ReadFile(paths[0], "perfetto"); err == nil || !strings.Contains(err.Error(), `format="xplane"`) {
		t.Errorf("read as perfetto: %v, want the way to the xplane reader", err)
	}
}
