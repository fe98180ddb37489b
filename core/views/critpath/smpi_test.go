package critpath

import (
	"os"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

func read(t *testing.T, path, format string) *trace.Trace {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Skipf("trace not available: %v", err)
	}
	tr, err := formats.ReadFile(path, format)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

type want struct {
	resource   string
	start, end trace.Time // ns
	via        string
}

// The SMPI runs of testdata/gen/critpath, whose critical path is known by
// construction (README.md there): the segments to the nanosecond, and the
// time on the path in computation.
func TestSMPIKnownPaths(t *testing.T) {
	for _, c := range []struct {
		name      string
		segments  []want
		computing trace.Time
	}{
		{"cp_chain", []want{
			{"rank-0", 0, 1000000000, "start"},
			{"rank-1", 1000000000, 3000004000, "late sender"},
			{"rank-2", 3000004000, 3300008000, "late sender"},
		}, 3300000000},
		{"cp_coll", []want{
			{"rank-0", 0, 3000000000, "start"},
			{"rank-1", 3000000000, 6000008000, "collective"},
			{"rank-2", 6000008000, 9000016000, "collective"},
			{"rank-3", 9000016000, 9000029000, "collective"},
		}, 9000000000},
		{"cp_laterecv", []want{
			{"rank-1", 0, 2000000000, "start"},
			{"rank-0", 2000000000, 2104482000, "late receiver"},
		}, 2100000000},
		{"cp_mixed", []want{
			{"rank-0", 0, 1000000000, "start"},
			{"rank-1", 1000000000, 3000004000, "late sender"},
			{"rank-3", 3000004000, 3400016000, "collective"},
			{"rank-2", 3400016000, 3900020000, "late sender"},
		}, 3900000000},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := read(t, "../../../testdata/critpath/"+c.name+".trace", "paje")
			r, err := Compute(tr, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Segments) != len(c.segments) {
				t.Fatalf("path:\n%s", r)
			}
			for i, s := range r.Segments {
				w := c.segments[i]
				if r.Resources[s.Resource] != w.resource || s.Start != w.start || s.End != w.end || s.Via != w.via {
					t.Errorf("segment %d: %s [%d, %d] %s, want %+v", i, r.Resources[s.Resource], s.Start, s.End, s.Via, w)
				}
			}
			if r.Length() != tr.End-tr.Start {
				t.Errorf("path of %v, trace of %v", r.Length(), tr.End-tr.Start)
			}
			a := r.Attribution
			if a.ByState[0].State != "computing" || a.ByState[0].OnPath != c.computing {
				t.Errorf("by state %+v, want computing %v first", a.ByState, c.computing)
			}
			var sum trace.Time
			for _, p := range a.Pieces {
				sum += p.End - p.Start
			}
			if sum != r.Length() {
				t.Errorf("pieces add up to %v, the path lasts %v", sum, r.Length())
			}
		})
	}
}

// cp_coll's wait states: in iteration k the three ranks other than k%4
// wait in MPI_Allreduce for rank k%4, 2 s each (a little less after the
// first, the network's microseconds).
func TestSMPIWaitStates(t *testing.T) {
	tr := read(t, "../../../testdata/critpath/cp_coll.trace", "paje")
	r, err := Compute(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, w := range r.Waits {
		if w.Kind != Collective {
			t.Errorf("wait %+v", w)
		}
		if w.Wait > 1999990000 {
			n++
		}
		if w.Cause.Resource == w.Call.Resource {
			t.Errorf("wait %+v caused by its own resource", w)
		}
	}
	if n != 9 {
		t.Errorf("%d waits of about 2 s, want 9; waits %+v", n, r.Waits)
	}
}
