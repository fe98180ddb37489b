package gotrace

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/views/kaleido"
)

// sweep lays out the spawn tree of a trace of testdata/gen/spawn and
// follows its nodes in the order they were created: laps counts the times
// the angle of the next node's sector goes back (the time spectrum going
// around the circle once more), inPreorder tells whether creation follows
// the depth-first preorder of the layout, and outward is the share of
// pairs of nodes at different depths in which the shallower was created
// first (1 when the spectrum runs outward, level by level).
func sweep(t *testing.T, path string) (nodes, levels, laps int, inPreorder bool, outward float64) {
	t.Helper()
	tr, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := kaleido.FromSpawnLinks(tr, LinkSpawn)
	if err != nil {
		t.Fatal(err)
	}
	// The program's calls: the subtree of the goroutine main spawned (the
	// runtime's tracing goroutines are main's other children).
	top := int32(-1)
	for n := range tree.Len() {
		if p := tree.Procedure[n]; p >= 0 && strings.HasPrefix(tree.Procedures[p], "main.main.func") {
			top = int32(n)
			break
		}
	}
	if top < 0 {
		t.Fatalf("%s: no goroutine of main's", path)
	}
	l, err := tree.Layout(kaleido.Options{Width: 2000, Subtree: top})
	if err != nil {
		t.Fatal(err)
	}
	order := make([]int, l.Len())
	for i := range order {
		order[i] = i
	}
	start := func(i int) int64 { return int64(tree.Start[l.Root+int32(i)]) }
	slices.SortStableFunc(order, func(a, b int) int { return int(start(a) - start(b)) })
	inPreorder = slices.IsSorted(order)
	for k := 1; k < len(order); k++ {
		if l.Sector[order[k]] < l.Sector[order[k-1]] {
			laps++
		}
	}
	pairs, first := 0, 0
	for a := range order {
		for b := range order {
			if l.Level[a] < l.Level[b] {
				pairs++
				if start(a) <= start(b) {
					first++
				}
			}
		}
	}
	return l.Len(), int(l.Levels), laps, inPreorder, float64(first) / float64(pairs)
}

// Tick and Park read the schedule from the time view: depth first, the
// spectrum goes around the circle once; breadth first, it runs outward,
// going around once per level. The committed traces of quick sort and
// Fibonacci, one call per goroutine, show both.
func TestSpawnTreeSchedules(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "testdata", "spawn")
	for _, c := range []struct {
		file         string
		nodes, level int
	}{
		{"qsort-depth.trace", 133, 13}, {"qsort-breadth.trace", 133, 13},
		{"fib-depth.trace", 109, 9}, {"fib-breadth.trace", 109, 9},
	} {
		nodes, levels, laps, pre, out := sweep(t, filepath.Join(dir, c.file))
		t.Logf("%s: %d calls, %d levels, %d laps, preorder %v, outward %.3f", c.file, nodes, levels, laps, pre, out)
		if nodes != c.nodes || levels != c.level {
			t.Errorf("%s: %d calls in %d levels, want %d in %d", c.file, nodes, levels, c.nodes, c.level)
		}
		checkSchedule(t, c.file, strings.HasSuffix(c.file, "-depth.trace"), levels, laps, pre, out, 0.8)
	}
}

// checkSchedule checks the signature of a schedule: depth first, one lap
// in preorder; breadth first, at least a lap per two levels, not in
// preorder, and a share at least minOut of the pairs created outward.
func checkSchedule(t *testing.T, name string, depthFirst bool, levels, laps int, pre bool, out, minOut float64) {
	t.Helper()
	if depthFirst && (laps != 0 || !pre) {
		t.Errorf("%s: depth first, yet %d laps (preorder %v)", name, laps, pre)
	}
	if !depthFirst && (pre || laps < levels/2 || out < minOut) {
		t.Errorf("%s: breadth first, yet %d laps for %d levels, outward %.3f (preorder %v)", name, laps, levels, out, pre)
	}
}

// The generator, run now with this Go: one call at a time is depth
// first on one processor or two; both children at once is breadth first
// (on two processors, less strictly: how far depends on the load).
func TestSpawnGeneratorSchedules(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generator")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not installed: cannot record a trace")
	}
	for _, limit := range []string{"1", "2"} {
		for _, procs := range []string{"1", "2"} {
			path := filepath.Join(t.TempDir(), "fib.trace")
			out, err := exec.Command("go", "run", "../../../testdata/gen/spawn", "-prog", "fib", "-n", "8",
				"-limit", limit, "-procs", procs, "-o", path).CombinedOutput()
			if err != nil {
				t.Fatalf("go run: %v\n%s", err, out)
			}
			if string(out) != "21\n" {
				t.Errorf("fib(8) = %q", out)
			}
			nodes, levels, laps, pre, outward := sweep(t, path)
			if nodes != 67 { // fib(8) makes 67 calls
				t.Errorf("limit %s procs %s: %d calls", limit, procs, nodes)
			}
			checkSchedule(t, "limit "+limit+" procs "+procs, limit == "1", levels, laps, pre, outward, 0.6)
		}
	}
}
