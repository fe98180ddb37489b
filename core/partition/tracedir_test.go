package partition_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/partition"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// rankFile writes a one-kernel Chrome trace of rank r into dir.
func rankFile(t testing.TB, dir string, r int) string {
	path := filepath.Join(dir, fmt.Sprintf("rank-%d.json", r))
	body := fmt.Sprintf(`{"traceEvents":[{"ph":"X","name":"ncclKernel_AllReduce","pid":%d,"tid":7,"ts":%d,"dur":10}]}`, r, 100+r)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTraceFiles(t *testing.T) {
	dir := t.TempDir()
	if got := partition.TraceFiles(dir, ""); got != nil {
		t.Errorf("empty directory: %v", got)
	}
	a := rankFile(t, dir, 0)
	if got := partition.TraceFiles(dir, ""); got != nil {
		t.Errorf("one trace: %v, want nil (the readers say what they make of it)", got)
	}
	b := rankFile(t, dir, 1)
	os.WriteFile(filepath.Join(dir, "README.txt"), []byte("notes, not a trace"), 0o644)
	os.WriteFile(filepath.Join(dir, ".hidden.json"), []byte(`{"traceEvents":[]}`), 0o644)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.Symlink(filepath.Join(dir, "sub"), filepath.Join(dir, "link-to-sub"))
	os.Symlink(filepath.Join(dir, "gone"), filepath.Join(dir, "dangling"))
	if got := partition.TraceFiles(dir, ""); !slices.Equal(got, []string{a, b}) {
		t.Errorf("two ranks and other files: %v, want %v", got, []string{a, b})
	}
	if got := partition.TraceFiles(a, ""); got != nil {
		t.Errorf("a file: %v", got)
	}
	// A link to a trace file counts as the file.
	other := t.TempDir()
	c := rankFile(t, other, 2)
	os.Symlink(c, filepath.Join(dir, "rank-2.json"))
	if got := partition.TraceFiles(dir, ""); len(got) != 3 || got[2] != filepath.Join(dir, "rank-2.json") {
		t.Errorf("with a link to a rank file: %v", got)
	}
	// Traces of two formats are not one job's ranks.
	os.WriteFile(filepath.Join(dir, "x.trace"), []byte("%EventDef PajeDefineContainerType 0\n%       Alias string\n%       Type string\n%       Name string\n%EndEventDef\n"), 0o644)
	if got := partition.TraceFiles(dir, ""); got != nil {
		t.Errorf("mixed formats: %v", got)
	}
	// Unless a format is given: its files are taken as they are.
	if got := partition.TraceFiles(dir, "chrome"); len(got) != 5 {
		t.Errorf("format given: %v", got)
	}
}

func TestOpenRunsNamesTheFormat(t *testing.T) {
	dir := t.TempDir()
	paths := []string{rankFile(t, dir, 0), rankFile(t, dir, 1)}
	src, format, err := partition.OpenRuns(paths, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := trace.New(src.Files...)
	if err := src.Read(tr, trace.ReadOptions{Notes: &trace.Notes{}}); err != nil {
		t.Fatal(err)
	}
	if format != "chrome" || tr.States.Len() != 2 {
		t.Errorf("format %q, %d states", format, tr.States.Len())
	}
	if _, _, err := partition.OpenRuns(nil, "", nil); err == nil {
		t.Error("no file accepted")
	}
}

// The ranks' files of a job, found in their directory, read as one trace:
// a container of type "Run" per file.
func ExampleTraceFiles() {
	dir, _ := os.MkdirTemp("", "job")
	defer os.RemoveAll(dir)
	for r := range 2 {
		body := fmt.Sprintf(`{"traceEvents":[{"ph":"X","name":"step","pid":%d,"tid":1,"ts":%d,"dur":10}]}`, r, 100+r)
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("rank-%d.json", r)), []byte(body), 0o644)
	}
	files := partition.TraceFiles(dir, "")
	src, format, err := partition.OpenRuns(files, "", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	tr := trace.New(src.Files...)
	if err := src.Read(tr, trace.ReadOptions{Notes: &trace.Notes{}}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(files), "files,", format)
	for _, c := range tr.Containers {
		if c.Type >= 0 && tr.Types[c.Type].Name == partition.RunType {
			fmt.Println(c.Name)
		}
	}
	// Output:
	// 2 files, chrome
	// rank-0.json
	// rank-1.json
}

// TestOpenDirectoryWithFormat checks that a directory of ranks is read as
// one trace when the format is given too: the format's reader would take
// the directory for a file and fail only when reading it.
func TestOpenDirectoryWithFormat(t *testing.T) {
	dir := t.TempDir()
	rankFile(t, dir, 0)
	rankFile(t, dir, 1)
	for _, format := range []string{"", "chrome"} {
		src, name, err := partition.Open(dir, format, nil)
		if err != nil {
			t.Fatalf("format %q: %v", format, err)
		}
		tr := trace.New(src.Files...)
		if err := src.Read(tr, trace.ReadOptions{Notes: &trace.Notes{}}); err != nil {
			t.Fatalf("format %q: %v", format, err)
		}
		if name != "chrome" || tr.States.Len() != 2 {
			t.Errorf("format %q: read as %q, %d states; want chrome, 2", format, name, tr.States.Len())
		}
	}
	// A file is opened as it is.
	if _, name, err := partition.Open(filepath.Join(dir, "rank-0.json"), "chrome", nil); err != nil || name != "chrome" {
		t.Errorf("a file: %q, %v", name, err)
	}
}

// hpcrun's measurements directory holds a trace file per rank, but they
// are not traces to read apart: the directory is one thing, still to be
// processed by hpcprof, and the reader says so.
func TestMeasurementsAreNotRanks(t *testing.T) {
	dir := t.TempDir()
	for r := range 3 {
		base := filepath.Join(dir, fmt.Sprintf("app-%06d-000-11ac0300-4974-0", r))
		os.WriteFile(base+".hpcrun", []byte("HPCRUN-profile____04.00b"), 0o644)
		os.WriteFile(base+".hpctrace", append([]byte("HPCRUN-trace______01.01b"), make([]byte, 8)...), 0o644)
	}
	if got := partition.TraceFiles(dir, ""); got != nil {
		t.Errorf("measurements taken as ranks: %v", got)
	}
}
