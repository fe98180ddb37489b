// Package pyotf2 runs, for tests, the scripts that write or read OTF2
// archives through the otf2 module of Debian's python3-otf2 (the
// independent oracles and the generators of testdata/gen). A test that
// needs one skips, saying why, where no python3 imports the module; CI
// installs it (.ci/run).
package pyotf2

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Python returns a python3 that imports otf2: the one on PATH, else the
// system's (the bindings come with it, and a virtual environment's
// python3 hides them). ok is false where neither does.
func Python() (path string, ok bool) {
	for _, name := range []string{"python3", "/usr/bin/python3"} {
		if p, err := exec.LookPath(name); err == nil && exec.Command(p, "-c", "import otf2").Run() == nil {
			return p, true
		}
	}
	return "", false
}

// Need returns Python's python3, or skips t where there is none.
func Need(t testing.TB) string {
	t.Helper()
	py, ok := Python()
	if !ok {
		t.Skip("no python3 with the otf2 module (Debian: python3-otf2)")
	}
	return py
}

// Run runs the script at path script, relative to the repository's root
// ("testdata/gen/critpath_replay.py"), with args, and fails t with its
// output if it fails. It skips t where no python3 imports otf2.
func Run(t testing.TB, script string, args ...string) {
	t.Helper()
	py := Need(t)
	if b, err := exec.Command(py, append([]string{filepath.Join(root(), script)}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", script, err, b)
	}
}

// root is the repository's root, four directories above this file's.
func root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "..")
}

// HybridRun is a run of MPI ranks and their threads as
// testdata/gen/hybrid_otf2.py reads it: its duration in ns, and each
// thread's records in order.
type HybridRun struct {
	Duration int      `json:"duration"`
	Threads  []Thread `json:"threads"`
	// Comms are communicators of some ranks of MPI_COMM_WORLD, by the
	// key a "coll_end" record names as its fifth field.
	Comms map[string]Comm `json:"comms,omitempty"`
}

// Comm is a communicator of the ranks Ranks of MPI_COMM_WORLD named Name
// (several may share a name).
type Comm struct {
	Name  string `json:"name"`
	Ranks []int  `json:"ranks"`
}

// Thread is thread Thread of rank Process and its records, each a time
// in ns and what happens then: "enter" or "leave" and a region's name,
// "coll_begin", or "coll_end" and optionally an operation ("REDUCE") and
// its root rank (else MPI_Allreduce), then the communicator: the key of
// one of the run's Comms or "MPI_COMM_SELF" (else MPI_COMM_WORLD).
type Thread struct {
	Process int     `json:"process"`
	Thread  int     `json:"thread"`
	Records [][]any `json:"records"`
}

// Add appends a record at time at (ns).
func (th *Thread) Add(at int, record ...any) {
	th.Records = append(th.Records, append([]any{at}, record...))
}

// WriteHybrid writes run as Score-P would through
// testdata/gen/hybrid_otf2.py into a directory of t's, and returns the
// archive's anchor file. It skips t where no python3 imports otf2.
func WriteHybrid(t testing.TB, run HybridRun) string {
	t.Helper()
	js, err := json.Marshal(run)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	desc := filepath.Join(dir, "run.json")
	if err := os.WriteFile(desc, js, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "otf2")
	Run(t, "testdata/gen/hybrid_otf2.py", desc, out)
	return filepath.Join(out, "traces.otf2")
}

// Archive is a real OTF2 archive: a name for a subtest and the path of its
// anchor file.
type Archive struct{ Name, Path string }

// MPIArchives are the Score-P archives of MPI runs (messages and
// collectives) on which the independent scripts check our analyses:
// CASITA's tests, kept in testdata, and the corpus's, which may be absent
// (a test skips those). Paths are absolute.
func MPIArchives() []Archive {
	corpus := filepath.Join(root(), "..", "shared", "traces")
	return []Archive{
		{"casita-10_scorep_mpi_tags", filepath.Join(root(), "testdata", "casita", "10_scorep_mpi_tags", "traces.otf2")},
		{"casita-4_mpi_ls_barr", filepath.Join(root(), "testdata", "casita", "4_mpi_ls_barr", "traces.otf2")},
		{"ping-pong-otf2", filepath.Join(corpus, "pipit", "tests", "data", "ping-pong-otf2", "traces.otf2")},
		{"stencil4d-32", filepath.Join(corpus, "tracer-stencil4d", "stencil4d-otf", "traces-32", "traces.otf2")},
		{"stencil4d-64", filepath.Join(corpus, "tracer-stencil4d", "stencil4d-otf", "traces-64", "traces.otf2")},
	}
}
