package partition

import (
	"fmt"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/readers/hpctoolkit/hpcsynth"
)

func checkHPCToolkit(t *testing.T, path string, counts []int, lines int, kinds ...string) {
	t.Helper()
	for _, n := range counts {
		plan, err := PlanFile(path, "", nil, n)
		if err != nil {
			t.Fatal(err)
		}
		if plan.Order != micro.ByPart || len(plan.Parts) != min(n, lines) {
			t.Fatalf("%d parts of %d trace lines for %d asked", len(plan.Parts), lines, n)
		}
		next := 0
		for _, p := range plan.Parts {
			if p.Options.Int("line_start") != next || p.Options.Int("line_end") <= next {
				t.Fatalf("part %s does not follow line %d", p.Label, next)
			}
			next = p.Options.Int("line_end")
		}
		if next != lines {
			t.Fatalf("the parts end at line %d of %d", next, lines)
		}
		for name, opt := range options() {
			if !contains(kinds, strings.Split(name, "/")[0]) {
				continue
			}
			t.Run(fmt.Sprintf("%d/%s", n, name), func(t *testing.T) {
				exactly(t, name, distributed(t, plan, opt), whole(t, path, "", opt))
			})
		}
		// The moments of the parts: see package moments' tests.
	}
}

func TestHPCToolkitLines(t *testing.T) {
	// 2 ranks x 3 threads and a GPU stream: 7 lines.
	dir := t.TempDir()
	if err := hpcsynth.Write(dir, 2, 3); err != nil {
		t.Fatal(err)
	}
	checkHPCToolkit(t, dir, []int{1, 2, 3, 7, 100}, 7, "states", "average")
}

func TestHPCToolkitCorpus(t *testing.T) {
	for _, tc := range []struct {
		path  []string
		lines int
	}{
		// Trace lines: the count of trace.db's Context Trace Headers
		// section (the u32 at its pointer + 8, read with Python's
		// struct), or the *.hpctrace files of an XML database.
		{[]string{"hpctoolkit-db", "multithread"}, 3},
		{[]string{"hpctoolkit-db", "issue-233-lulesh"}, 135},
		{[]string{"hpctoolkit-db", "xml", "vectorAdd"}, 2},
	} {
		t.Run(strings.Join(tc.path, "/"), func(t *testing.T) {
			path := corpus(t, tc.path...)
			checkHPCToolkit(t, path, []int{1, 2, 3, 7, 1000}, tc.lines, "states", "average")
		})
	}
}
