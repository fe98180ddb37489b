package pjdump

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// A split dump of two parts: the hierarchy and a worker state file.
const (
	entities = "Parent, Name, Type, Nature\n0, 0, 0, Container\n0, root, Program, Container\nroot, CPU0, Worker, Container\n"
	states   = "Nature, ResourceId, Type, Start, End, Duration, Depth, Value\n" +
		"State, CPU0, Worker State, 0.5, 1.5, 1.0, 0, Idle\nState, CPU0, Worker State, 1.5, 4, 2.5, 0, Task\n"
)

func splitDump(t *testing.T, parts map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range parts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func readReasons(t *testing.T, path string) (*trace.Trace, []string) {
	t.Helper()
	notes := &trace.Notes{}
	tr := trace.New(path)
	if err := readWith(path, tr, readOptions{ReadOptions: trace.ReadOptions{Notes: notes}}); err != nil {
		t.Fatal(err)
	}
	return tr, notes.IncompleteReasons()
}

// TestMissingParts: a StarVZ part that is empty, a directory or cut in
// its last line marks the trace incomplete, naming the file; the other
// parts are read.
func TestMissingParts(t *testing.T) {
	dir := splitDump(t, map[string]string{"entities.csv": entities, "paje.worker_state.csv": states})
	tr, reasons := readReasons(t, dir)
	if len(reasons) != 0 || tr.States.Len() != 2 {
		t.Fatalf("whole dump: %d states, reasons %q", tr.States.Len(), reasons)
	}

	worker := filepath.Join(dir, "paje.worker_state.csv")
	if err := os.WriteFile(worker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tr, reasons = readReasons(t, dir)
	if want := []string{worker + " is empty: that part of the trace is missing"}; !slices.Equal(reasons, want) || tr.States.Len() != 0 {
		t.Errorf("empty part: %d states, reasons %q, want %q", tr.States.Len(), reasons, want)
	}

	// A directory where a part should be.
	os.Remove(worker)
	if err := os.Mkdir(worker+".gz", 0o755); err != nil {
		t.Fatal(err)
	}
	tr, reasons = readReasons(t, dir)
	if want := []string{worker + ".gz is not a regular file: that part of the trace is missing"}; !slices.Equal(reasons, want) || len(tr.Containers) != 3 {
		t.Errorf("directory part: %d containers, reasons %q, want %q", len(tr.Containers), reasons, want)
	}
	os.Remove(worker + ".gz")

	if err := os.WriteFile(worker, []byte(states[:len(states)-3]), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, reasons = readReasons(t, dir)
	if want := []string{worker + ": the last line (3) has no end of line: the file is cut"}; !slices.Equal(reasons, want) || tr.States.Len() != 2 {
		t.Errorf("cut part: %d states, reasons %q, want %q", tr.States.Len(), reasons, want)
	}
}

// TestStarVZEmptyWorkerState: StarVZ's LU dump with its worker state file
// emptied, or replaced by a directory, reads the other parts and says the
// part is missing; intact, it is complete.
func TestStarVZEmptyWorkerState(t *testing.T) {
	needCorpus(t, luTrace)
	entries, err := os.ReadDir(luTrace)
	if err != nil {
		t.Fatal(err)
	}
	copyDir := func() string {
		dir := t.TempDir()
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join(luTrace, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	read := func(dir string) (*trace.Trace, []string) {
		notes := &trace.Notes{}
		tr := trace.New(dir)
		err := readWith(dir, tr, readOptions{ReadOptions: trace.ReadOptions{Notes: notes}, OnInverted: func(string, int) {}})
		if err != nil {
			t.Fatal(err)
		}
		return tr, notes.IncompleteReasons()
	}
	dir := copyDir()
	tr, reasons := read(dir)
	whole := countStates(tr)["Worker State"]
	if len(reasons) != 0 || whole != 5681 { // MANIFEST.md's count
		t.Fatalf("intact: %d worker states, reasons %q", whole, reasons)
	}
	worker := filepath.Join(dir, "paje.worker_state.csv.gz")
	if err := os.WriteFile(worker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tr, reasons = read(dir)
	if want := []string{worker + " is empty: that part of the trace is missing"}; !slices.Equal(reasons, want) || countStates(tr)["Worker State"] != 0 {
		t.Errorf("emptied: reasons %q, want %q", reasons, want)
	}
	os.Remove(worker)
	if err := os.Mkdir(worker, 0o755); err != nil {
		t.Fatal(err)
	}
	_, reasons = read(dir)
	if want := []string{worker + " is not a regular file: that part of the trace is missing"}; !slices.Equal(reasons, want) {
		t.Errorf("a directory: reasons %q, want %q", reasons, want)
	}
}
