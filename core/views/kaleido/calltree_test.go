package kaleido

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/ingest"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/readers/chrome"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// corpus is the collection of real traces (see its MANIFEST.md).
const corpus = "../../../../shared/traces"

func need(t *testing.T, path string) string {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s is absent: %v", path, err)
	}
	return path
}

func needTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s is not installed", name)
	}
}

// stateKey identifies a state the way pj_dump prints it.
type stateKey struct {
	container, typ, value string
	start, end            trace.Time
	depth                 int32
}

func keyOfState(tr *trace.Trace, si int32) stateKey {
	s := tr.States.At(int(si))
	return stateKey{tr.Containers[s.Container].Name, tr.TypeName(s.Type), tr.ValueName(s.Value), s.Start, s.End, s.Depth}
}

// edge is a (callee, caller) pair; the caller of an outermost state is the
// zero stateKey.
type edge struct{ child, parent stateKey }

// treeEdges lists the tree's (state, parent state) pairs, sorted.
func treeEdges(tr *trace.Trace, tree *Tree) []edge {
	var out []edge
	for v := 1; v < tree.Len(); v++ {
		e := edge{child: keyOfState(tr, tree.Row[v])}
		if p := tree.Parent[v]; p != 0 {
			e.parent = keyOfState(tr, tree.Row[p])
		}
		out = append(out, e)
	}
	sortEdges(out)
	return out
}

func sortEdges(e []edge) {
	slices.SortFunc(e, func(a, b edge) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
}

// pjdumpEdges runs pj_dump on a Pajé file and pairs each state at
// imbrication k > 0 with the state at imbrication k-1 of the same
// container and type that contains it, which must be unique.
func pjdumpEdges(t *testing.T, path string) []edge {
	t.Helper()
	out, err := exec.Command("pj_dump", path).Output()
	if err != nil {
		t.Fatalf("pj_dump: %v", err)
	}
	type group struct{ container, typ string }
	byGroup := map[group][]stateKey{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.Split(sc.Text(), ", ")
		if f[0] != "State" {
			continue
		}
		start, err1 := trace.ParseTime(f[3])
		end, err2 := trace.ParseTime(f[4])
		var depth float64
		_, err3 := fmt.Sscan(f[6], &depth)
		if err := errors.Join(err1, err2, err3); err != nil {
			t.Fatalf("pj_dump line %q: %v", sc.Text(), err)
		}
		k := stateKey{f[1], f[2], strings.Join(f[7:], ", "), start, end, int32(depth)}
		byGroup[group{f[1], f[2]}] = append(byGroup[group{f[1], f[2]}], k)
	}
	var edges []edge
	for _, states := range byGroup {
		for _, s := range states {
			e := edge{child: s}
			if s.depth > 0 {
				var found []stateKey
				for _, p := range states {
					if p.depth == s.depth-1 && p.start <= s.start && s.end <= p.end {
						found = append(found, p)
					}
				}
				if len(found) != 1 {
					t.Fatalf("pj_dump oracle: %d candidate callers for %+v", len(found), s)
				}
				e.parent = found[0]
			}
			edges = append(edges, e)
		}
	}
	sortEdges(edges)
	return edges
}

// TestCallTreeAgainstPjdump checks every caller-callee pair of the call
// trees of real Pajé traces against the nesting pj_dump prints.
func TestCallTreeAgainstPjdump(t *testing.T) {
	needTool(t, "pj_dump")
	for _, c := range []struct {
		path          string
		nodes, height int
		rootChildren  int
	}{
		// 32 ranks, each a Compute state holding 315 or 325 MPI calls.
		{"../../../testdata/jacobi32.trace", 10273, 3, 32},
		// 2,219 + 440 outermost Thread and Worker states, 659 pushed.
		{corpus + "/pajeng/traces/native_sample.trace", 3319, 3, 2659},
	} {
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			path := need(t, c.path)
			tr, err := readPaje(path)
			if err != nil {
				t.Fatal(err)
			}
			tree, err := FromTrace(tr, TraceOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if tree.Len() != c.nodes || tree.Height != c.height || tree.NumChildren(0) != c.rootChildren {
				t.Errorf("%d nodes, height %d, %d children of the root; want %d, %d, %d",
					tree.Len(), tree.Height, tree.NumChildren(0), c.nodes, c.height, c.rootChildren)
			}
			got, want := treeEdges(tr, tree), pjdumpEdges(t, path)
			if !slices.Equal(got, want) {
				for i := range min(len(got), len(want)) {
					if got[i] != want[i] {
						t.Fatalf("edge %d: got %+v, pj_dump says %+v", i, got[i], want[i])
					}
				}
				t.Fatalf("%d edges, pj_dump gives %d", len(got), len(want))
			}
			checkCallTreeOrder(t, tr, tree)
		})
	}
}

// checkCallTreeOrder verifies the documented order: the root's children
// grouped by container then type, siblings by start time; each PE is the
// state's container and each procedure its value.
func checkCallTreeOrder(t *testing.T, tr *trace.Trace, tree *Tree) {
	t.Helper()
	if tree.Procedures[tree.Procedure[0]] != "program" || tree.PE[0] != None || tree.Row[0] != None {
		t.Errorf("root: procedure %q, PE %d", tree.Procedures[tree.Procedure[0]], tree.PE[0])
	}
	for v := 1; v < tree.Len(); v++ {
		s := tr.States.At(int(tree.Row[v]))
		if tree.PEs[tree.PE[v]] != tr.ContainerPath(s.Container, "/") || tree.Procedures[tree.Procedure[v]] != tr.ValueName(s.Value) || tree.Start[v] != s.Start {
			t.Fatalf("node %d: PE %q procedure %q start %v", v, tree.PEs[tree.PE[v]], tree.Procedures[tree.Procedure[v]], tree.Start[v])
		}
		if tree.Start[v] < tree.Start[0] {
			t.Fatalf("node %d starts before the root", v)
		}
	}
	for v := int32(0); v < int32(tree.Len()); v++ {
		prev := None
		tree.Children(v, func(c int32) bool {
			if prev != None {
				a, b := tr.States.At(int(tree.Row[prev])), tr.States.At(int(tree.Row[c]))
				if a.Container > b.Container || (a.Container == b.Container && a.Type > b.Type) ||
					(a.Container == b.Container && a.Type == b.Type && a.Start > b.Start) {
					t.Fatalf("children of %d out of order: %d then %d", v, prev, c)
				}
			}
			prev = c
			return true
		})
	}
}

// TestCallTreeSelection restricts the tree to state types and containers.
func TestCallTreeSelection(t *testing.T) {
	tr, err := readPaje(need(t, corpus+"/pajeng/traces/native_sample.trace"))
	if err != nil {
		t.Fatal(err)
	}
	tree, err := FromTrace(tr, TraceOptions{StateTypes: []string{"Worker State"}, Root: "run"})
	if err != nil {
		t.Fatal(err)
	}
	if tree.Len() != 441 || tree.Height != 2 || tree.Procedures[tree.Procedure[0]] != "run" {
		t.Errorf("Worker State: %d nodes, height %d", tree.Len(), tree.Height)
	}
	jac, err := readPaje("../../../testdata/jacobi32.trace")
	if err != nil {
		t.Fatal(err)
	}
	statesOn := func(names ...string) int {
		n := 0
		for _, s := range jac.States.All() {
			if slices.Contains(names, jac.Containers[s.Container].Name) {
				n++
			}
		}
		return n
	}
	// A name or a path selects a container, a zone the ranks below it.
	for _, c := range []struct {
		containers []string
		nodes      int
	}{
		{[]string{"rank-3"}, 1 + statesOn("rank-3")},
		{[]string{"alpha/alpha-3/rank-3", "rank-4"}, 1 + statesOn("rank-3", "rank-4")},
		{[]string{"alpha"}, 1 + 8*326 + 8*316}, // 16 ranks of 326 or 316 states
	} {
		tree, err := FromTrace(jac, TraceOptions{Containers: c.containers})
		if err != nil {
			t.Fatal(err)
		}
		if tree.Len() != c.nodes || tree.NumChildren(0) != len(tree.PEs) {
			t.Errorf("%v: %d nodes, want %d; %d PEs", c.containers, tree.Len(), c.nodes, len(tree.PEs))
		}
	}
	// One node per container: MPI rank nodes between the root and the
	// Compute states, starting with them, on their PE.
	tree, err = FromTrace(jac, TraceOptions{PerContainer: true})
	if err != nil {
		t.Fatal(err)
	}
	if tree.Len() != 10273+32 || tree.Height != 4 || tree.NumChildren(0) != 32 {
		t.Fatalf("per container: %d nodes, height %d, %d children of the root", tree.Len(), tree.Height, tree.NumChildren(0))
	}
	i := 0
	tree.Children(0, func(c int32) bool {
		k := tree.NumChildren(c)
		first := c + 1
		s := jac.States.At(int(tree.Row[first]))
		if tree.Row[c] != None || tree.Procedures[tree.Procedure[c]] != "MPI" || k != 1 || tree.PE[c] != int32(i) ||
			tree.PE[first] != int32(i) || jac.ValueName(s.Value) != "Compute" || tree.Start[c] != s.Start {
			t.Errorf("container node %d: row %d procedure %q, %d children, PE %d", c, tree.Row[c], tree.Procedures[tree.Procedure[c]], k, tree.PE[c])
		}
		i++
		return true
	})
	for _, opt := range []TraceOptions{{StateTypes: []string{"nope"}}, {Containers: []string{"nope"}}} {
		var ae *errs.ArgumentError
		if _, err := FromTrace(jac, opt); !errors.As(err, &ae) {
			t.Errorf("%+v: %v", opt, err)
		}
	}
}

// TestCallTreeChrome uses the call stacks of HTA's tests
// (tests/test_trace_call_stack.py), which the Chrome reader reproduces.
func TestCallTreeChrome(t *testing.T) {
	for _, c := range []struct {
		name    string
		ts, dur []int
		callers map[string]string // callee -> caller; "" for outermost
	}{
		{"nested", []int{0, 1, 3, 3, 7, 8, 10, 12, 16}, []int{10, 5, 2, 1, 3, 1, 11, 6, 3},
			map[string]string{"e0": "", "e1": "e0", "e2": "e1", "e3": "e2", "e4": "e0", "e5": "e4", "e6": "", "e7": "e6", "e8": ""}},
		{"zero duration", []int{0, 0, 4, 5}, []int{0, 5, 0, 0},
			map[string]string{"e0": "e1", "e1": "", "e2": "e1", "e3": "e1"}},
		{"zero duration stack", []int{55, 61, 62, 85, 86, 86, 90, 91}, []int{0, 15, 0, 1, 0, 0, 225181, 0},
			map[string]string{"e0": "", "e1": "", "e2": "e1", "e3": "", "e4": "e3", "e5": "e4", "e6": "", "e7": "e6"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			b.WriteString("[")
			for i := range c.ts {
				if i > 0 {
					b.WriteString(",")
				}
				fmt.Fprintf(&b, `{"ph":"X","name":"e%d","pid":1,"tid":2,"ts":%d,"dur":%d}`, i, c.ts[i], c.dur[i])
			}
			b.WriteString("]")
			tr := trace.New("test.json")
			if err := chrome.Decode(strings.NewReader(b.String()), "test.json", 0, tr, trace.ReadOptions{}); err != nil {
				t.Fatal(err)
			}
			tree, err := FromTrace(tr, TraceOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for v := 1; v < tree.Len(); v++ {
				caller := ""
				if p := tree.Parent[v]; p != 0 {
					caller = tree.Procedures[tree.Procedure[p]]
				}
				got[tree.Procedures[tree.Procedure[v]]] = caller
			}
			if fmt.Sprint(got) != fmt.Sprint(c.callers) {
				t.Errorf("callers %v, want %v", got, c.callers)
			}
		})
	}
	// A real Kineto trace: every callee inside its caller, one level up,
	// on the same thread.
	tr, err := formats.ReadFile(need(t, corpus+"/hta/tests/data/call_stack/backward_thread.json"), "chrome")
	if err != nil {
		t.Fatal(err)
	}
	tree, err := FromTrace(tr, TraceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tree.Len() != tr.States.Len()+1 {
		t.Fatalf("%d nodes for %d states", tree.Len(), tr.States.Len())
	}
	maxDepth := int32(0)
	for v := 1; v < tree.Len(); v++ {
		s := tr.States.At(int(tree.Row[v]))
		maxDepth = max(maxDepth, s.Depth)
		if p := tree.Parent[v]; p != 0 {
			ps := tr.States.At(int(tree.Row[p]))
			if ps.Container != s.Container || ps.Depth != s.Depth-1 || ps.Start > s.Start || ps.End < s.End {
				t.Errorf("%s in %s", describeState(tr, tree.Row[v]), describeState(tr, tree.Row[p]))
			}
		}
	}
	if tree.Height != int(maxDepth)+2 {
		t.Errorf("height %d, deepest state at depth %d", tree.Height, maxDepth)
	}
}

// TestCallTreeOTF2 compares the call tree of Score-P's ping-pong with the
// ENTER/LEAVE nesting otf2-print shows.
func TestCallTreeOTF2(t *testing.T) {
	needTool(t, "otf2-print")
	path := need(t, corpus+"/pipit/tests/data/ping-pong-otf2/traces.otf2")
	out, err := exec.Command("otf2-print", path).Output()
	if err != nil {
		t.Fatalf("otf2-print: %v", err)
	}
	re := regexp.MustCompile(`^(ENTER|LEAVE)\s+(\d+)\s+\d+\s+Region: "([^"]*)"`)
	stacks := map[string][]string{}
	var want []string // "callee <- caller @depth"
	for _, line := range strings.Split(string(out), "\n") {
		m := re.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		st := stacks[m[2]]
		if m[1] == "LEAVE" {
			stacks[m[2]] = st[:len(st)-1]
			continue
		}
		caller := "program"
		if len(st) > 0 {
			caller = st[len(st)-1]
		}
		want = append(want, fmt.Sprintf("%s <- %s @%d", m[3], caller, len(st)+1))
		stacks[m[2]] = append(st, m[3])
	}
	tr, err := formats.ReadFile(path, "otf2")
	if err != nil {
		t.Fatal(err)
	}
	tree, err := FromTrace(tr, TraceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for v := 1; v < tree.Len(); v++ {
		got = append(got, fmt.Sprintf("%s <- %s @%d", tree.Procedures[tree.Procedure[v]], tree.Procedures[tree.Procedure[tree.Parent[v]]], tree.Depth[v]))
	}
	slices.Sort(got)
	slices.Sort(want)
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("call tree:\n%v\notf2-print:\n%v", got, want)
	}
}

// TestCallTreeErrors feeds states whose nesting is broken.
func TestCallTreeErrors(t *testing.T) {
	build := func(states ...trace.State) *trace.Trace {
		tr := trace.New("broken.trace")
		tr.DefineType(trace.Type{Name: "T", Kind: trace.KindContainer, Parent: None})
		tr.DefineType(trace.Type{Name: "S", Kind: trace.KindState, Parent: 0})
		tr.DefineValue(trace.Value{Type: 1, Name: "f"})
		tr.CreateContainer(trace.Container{Name: "p", Type: 0, Parent: 0})
		for i, s := range states {
			s.Container, s.Type, s.Order = 1, 1, int32(i)
			tr.State(s)
		}
		tr.Finish(0, 100)
		return tr
	}
	for _, c := range []struct {
		name string
		tr   *trace.Trace
		want string
	}{
		{"depth gap", build(trace.State{Start: 0, End: 10}, trace.State{Start: 1, End: 2, Depth: 2}),
			`state 1 ("f" of type "S" on p, 0.000000001-0.000000002 s, depth 2) has no enclosing state at depth 1`},
		{"outlives its caller", build(trace.State{Start: 0, End: 10}, trace.State{Start: 5, End: 20, Depth: 1}),
			"is not inside the state it nests in, state 0"},
		{"negative depth", build(trace.State{Start: 0, End: 10, Depth: -1}), "no enclosing state at depth -2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := FromTrace(c.tr, TraceOptions{})
			var fe *errs.FormatError
			if !errors.As(err, &fe) || fe.File != "broken.trace" || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want a format error of broken.trace containing %q", err, c.want)
			}
		})
	}
	// No states, no argument: the data's failure (TestCallTreeOfNoStates).
	var ee *errs.EmptyError
	if _, err := FromTrace(build(), TraceOptions{}); !errors.As(err, &ee) {
		t.Errorf("no states: %v", err)
	}
}

// readPaje reads a Pajé trace into memory, its dates in seconds as
// pj_dump reads them (the door reads StarPU's in milliseconds).
func readPaje(path string) (*trace.Trace, error) {
	src, _, err := formats.Open(path, "paje", ingest.Values{"time_unit": "s"})
	if err != nil {
		return nil, err
	}
	t := trace.New(path)
	return t, src.Read(t, trace.ReadOptions{})
}

// A trace without states has no call tree, and no argument is to blame
// when none was given: EmptyError; a selection that leaves no state out
// of a trace that has some stays the argument's fault.
func TestCallTreeOfNoStates(t *testing.T) {
	tr := trace.New()
	tr.DefineType(trace.Type{Name: "Host", Kind: trace.KindContainer, Parent: trace.None, Start: trace.None, End: trace.None})
	tr.DefineType(trace.Type{Name: "S", Kind: trace.KindState, Parent: 0, Start: trace.None, End: trace.None})
	tr.CreateContainer(trace.Container{Name: "h", Type: 0, Parent: 0})
	tr.Finish(0, 10)
	_, err := FromTrace(tr, TraceOptions{})
	var ee *errs.EmptyError
	if !errors.As(err, &ee) || ee.Reason != "the trace has no states to build a call tree from" {
		t.Errorf("no states, no argument: %v", err)
	}
	var ae *errs.ArgumentError
	if _, err := FromTrace(tr, TraceOptions{Containers: []string{"h"}}); !errors.As(err, &ae) || ae.Name != "state_types" {
		t.Errorf("no states, containers named: %v", err)
	}
}
