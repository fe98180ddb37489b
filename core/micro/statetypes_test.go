package micro

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// twoStateTypes is a host type holding states of two state types, A and
// B: host h has both (B nested), host g only A's.
func twoStateTypes() *trace.Trace {
	tr := trace.New("two types")
	tr.DefineType(trace.Type{Name: "Host", Kind: trace.KindContainer, Parent: trace.None}) // 0
	tr.DefineType(trace.Type{Name: "A", Kind: trace.KindState, Parent: 0})                 // 1
	tr.DefineType(trace.Type{Name: "B", Kind: trace.KindState, Parent: 0})                 // 2
	for _, v := range []trace.Value{{Type: 1, Name: "a1"}, {Type: 1, Name: "a2"}, {Type: 2, Name: "b1"}, {Type: 2, Name: "b2"}} {
		tr.DefineValue(v)
	}
	tr.CreateContainer(trace.Container{Name: "h", Type: 0, Parent: 0}) // 1
	tr.CreateContainer(trace.Container{Name: "g", Type: 0, Parent: 0}) // 2
	tr.State(trace.State{Container: 1, Type: 1, Value: 0, Start: 0, End: 6})
	tr.State(trace.State{Container: 1, Type: 2, Value: 3, Start: 3, End: 5, Depth: 1})
	tr.State(trace.State{Container: 1, Type: 1, Value: 1, Start: 6, End: 10})
	tr.State(trace.State{Container: 1, Type: 2, Value: 2, Start: 2, End: 8})
	tr.State(trace.State{Container: 2, Type: 1, Value: 1, Start: 5, End: 10})
	tr.Finish(0, 10)
	return tr
}

func leafNames(m *Model) []string {
	var names []string
	for _, l := range m.Tree.Leaves {
		names = append(names, m.Tree.Path(l, "/"))
	}
	return names
}

func TestLeafPerStateType(t *testing.T) {
	tr := twoStateTypes()
	m, err := Build(tr, Options{Slices: 2, Depth: Innermost})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := leafNames(m), []string{"h/h [A]", "h/h [B]", "g/g [A]", "g/g [B]"}; !slices.Equal(got, want) {
		t.Fatalf("leaves %q, want %q", got, want)
	}
	if !slices.Equal(m.States, []string{"a1", "a2", "b1", "b2"}) {
		t.Fatalf("states %q", m.States)
	}
	for i, l := range m.Tree.Leaves {
		if want := int32(1 + i%2); m.StateType[l] != want || m.Container[l] != trace.None {
			t.Errorf("leaf %d: state type %d container %d, want %d and none", i, m.StateType[l], m.Container[l], want)
		}
	}
	// [0, 5) and [5, 10): h [A] is a1 then a2 from 6; h [B] is b1 but
	// for b2 over [3, 5).
	want := [4][2][4]float64{
		{{1, 0, 0, 0}, {0.2, 0.8, 0, 0}},
		{{0, 0, 0.2, 0.4}, {0, 0, 0.6, 0}},
		{{0, 0, 0, 0}, {0, 1, 0, 0}},
		{},
	}
	for leaf := range want {
		for k := range want[leaf] {
			for x, v := range want[leaf][k] {
				if got := m.Value(leaf, k, x); got != v {
					t.Errorf("leaf %s slice %d %s: %v, want %v", leafNames(m)[leaf], k, m.States[x], got, v)
				}
			}
		}
	}
	// Streamed, in the trace's order.
	got, _, err := Stream(replay(tr), Options{Slices: 2, Depth: Innermost}, trace.ReadOptions{}, exactProbe(tr))
	sameResult(t, "stream", m, nil, got, err)

	// Selecting one type gives one leaf per container, named after it.
	one, err := Build(tr, Options{Slices: 2, StateTypes: []string{"B"}, Depth: Innermost})
	if err != nil {
		t.Fatal(err)
	}
	if got := leafNames(one); !slices.Equal(got, []string{"h", "g"}) {
		t.Fatalf("B only: leaves %q", got)
	}
	if one.Value(0, 0, 1) != 0.4 || one.StateType[one.Tree.Leaves[0]] != trace.None {
		t.Errorf("B only: b2 %v, state type %d", one.Value(0, 0, 1), one.StateType[one.Tree.Leaves[0]])
	}
}

// A container with resources below it and states of two types of its
// own gets a leaf per type beside its children.
func TestLeafPerStateTypeBesideChildren(t *testing.T) {
	tr := trace.New("nested")
	tr.DefineType(trace.Type{Name: "Host", Kind: trace.KindContainer, Parent: trace.None}) // 0
	tr.DefineType(trace.Type{Name: "A", Kind: trace.KindState, Parent: 0})                 // 1
	tr.DefineType(trace.Type{Name: "B", Kind: trace.KindState, Parent: 0})                 // 2
	tr.DefineType(trace.Type{Name: "VM", Kind: trace.KindContainer, Parent: 0})            // 3
	tr.DefineType(trace.Type{Name: "C", Kind: trace.KindState, Parent: 3})                 // 4
	tr.DefineValue(trace.Value{Type: 1, Name: "a"})
	tr.DefineValue(trace.Value{Type: 2, Name: "b"})
	tr.DefineValue(trace.Value{Type: 4, Name: "c"})
	tr.CreateContainer(trace.Container{Name: "h", Type: 0, Parent: 0}) // 1
	tr.CreateContainer(trace.Container{Name: "v", Type: 3, Parent: 1}) // 2
	tr.State(trace.State{Container: 1, Type: 1, Value: 0, Start: 0, End: 4})
	tr.State(trace.State{Container: 1, Type: 2, Value: 1, Start: 0, End: 10})
	tr.State(trace.State{Container: 2, Type: 4, Value: 2, Start: 5, End: 10})
	tr.Finish(0, 10)
	m, err := Build(tr, Options{Slices: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := leafNames(m), []string{"h/h [A]", "h/h [B]", "h/v"}; !slices.Equal(got, want) {
		t.Fatalf("leaves %q, want %q", got, want)
	}
	for leaf, want := range [][3]float64{{0.4, 0, 0}, {0, 1, 0}, {0, 0, 0.5}} {
		for x, v := range want {
			if got := m.Value(leaf, 0, x); got != v {
				t.Errorf("leaf %d %s: %v, want %v", leaf, m.States[x], got, v)
			}
		}
	}
	got, _, err := Stream(replay(tr), Options{Slices: 1}, trace.ReadOptions{}, exactProbe(tr))
	sameResult(t, "stream", m, nil, got, err)
}

// unionTime is the time the intervals cover in [lo, hi): sorted and
// merged.
func unionTime(ivs [][2]trace.Time, lo, hi trace.Time) trace.Time {
	slices.SortFunc(ivs, func(a, b [2]trace.Time) int { return int(a[0] - b[0]) })
	var total, curA, curB trace.Time
	open := false
	for _, iv := range ivs {
		a, b := max(iv[0], lo), min(iv[1], hi)
		if b <= a {
			continue
		}
		if open && a <= curB {
			curB = max(curB, b)
			continue
		}
		if open {
			total += curB - curA
		}
		curA, curB, open = a, b, true
	}
	if open {
		total += curB - curA
	}
	return total
}

// On SimGrid's simu-mardi, hosts have a PM and a SERVICE state: each is a
// row whose proportions add up to at most 1 in every slice, and to the
// time its states cover.
func TestSimuMardiRowsPerStateType(t *testing.T) {
	path := filepath.Join("..", "..", "..", "shared", "traces", "pajeng", "traces", "simu-mardi.trace")
	if _, err := os.Stat(path); err != nil {
		t.Skip("the shared corpus is absent:", err)
	}
	tr, err := formats.ReadFile(path, "paje")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 50} {
		opt := Options{Slices: n, Depth: Innermost}
		m, err := Build(tr, opt)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := ReadFile(path, "paje", opt, trace.ReadOptions{})
		sameResult(t, fmt.Sprintf("%d slices", n), m, nil, got, err)
		// The states of each (container, state type), as intervals.
		type row struct{ c, typ int32 }
		ivs := map[row][][2]trace.Time{}
		for _, s := range tr.States.All() {
			ivs[row{s.Container, s.Type}] = append(ivs[row{s.Container, s.Type}], [2]trace.Time{s.Start, s.End})
		}
		names := leafNames(m)
		found := 0
		for leaf, node := range m.Tree.Leaves {
			c, typ := m.Container[m.Tree.Parent[node]], m.StateType[node]
			if typ == trace.None {
				t.Fatalf("leaf %s has no state type", names[leaf])
			}
			if want := leafName(tr.Containers[c].Name, tr.Types[typ].Name); m.Tree.Names[node] != want {
				t.Fatalf("leaf %s, want %s", m.Tree.Names[node], want)
			}
			covered := 0.0
			for k := 0; k < n; k++ {
				sum := 0.0
				for x := range m.States {
					sum += m.Value(leaf, k, x)
				}
				if sum > 1+1e-12 {
					t.Fatalf("%s slice %d: proportions add up to %v", names[leaf], k, sum)
				}
				covered += sum
			}
			want := unionTime(ivs[row{c, typ}], m.Start, m.End).Seconds()
			if got := covered * m.SliceDuration(); got < want-1e-9*want || got > want+1e-9*want {
				t.Errorf("%s: %v s in states, the trace's states cover %v s", names[leaf], got, want)
			}
			if tr.Containers[c].Name == "node32" {
				found++
			}
		}
		if !slices.Contains(names, "my_cluster_1/node32/node32 [PM]") || !slices.Contains(names, "my_cluster_1/node32/node32 [SERVICE]") || found != 2 {
			t.Errorf("node32's rows are missing: %d found", found)
		}
		// 101 hosts in the file (PajeCreateContainer of type 2), two rows each.
		if len(m.Tree.Leaves) != 202 {
			t.Errorf("%d leaves, want 202", len(m.Tree.Leaves))
		}
	}
}
