package compare

import (
	"math"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/readers/gotrace"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestGoroutinesPairedByFunction: goroutines are paired by their function
// and their rank among the goroutines of that function, by id, whatever
// ids they have; where a name found as it is in both runs ("G6 f") made
// the ids name the goroutines, and the other goroutines of f were left
// unpaired.
func TestGoroutinesPairedByFunction(t *testing.T) {
	a := tiny(4, span{"Goroutines/G1 main.main", "running", 0, 4}, span{"Goroutines/G5 f", "running", 0, 1},
		span{"Goroutines/G6 f", "running", 1, 2}, span{"Goroutines/G7 g", "running", 2, 3}, span{"Goroutines/G8", "waiting", 0, 4})
	b := tiny(4, span{"Goroutines/G1 main.main", "running", 0, 4}, span{"Goroutines/G9 f", "running", 1, 2},
		span{"Goroutines/G6 f", "running", 0, 1}, span{"Goroutines/G8 g", "running", 2, 3}, span{"Goroutines/G3", "waiting", 0, 4})
	set, err := Build([]Input{{Name: "a", Trace: a}, {Name: "b", Trace: b}}, Options{Slices: 4}, trace.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var leaves []string
	for _, n := range set.Resources.Leaves {
		leaves = append(leaves, set.Resources.Path(n, "/"))
	}
	want := []string{"Goroutines/G1 main.main", "Goroutines/G5 f", "Goroutines/G6 f", "Goroutines/G7 g", "Goroutines/G8"}
	if strings.Join(leaves, ",") != strings.Join(want, ",") {
		t.Fatalf("union leaves %q, want %q", leaves, want)
	}
	// Same behaviour, goroutine for goroutine: no divergence anywhere.
	for l := range set.Resources.Leaves {
		for k := 0; k < set.Slices; k++ {
			if d := CellDivergence([][]float64{set.Cell(0, l, k), set.Cell(1, l, k)}, len(set.States)); d > 1e-12 {
				t.Errorf("%s, slice %d: divergence %g, want 0", leaves[l], k, d)
			}
		}
	}
	note := strings.Join(set.Runs[1].Notes, " ")
	for _, m := range []string{"4 nodes matched", "G6 f as G5 f", "G9 f as G6 f", "G8 g as G7 g"} {
		if !strings.Contains(note, m) {
			t.Errorf("note %q lacks %q", note, m)
		}
	}
	// match="path" keeps them apart, as before.
	set, err = Build([]Input{{Name: "a", Trace: a}, {Name: "b", Trace: b}}, Options{Slices: 4, Match: ByPath}, trace.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(set.Resources.Leaves); n != 8 {
		t.Errorf("by path: %d leaves, want 8", n)
	}
}

// goName reads a goroutine container's name, independently of the
// reader's GoroutineName.
var goName = regexp.MustCompile(`^G(\d+)(?: (.*))?$`)

// TestGoRunsPairedByFunction compares two real runs of the worker pool of
// testdata/gen/gopool (runtime/trace, one run after the other): the
// runtime's goroutines and the program's got other ids in each (the
// watcher is G19 in one, G7 in the other). Every goroutine of the second
// run must sit, cell for cell, where the brute force pairs it: the k-th
// goroutine of a function, by id, with the first run's k-th; its cells are
// those of the run's own model.
func TestGoRunsPairedByFunction(t *testing.T) {
	const slices = 20
	paths := []string{"../../../testdata/compare/go-pool-1.trace", "../../../testdata/compare/go-pool-2.trace"}
	trs := make([]*trace.Trace, 2)
	byFn := make([]map[string][]string, 2) // function -> container names, by id
	for r, p := range paths {
		tr, err := gotrace.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		trs[r] = tr
		byFn[r] = map[string][]string{}
		ids := map[string]int{}
		for _, c := range tr.Containers[1:] {
			if m := goName.FindStringSubmatch(c.Name); m != nil && tr.TypeName(c.Type) == gotrace.TypeGoroutine {
				byFn[r][m[2]] = append(byFn[r][m[2]], c.Name)
				ids[c.Name] = atoi(m[1])
			}
		}
		for _, names := range byFn[r] {
			sort.Slice(names, func(i, j int) bool { return ids[names[i]] < ids[names[j]] })
		}
	}
	if w0, w1 := byFn[0]["main.watcher"], byFn[1]["main.watcher"]; len(w0) != 1 || len(w1) != 1 || w0[0] != "G19 main.watcher" || w1[0] != "G7 main.watcher" {
		t.Fatalf("the watchers are %q and %q", byFn[0]["main.watcher"], byFn[1]["main.watcher"])
	}
	as := map[string]string{} // run 1's goroutine -> run 0's
	for fn, names := range byFn[1] {
		if len(names) != len(byFn[0][fn]) {
			t.Fatalf("%d goroutines of %q in run 1, %d in run 0", len(names), fn, len(byFn[0][fn]))
		}
		for k, n := range names {
			as[n] = byFn[0][fn][k]
		}
	}
	set, err := Build([]Input{{Name: "1", Trace: trs[0]}, {Name: "2", Trace: trs[1]}}, Options{Slices: slices}, trace.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for r := range 2 {
		if set.Runs[r].Resources != len(set.Resources.Leaves) {
			t.Errorf("run %d has %d of the %d leaves: some goroutine unpaired", r, set.Runs[r].Resources, len(set.Resources.Leaves))
		}
	}
	own, err := micro.Build(trs[1], micro.Options{Slices: slices})
	if err != nil {
		t.Fatal(err)
	}
	own = own.ToDense()
	X := len(own.States)
	checked := 0
	for l, n := range own.Tree.Leaves {
		// Function names hold "/" (runtime/trace.(*traceMultiplexer)...):
		// the goroutine is the ancestor under the folder of goroutines.
		path := own.Tree.Path(n, "/")
		g := n
		for g >= 0 && own.Tree.Depth[g] > 2 {
			g = own.Tree.Parent[g]
		}
		if own.Tree.Depth[g] != 2 || own.Tree.Names[own.Tree.Parent[g]] != gotrace.TypeGoroutines {
			continue
		}
		name := own.Tree.Names[g]
		if as[name] == "" {
			t.Fatalf("%s: not a goroutine of the brute force", name)
		}
		at := strings.ReplaceAll(path, name, as[name])
		for k := 0; k < slices; k++ {
			got := cellOf(set, 1, at, k)
			if got == nil {
				t.Fatalf("%s (as %s): no such leaf in the union", path, at)
			}
			for x := 0; x < X; x++ {
				v := own.Values[(l*slices+k)*X+x]
				if math.Abs(got[own.States[x]]-v) > 1e-12 {
					t.Fatalf("%s as %s, slice %d, %s: %g, want %g", path, at, k, own.States[x], got[own.States[x]], v)
				}
			}
		}
		checked++
	}
	if checked < 16 {
		t.Errorf("%d goroutine leaves checked", checked)
	}
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}
