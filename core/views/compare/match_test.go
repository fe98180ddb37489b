package compare

import (
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestNamePattern: every number of a name, signed or hexadecimal, is one #.
func TestNamePattern(t *testing.T) {
	for name, want := range map[string]string{
		"thread 3113936 (python3.8)": "thread # (python#.#)",
		"-1029147072":                "#",
		"python3 (145)":              "python# (#)",
		"c0-5":                       "c#-#",
		"stream 0x7f3a":              "stream #",
		"MPI_Send":                   "MPI_Send",
	} {
		if got := namePattern(name); got != want {
			t.Errorf("namePattern(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestMatchByName: two ranks' profiles of one job, whose process, GPU and
// thread names carry the rank's ids, are matched resource by resource
// (by default, and said in the run's notes); where some names of a
// pattern are shared (ranks r0 in both runs), the numbers name the
// resources and the others stay apart; match "path" keeps every name
// apart.
func TestMatchByName(t *testing.T) {
	a := tiny(2, span{"py (GPU 3)/stream 7", "k", 0, 1}, span{"py (GPU 3)/stream 22", "k", 0, 2},
		span{"py (CPU)/thread 3113936", "op", 0, 2}, span{"py (CPU)/-1029147072", "op", 0, 1},
		span{"mpi/r0", "Compute", 0, 1}, span{"mpi/r1", "Compute", 0, 1})
	b := tiny(2, span{"py (GPU 1)/stream 7", "k", 0, 1}, span{"py (GPU 1)/stream 14", "k", 0, 1},
		span{"py (CPU)/thread 3126441", "op", 0, 2}, span{"py (CPU)/-19360192", "op", 0, 1},
		span{"mpi/r0", "Compute", 0, 1}, span{"mpi/r2", "Compute", 0, 1})
	paths := func(m Match) ([]string, *Set) {
		set, err := Build([]Input{{Name: "A", Trace: a}, {Name: "B", Trace: b}}, Options{Slices: 2, Match: m}, trace.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, n := range set.Resources.Leaves {
			out = append(out, set.Resources.Path(n, "/"))
		}
		return out, set
	}
	got, set := paths("")
	want := []string{"py (GPU 3)/stream 7", "py (GPU 3)/stream 22", "py (GPU 3)/stream 14", "py (CPU)/thread 3113936",
		"py (CPU)/-1029147072", "mpi/r0", "mpi/r1", "mpi/r2"}
	if !slices.Equal(got, want) {
		t.Fatalf("union %q, want %q", got, want)
	}
	if set.Runs[0].Matched != 0 || set.Runs[1].Matched != 3 || set.Runs[1].Missing != 2 {
		t.Errorf("matched %d %d, missing %d", set.Runs[0].Matched, set.Runs[1].Matched, set.Runs[1].Missing)
	}
	if n := strings.Join(set.Runs[1].Notes, "\n"); !strings.Contains(n, "3 nodes matched") ||
		!strings.Contains(n, "py (GPU 1) as py (GPU 3)") || !strings.Contains(n, "thread 3126441 as thread 3113936") {
		t.Errorf("notes %q", n)
	}
	// The matched thread has B's states.
	if c := cellOf(set, 1, "py (CPU)/-1029147072", 0); !sameCell(c, map[string]float64{"op": 1}) {
		t.Errorf("B's matched thread, slice 0: %v", c)
	}
	if got, _ := paths(ByPath); len(got) != 11 {
		t.Errorf("by path: %d leaves %q, want 11", len(got), got)
	}
}

// TestMatchNested: Go goroutines named by id and function, whose state
// lanes repeat the id, are matched by function; only the goroutine is
// listed as matched.
func TestMatchNested(t *testing.T) {
	a := tiny(2, span{"G23 runtime.f/G23 runtime.f [state]", "Running", 0, 1}, span{"G1 main.main/G1 main.main [state]", "Running", 0, 2})
	b := tiny(2, span{"G21 runtime.f/G21 runtime.f [state]", "Running", 0, 2}, span{"G1 main.main/G1 main.main [state]", "Running", 0, 2})
	set, err := Build([]Input{{Name: "A", Trace: a}, {Name: "B", Trace: b}}, Options{Slices: 2}, trace.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Resources.Leaves) != 2 || set.Runs[1].Matched != 1 || set.Runs[1].Missing != 0 {
		t.Errorf("%d leaves, matched %d, missing %d, notes %q", len(set.Resources.Leaves), set.Runs[1].Matched,
			set.Runs[1].Missing, set.Runs[1].Notes)
	}
	if c := cellOf(set, 1, "G23 runtime.f/G23 runtime.f [state]", 1); !sameCell(c, map[string]float64{"Running": 1}) {
		t.Errorf("B's goroutine in slice 1: %v", c)
	}
}
