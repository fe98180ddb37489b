package critpath

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/otf2/pyotf2"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// independentReplay is what testdata/gen/critpath_replay.py writes: the
// path and the wait states found from python3-otf2's records alone.
type independentReplay struct {
	Segments []struct {
		Resource   string
		Start, End trace.Time
		Via        string
	}
	Waits []struct {
		Resource    string
		Enter, Wait trace.Time
		Kind        string
	}
}

// replayIndependently runs testdata/gen/critpath_replay.py on an OTF2
// archive.
func replayIndependently(t *testing.T, path string) independentReplay {
	t.Helper()
	out := filepath.Join(t.TempDir(), "replay.json")
	pyotf2.Run(t, "testdata/gen/critpath_replay.py", path, out)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var r independentReplay
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// lastTwo is a resource's location group and location ("MPI Rank
// 3/Master thread"), as the replay names it.
func lastTwo(path string) string {
	parts := strings.Split(path, "/")
	return strings.Join(parts[max(len(parts)-2, 0):], "/")
}

// TestIndependentReplay compares the critical path and the wait states
// of Score-P traces with those of a backward replay written apart, in
// Python on python3-otf2's records (testdata/gen/critpath_replay.py):
// every segment (resource, start, end, how the path got there) and every
// call's wait state (its entry, how long, of which kind), to the
// nanosecond. The traces: CASITA's tests (testdata/casita) and, when the
// corpus is there, its Score-P archives.
func TestIndependentReplay(t *testing.T) {
	for _, c := range pyotf2.MPIArchives() {
		t.Run(c.Name, func(t *testing.T) {
			tr := read(t, c.Path, "otf2")
			r, err := Compute(tr, Options{})
			if err != nil {
				t.Fatal(err)
			}
			sameAsReplay(t, r, c.Path)
		})
	}
}

// sameAsReplay checks r, the critical path of the OTF2 archive at path,
// against critpath_replay.py's.
func sameAsReplay(t *testing.T, r *Result, path string) {
	t.Helper()
	want := replayIndependently(t, path)
	if len(r.Segments) != len(want.Segments) {
		t.Fatalf("%d segments, the replay %d:\n%s", len(r.Segments), len(want.Segments), r)
	}
	for i, s := range r.Segments {
		w := want.Segments[i]
		if lastTwo(r.Resources[s.Resource]) != w.Resource || s.Start != w.Start || s.End != w.End || s.Via != w.Via {
			t.Errorf("segment %d: %s [%d, %d] %s; the replay's %+v", i, r.Resources[s.Resource], s.Start, s.End, s.Via, w)
		}
	}
	type call struct {
		resource string
		enter    trace.Time
	}
	type wait struct {
		wait trace.Time
		kind string
	}
	replayed := map[call]wait{}
	for _, x := range want.Waits {
		replayed[call{x.Resource, x.Enter}] = wait{x.Wait, x.Kind}
	}
	n := 0
	for w, c := range r.WaitCalls() {
		k := call{lastTwo(r.Resources[w.Call.Resource]), c.Enter}
		if x, ok := replayed[k]; !ok || x != (wait{w.Wait, w.Kind.String()}) {
			t.Errorf("%s's call at %d waits %d (%v); the replay's %+v", k.resource, k.enter, w.Wait, w.Kind, x)
		}
		n++
	}
	if n != len(want.Waits) {
		t.Errorf("%d wait states, the replay %d", n, len(want.Waits))
	}
	t.Logf("%d segments, %d wait states equal", len(r.Segments), n)
}
