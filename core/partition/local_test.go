package partition

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// checkLocal compares Local with the whole trace's single reader, for
// every model of options, with one worker, two and more than the parts.
func checkLocal(t *testing.T, plan *Plan, want func(micro.Options) (*micro.Model, *micro.Summary), kinds ...string) {
	for name, opt := range options() {
		if !contains(kinds, strings.Split(name, "/")[0]) {
			continue
		}
		t.Run(name, func(t *testing.T) {
			w, wsum := want(opt)
			for _, workers := range []int{1, 2, len(plan.Parts) + 3} {
				var reports int
				var last [2]int64
				ro := trace.ReadOptions{Notes: &trace.Notes{}, Progress: func(done, total int64) {
					reports++
					last = [2]int64{done, total}
				}}
				got, sum, err := Local(plan, opt, ro, workers)
				if err != nil {
					t.Fatal(err)
				}
				same(t, name, got, w)
				if sum.Counts != wsum.Counts {
					t.Fatalf("%d workers: counts %+v, want %+v", workers, sum.Counts, wsum.Counts)
				}
				if skipped := ro.Notes.Skipped(); len(skipped) > 0 {
					t.Fatalf("%d workers: skipped %v", workers, skipped)
				}
				if sum.Start != wsum.Start || sum.End != wsum.End {
					t.Fatalf("%d workers: extent %d-%d, want %d-%d", workers, sum.Start, sum.End, wsum.Start, wsum.End)
				}
				if reports == 0 || last[0] != last[1] || last[0] == 0 {
					t.Fatalf("%d workers: %d progress reports, the last %v", workers, reports, last)
				}
			}
		})
	}
}

func TestLocalOTF2Corpus(t *testing.T) {
	for _, p := range [][]string{
		{"tracer-stencil4d", "stencil4d-otf", "traces-64", "traces.otf2"},
		{"pipit", "tests", "data", "ping-pong-otf2", "traces.otf2"},
		{"pipit", "tests", "data", "ping-pong-otf2-papi", "traces.otf2"},
		{"fastotf2", "sample-traces", "simple-mi300-example-run", "traces.otf2"},
	} {
		t.Run(p[0], func(t *testing.T) {
			path := corpus(t, p...)
			plan, err := PlanFile(path, "", nil, 1)
			if err != nil {
				t.Fatal(err)
			}
			checkLocal(t, plan, func(opt micro.Options) (*micro.Model, *micro.Summary) {
				return wholeSummary(t, path, opt)
			}, "states", "average", "events")
		})
	}
}

// A part per location group: the messages between groups are matched as
// the whole read matches them (stencil4d: 1,024 links between 64 ranks),
// the model and the counts are the whole read's.
func TestLocalOTF2Groups(t *testing.T) {
	for _, tc := range []struct {
		path      []string
		links     bool
		variables bool
	}{
		{[]string{"tracer-stencil4d", "stencil4d-otf", "traces-64", "traces.otf2"}, true, false},
		{[]string{"pipit", "tests", "data", "ping-pong-otf2", "traces.otf2"}, true, false},
		{[]string{"pipit", "tests", "data", "ping-pong-otf2-papi", "traces.otf2"}, true, true},
		// Metric samples of 32 locations in 2 groups.
		{[]string{"fastotf2", "sample-traces", "simple-mi300-example-run", "traces.otf2"}, false, true},
	} {
		t.Run(tc.path[len(tc.path)-2], func(t *testing.T) {
			kinds := []string{"states", "average", "events"}
			if tc.variables {
				kinds = append(kinds, "variables")
			}
			path := corpus(t, tc.path...)
			plan, err := PlanFile(path, "", nil, 1000)
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Parts) < 2 {
				t.Fatalf("%d parts", len(plan.Parts))
			}
			checkLocal(t, plan, func(opt micro.Options) (*micro.Model, *micro.Summary) {
				m, sum := wholeSummary(t, path, opt)
				if tc.links != (sum.Links > 0) {
					t.Errorf("%d links in %s", sum.Links, path)
				}
				return m, sum
			}, kinds...)
		})
	}
}

// wholeSummary is the single reader's model of a file and its summary.
func wholeSummary(t *testing.T, path string, opt micro.Options) (*micro.Model, *micro.Summary) {
	t.Helper()
	src, _, err := formats.Open(path, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	m, sum, err := micro.FromSource(src, opt, trace.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return m, sum
}

func TestLocalParaver(t *testing.T) {
	path := writePRV(t)
	plan, err := PlanFile(path, "", nil, 5)
	if err != nil {
		t.Fatal(err)
	}
	checkLocal(t, plan, func(opt micro.Options) (*micro.Model, *micro.Summary) {
		return wholeSummary(t, path, opt)
	}, "states", "average", "events")
}

func TestLocalKineto(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for rank := range 4 {
		paths = append(paths, writeKineto(t, dir, rank))
	}
	plan, err := PlanRuns(paths, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	checkLocal(t, plan, func(opt micro.Options) (*micro.Model, *micro.Summary) {
		src, err := Runs(plan)
		if err != nil {
			t.Fatal(err)
		}
		m, sum, err := micro.FromSource(src, opt, trace.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return m, sum
	}, "states", "average")
}

// TestLocalCancel: a canceled read stops every part and says so.
func TestLocalCancel(t *testing.T) {
	path := writePRV(t)
	plan, err := PlanFile(path, "", nil, 5)
	if err != nil {
		t.Fatal(err)
	}
	cancel := make(chan struct{})
	close(cancel)
	_, _, err = Local(plan, micro.Options{Slices: 10, Depth: micro.Innermost}, trace.ReadOptions{Cancel: cancel}, 2)
	if !errors.Is(err, trace.ErrCanceled) {
		t.Fatalf("error %v, want %v", err, trace.ErrCanceled)
	}
	// Canceled while reading: from the first progress report on.
	cancel = make(chan struct{})
	var once bool
	ro := trace.ReadOptions{Cancel: cancel, Progress: func(done, total int64) {
		if !once {
			once = true
			close(cancel)
		}
	}}
	if _, _, err = Local(plan, micro.Options{Slices: 10, Depth: micro.Innermost}, ro, 1); !errors.Is(err, trace.ErrCanceled) {
		t.Fatalf("error %v, want %v", err, trace.ErrCanceled)
	}
}

// TestLocalError: a part that fails names itself; the others stop.
func TestLocalError(t *testing.T) {
	dir := t.TempDir()
	good := writeKineto(t, dir, 0)
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"traceEvents":[{"ph":"X","name":`), 0o644); err != nil {
		t.Fatal(err)
	}
	plan, err := PlanRuns([]string{good, bad}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = Local(plan, micro.Options{Slices: 10, Depth: micro.Innermost}, trace.ReadOptions{}, 2)
	if err == nil || !strings.HasPrefix(err.Error(), bad+": ") {
		t.Fatalf("error %v, want one that names %s", err, bad)
	}
}

// An archive whose records outlast its clock properties' trace length
// (testdata/otf2-beyond: two location groups, a record at 150 ns, a length
// of 100 ns, a message between the groups): the window guessed is wrong,
// Local finds out from the merged extent and builds again; the model is
// the single stream's, which reads twice too.
func TestLocalOTF2WrongWindow(t *testing.T) {
	path := filepath.Join("testdata", "otf2-beyond", "traces.otf2")
	plan, err := PlanFile(path, "", nil, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Parts) != 2 {
		t.Fatalf("%d parts, want 2", len(plan.Parts))
	}
	opt := micro.Options{Slices: 7, Depth: micro.Innermost}
	got, sum, err := Local(plan, opt, trace.ReadOptions{}, 2)
	if err != nil {
		t.Fatal(err)
	}
	want, wsum := wholeSummary(t, path, opt)
	same(t, "states", got, want)
	if sum.Passes != 2 || wsum.Passes != 2 || sum.End != 150 || sum.Counts != wsum.Counts || sum.Links != 1 {
		t.Errorf("%d passes, end %d, counts %+v; want 2 passes, end 150, counts %+v with 1 link", sum.Passes, sum.End, sum.Counts, wsum.Counts)
	}
}
