package moments

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// twoTypesTrace: hosts holding states of two state types, A and B.
//
//	h: A a1 [0,6], a2 [6,10]; B b1 [2,8] with b2 [3,5] pushed over it,
//	   b1 again [12,14].
//	g: A a2 [5,10] only.
const twoTypesTrace = pajeHeader + `0 H 0 Host
2 A H A
2 B H B
6 0 h H 0 h
6 0 g H 0 g
11 0 A h a1
11 2 B h b1
12 3 B h b2
13 5 B h
11 5 A g a2
11 6 A h a2
13 8 B h
13 10 A h
13 10 A g
11 12 B h b1
13 14 B h
11 20 A g a2
13 20 A g
`

func TestStateTypesInnermost(t *testing.T) {
	r := analyse(t, twoTypesTrace, Options{ByState: true})
	var names []string
	for _, id := range r.Resources {
		names = append(names, r.Path(id, "/"))
	}
	if want := []string{"h/h [A]", "h/h [B]", "g/g [A]", "g/g [B]"}; !slices.Equal(names, want) {
		t.Fatalf("resources %q, want %q", names, want)
	}
	checkBusy(t, r, "h [A]", ivs(0, 10))
	checkBusy(t, r, "h [B]", ivs(2, 8, 12, 14))
	checkBusy(t, r, "g [A]", ivs(5, 10, 20, 20))
	checkBusy(t, r, "g [B]", nil)
	checkBusy(t, r, "h", nil) // the container itself is not a resource
	hb := containerID(t, r, "h [B]")
	if id, ok := r.Resource(containerID(t, r, "h"), "B"); !ok || id != hb || r.Containers[hb].StateType != "B" {
		t.Errorf("Resource(h, B) = %d %v, want %d", id, ok, hb)
	}
	for value, want := range map[string][]interval{"b1": ivs(2, 3, 5, 8, 12, 14), "b2": ivs(3, 5)} {
		s, ok := stateSums(r, hb, value)
		if !ok {
			t.Fatalf("no sums of %s on h [B]", value)
		}
		checkExact(t, value, s, want)
	}
	// A node counts its busy resources: h's node adds its two rows.
	if got := r.Subtree()[containerID(t, r, "h")].Busy(); got != sec(10+8) {
		t.Errorf("node h busy %v, want 18 s", got)
	}
	rows, err := r.Rows(ByResource)
	if err != nil || len(rows) != 4 || rows[1].Name != "h [B]" || rows[1].Path != "h/h [B]" {
		t.Fatalf("rows %+v, %v", rows, err)
	}
}

func TestStateTypesUnion(t *testing.T) {
	for _, tc := range []struct {
		opt     Options
		h, g    []interval
		byState map[string][]interval // h's
	}{
		{Options{Nesting: Union}, ivs(0, 10, 12, 14), ivs(5, 10), nil},
		// b2 counts inside b1, which does not: its time waits for b1.
		{Options{Nesting: Union, Select: Only, Values: []string{"b2"}}, ivs(3, 5), nil, nil},
		{Options{Nesting: Union, Select: Only, Values: []string{"a2", "b2"}}, ivs(3, 5, 6, 10), ivs(5, 10), nil},
		{Options{Nesting: Union, Select: AllBut, Values: []string{"a1"}, ByState: true}, ivs(2, 10, 12, 14), ivs(5, 10),
			map[string][]interval{"a2": ivs(6, 10), "b1": ivs(2, 8, 12, 14)}},
		{Options{Nesting: Union, Start: ptr(sec(4)), End: ptr(sec(13))}, ivs(4, 10, 12, 13), ivs(5, 10), nil},
	} {
		t.Run(fmt.Sprintf("%v %v window %v", tc.opt.Select, tc.opt.Values, tc.opt.Start != nil), func(t *testing.T) {
			r := analyse(t, twoTypesTrace, tc.opt)
			if len(r.Resources) != 2 {
				t.Fatalf("%d resources, want h and g", len(r.Resources))
			}
			checkBusy(t, r, "h", tc.h)
			checkBusy(t, r, "g", tc.g)
			for value, want := range tc.byState {
				s, ok := stateSums(r, containerID(t, r, "h"), value)
				if !ok {
					t.Fatalf("no sums of %s", value)
				}
				checkExact(t, value, s, want)
			}
		})
	}
}

func ptr(t trace.Time) *trace.Time { return &t }

// unionOf is the busy time of the intervals, sorted and merged, in
// [lo, hi).
func unionOf(ivs []interval, lo, hi trace.Time) trace.Time {
	slices.SortFunc(ivs, func(a, b interval) int { return int(a.a - b.a) })
	var total, curA, curB trace.Time
	open := false
	for _, iv := range ivs {
		a, b := max(iv.a, lo), min(iv.b, hi)
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

// On SimGrid's simu-mardi, hosts have a PM and a SERVICE state. No
// resource is busy longer than the run, and each one's busy time is the
// time its states cover.
func TestSimuMardiStateTypes(t *testing.T) {
	path := filepath.Join("..", "..", "..", "..", "shared", "traces", "pajeng", "traces", "simu-mardi.trace")
	if _, err := os.Stat(path); err != nil {
		t.Skip("the shared corpus is absent:", err)
	}
	tr, err := formats.ReadFile(path, "paje")
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		c   int32
		typ string // "" for every type
	}
	states := map[key][]interval{}
	for _, s := range tr.States.All() {
		typ := tr.Types[s.Type].Name
		states[key{s.Container, typ}] = append(states[key{s.Container, typ}], interval{s.Start, s.End})
		states[key{s.Container, ""}] = append(states[key{s.Container, ""}], interval{s.Start, s.End})
	}
	for _, nesting := range []Nesting{Innermost, Union} {
		opt := Options{Nesting: nesting}
		r, err := Compute(tr, opt)
		if err != nil {
			t.Fatal(err)
		}
		// Streamed from the file: the same sums.
		acc, _ := New(opt)
		if err := formats.Read(path, "paje", acc, trace.ReadOptions{}); err != nil {
			t.Fatal(err)
		}
		streamed, err := acc.Result()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(streamed.Busy, r.Busy) || !slices.Equal(streamed.Resources, r.Resources) {
			t.Fatalf("%v: the streamed sums differ", nesting)
		}
		window := r.End - r.Start
		n32 := 0
		for _, id := range r.Resources {
			c := r.Containers[id]
			k := key{id, ""}
			if c.StateType != "" {
				k = key{c.Parent, c.StateType}
			}
			if nesting == Union && c.StateType != "" {
				t.Fatalf("%s: a resource per type with union nesting", c.Name)
			}
			busy := r.Busy[id].Busy()
			if busy > window {
				t.Errorf("%v: %s busy %v, longer than the run %v", nesting, c.Name, busy, window)
			}
			if want := unionOf(states[k], r.Start, r.End); busy != want {
				t.Errorf("%v: %s busy %v, its states cover %v", nesting, c.Name, busy, want)
			}
			if tr.Containers[k.c].Name == "node32" {
				n32++
				// Before the rule, node32 was one resource busy 2300 s.
				want := map[string]float64{"node32 [PM]": 1105, "node32 [SERVICE]": 1195, "node32": 1195}[c.Name]
				if m0 := r.Busy[id].Moments().M0; m0 != want {
					t.Errorf("%v: %s m0 = %v s, want %v s", nesting, c.Name, m0, want)
				}
			}
		}
		if want := map[Nesting]int{Innermost: 2, Union: 1}[nesting]; n32 != want {
			t.Errorf("%v: node32 gives %d resources, want %d", nesting, n32, want)
		}
	}
}

// The union across types needs every state type defined before the
// states of the containers holding them: a type defined later is
// reported, not silently mixed with sums already added.
func TestStateTypesUnionLateType(t *testing.T) {
	acc, err := New(Options{Nesting: Union})
	if err != nil {
		t.Fatal(err)
	}
	acc.DefineType(trace.Type{Name: "Host", Kind: trace.KindContainer, Parent: trace.None})
	acc.DefineType(trace.Type{Name: "A", Kind: trace.KindState, Parent: 0})
	acc.DefineValue(trace.Value{Type: 1, Name: "a"})
	acc.CreateContainer(trace.Container{Name: "h", Type: 0, Parent: 0})
	acc.State(trace.State{Container: 1, Type: 1, Value: 0, Start: 0, End: 5})
	acc.DefineType(trace.Type{Name: "B", Kind: trace.KindState, Parent: 0})
	acc.Finish(0, 10)
	if _, err := acc.Result(); err == nil || !strings.Contains(err.Error(), `state type "B" is defined after states of another type on container "h"`) {
		t.Errorf("got %v", err)
	}
	// Innermost nesting does not mind.
	acc, _ = New(Options{})
	acc.DefineType(trace.Type{Name: "Host", Kind: trace.KindContainer, Parent: trace.None})
	acc.DefineType(trace.Type{Name: "A", Kind: trace.KindState, Parent: 0})
	acc.DefineValue(trace.Value{Type: 1, Name: "a"})
	acc.CreateContainer(trace.Container{Name: "h", Type: 0, Parent: 0})
	acc.State(trace.State{Container: 1, Type: 1, Value: 0, Start: 0, End: 5})
	acc.DefineType(trace.Type{Name: "B", Kind: trace.KindState, Parent: 0})
	acc.DefineValue(trace.Value{Type: 2, Name: "b"})
	acc.State(trace.State{Container: 1, Type: 2, Value: 1, Start: 2, End: 8})
	acc.Finish(0, 10)
	r, err := acc.Result()
	if err != nil {
		t.Fatal(err)
	}
	checkBusy(t, r, "h [A]", ivs(0, 5e-9))
	checkBusy(t, r, "h [B]", ivs(2e-9, 8e-9))
}

// busy=["Frame"] takes the frames Perfetto names by their token, a number
// alone, which the legend groups under their type's name when more than
// names.ManyInstances of them differ (names.GroupsOf): 25 frames of type
// Frame, each a second long, a second apart, and an "Idle" second after
// each; the raw token still names one frame alone.
func TestBusyFrameTokens(t *testing.T) {
	var b strings.Builder
	b.WriteString(pajeHeader + "0 P 0 Proc\n2 F P Frame\n6 0 p1 P 0 p1\n")
	for k := range 25 {
		fmt.Fprintf(&b, "11 %d F p1 %d\n11 %d F p1 Idle\n", 2*k, 154408112+16*k, 2*k+1)
	}
	b.WriteString("7 50 P p1\n")
	frames := make([]interval, 25)
	for k := range frames {
		frames[k] = interval{sec(float64(2 * k)), sec(float64(2*k + 1))}
	}
	checkBusy(t, analyse(t, b.String(), Options{Select: Only, Values: []string{"Frame"}}), "p1", frames)
	checkBusy(t, analyse(t, b.String(), Options{Select: Only, Values: []string{"154408128"}}), "p1", frames[1:2])
	r := analyse(t, b.String(), Options{ByState: true})
	if s, ok := stateSums(r, containerID(t, r, "p1"), "Frame"); !ok || s.Busy() != sec(25) {
		t.Errorf("the legend's Frame: %v, want 25 s", s.Busy())
	}
}
