package gotrace

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	xtrace "golang.org/x/exp/trace"

	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/kaleido"
)

// fibTrace records the trace of testdata/gen/fib.go computing fib(n) with
// the installed Go, one goroutine per call.
func fibTrace(t *testing.T, n int) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not installed: cannot record a trace")
	}
	path := filepath.Join(t.TempDir(), "fib.trace")
	out, err := exec.Command("go", "run", "./testdata/gen/fib.go", "-n", strconv.Itoa(n), "-o", path).CombinedOutput()
	if err != nil {
		t.Fatalf("go run fib.go: %v\n%s", err, out)
	}
	return path
}

// creations counts, with the parser itself, the goroutines the trace
// creates and those created by a goroutine.
func creations(t *testing.T, path string) (created, byGoroutine int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := xtrace.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	for {
		ev, err := r.ReadEvent()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind() != xtrace.EventStateTransition {
			continue
		}
		st := ev.StateTransition()
		if st.Resource.Kind != xtrace.ResourceGoroutine {
			continue
		}
		if from, _ := st.Goroutine(); from == xtrace.GoNotExist {
			created++
			if ev.Goroutine() != xtrace.NoGoroutine {
				byGoroutine++
			}
		}
	}
}

// TestFibSpawnTree reads the trace of a divide-and-conquer Fibonacci and
// checks that its goroutine creation tree is fib's call tree: for fib(10),
// 2 F(11) - 1 = 177 goroutines, the 88 with n >= 2 spawning exactly two,
// the 89 others none, 10 levels deep.
func TestFibSpawnTree(t *testing.T) {
	const n = 10
	path := fibTrace(t, n)
	tr, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	compareFacts(t, modelFacts(tr), oracle(t, path))
	checkNesting(t, tr)

	created, byGoroutine := creations(t, path)
	if tr.Links.Len() != byGoroutine {
		t.Errorf("%d spawn links, want %d (creations by a goroutine)", tr.Links.Len(), byGoroutine)
	}
	tree, err := kaleido.FromSpawnLinks(tr, LinkSpawn)
	if err != nil {
		t.Fatal(err)
	}
	// Nodes: the synthetic root, the goroutines nobody created in the
	// trace (main's, at least) and one per creation.
	roots := tree.NumChildren(0)
	if tree.Len() != 1+roots+created {
		t.Errorf("spawn tree of %d nodes, want 1 + %d roots + %d created", tree.Len(), roots, created)
	}
	proc := func(v int32) string { return tree.Procedures[tree.Procedure[v]] }
	// The root of the fib tree: the main.fib goroutine main created.
	top := int32(kaleido.None)
	for v := range int32(tree.Len()) {
		if proc(v) == "main.fib" && proc(tree.Parent[v]) != "main.fib" {
			if top != kaleido.None {
				t.Fatalf("two fib roots under main: nodes %d and %d", top, v)
			}
			top = v
		}
	}
	if top == kaleido.None {
		t.Fatal("no main.fib goroutine created by main")
	}
	size := tree.End[top] - top
	internal, leaves, height := 0, 0, int32(0)
	for v := top; v < tree.End[top]; v++ {
		if proc(v) != "main.fib" {
			t.Errorf("node %d in the fib tree runs %s", v, proc(v))
		}
		switch k := tree.NumChildren(v); k {
		case 0:
			leaves++
		case 2:
			internal++
		default:
			t.Errorf("node %d has %d children, want 0 or 2", v, k)
		}
		height = max(height, tree.Depth[v]-tree.Depth[top]+1)
		// A child is created while its parent lives.
		if v != top {
			c := tr.Containers[tr.Links.At(int(tree.Row[v])).To]
			p := tr.Containers[tr.Links.At(int(tree.Row[v])).From]
			if tree.Start[v] < p.Start || tree.Start[v] > p.End || c.Start != tree.Start[v] || c.End < c.Start {
				t.Errorf("node %d: created at %v, its goroutine lives %v-%v, its parent %v-%v", v, tree.Start[v], c.Start, c.End, p.Start, p.End)
			}
		}
	}
	if size != 177 || internal != 88 || leaves != 89 || height != n {
		t.Errorf("fib tree: %d nodes (%d with two children, %d leaves), %d levels; want 177 (88, 89), %d levels",
			size, internal, leaves, height, n)
	}
	if _, err := tree.Layout(kaleido.Options{Width: 800}); err != nil {
		t.Errorf("layout of the spawn tree: %v", err)
	}

	// The regions nest as calls: each internal goroutine's "fib" region
	// holds its "add" region.
	calls, err := kaleido.FromTrace(tr, kaleido.TraceOptions{StateTypes: []string{StateRegion}})
	if err != nil {
		t.Fatal(err)
	}
	if calls.Len() != 1+2*88 || calls.Height != 3 {
		t.Errorf("region call tree of %d nodes and height %d, want %d and 3", calls.Len(), calls.Height, 1+2*88)
	}
}

// checkNesting checks the nesting contract of the model: per container
// and state type, states at depth 0 follow each other, and a state at
// depth d+1 lies within the state at depth d open when it begins.
func checkNesting(t *testing.T, tr *trace.Trace) {
	t.Helper()
	type key struct{ c, typ int32 }
	byKey := map[key][]trace.State{}
	for _, s := range tr.States.All() {
		if s.End < s.Start {
			t.Fatalf("state %+v ends before it begins", s)
		}
		k := key{s.Container, s.Type}
		byKey[k] = append(byKey[k], s)
	}
	for k, states := range byKey {
		// By Order: the rank by beginning.
		sorted := make([]trace.State, len(states))
		seen := make([]bool, len(states))
		for _, s := range states {
			if int(s.Order) >= len(states) || seen[s.Order] {
				t.Fatalf("%s of %s: Order %d repeated or out of range", tr.TypeName(k.typ), tr.Containers[k.c].Name, s.Order)
			}
			sorted[s.Order], seen[s.Order] = s, true
		}
		var open []trace.State
		for _, s := range sorted {
			for len(open) > 0 && open[len(open)-1].End <= s.Start && len(open) > int(s.Depth) {
				open = open[:len(open)-1]
			}
			if int(s.Depth) != len(open) {
				t.Fatalf("%s of %s: state %v-%v at depth %d, but %d states are open", tr.TypeName(k.typ), tr.Containers[k.c].Name, s.Start, s.End, s.Depth, len(open))
			}
			if len(open) > 0 && s.End > open[len(open)-1].End {
				t.Fatalf("%s of %s: state %v-%v overflows its parent", tr.TypeName(k.typ), tr.Containers[k.c].Name, s.Start, s.End)
			}
			open = append(open, s)
		}
	}
}
