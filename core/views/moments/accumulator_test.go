package moments

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/readers/paje"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

const pajeHeader = `%EventDef PajeDefineContainerType 0
% Alias string
% Type string
% Name string
%EndEventDef
%EventDef PajeDefineStateType 2
% Alias string
% Type string
% Name string
%EndEventDef
%EventDef PajeCreateContainer 6
% Time date
% Alias string
% Type string
% Container string
% Name string
%EndEventDef
%EventDef PajeDestroyContainer 7
% Time date
% Type string
% Name string
%EndEventDef
%EventDef PajeSetState 11
% Time date
% Type string
% Container string
% Value string
%EndEventDef
%EventDef PajePushState 12
% Time date
% Type string
% Container string
% Value string
%EndEventDef
%EventDef PajePopState 13
% Time date
% Type string
% Container string
%EndEventDef
`

// nestedTrace: two nodes holding three processes.
//
//	p1: run [0,10] with wait [2,5] pushed over it and io [3,4] over wait,
//	    then idle [10,12] (destroyed at 12).
//	p2: run [1,2] and run [4,5], destroyed at 8; no state elsewhere.
//	p3: created at 0.5, never in any state, alive until the end (12).
const nestedTrace = pajeHeader + `0 N 0 Node
0 P N Proc
2 S P State
6 0 n1 N 0 n1
6 0 n2 N 0 n2
6 0 p1 P n1 p1
6 0 p2 P n1 p2
11 0 S p1 run
6 0.5 p3 P n2 p3
11 1 S p2 run
12 2 S p1 wait
13 2 S p2
12 3 S p1 io
13 4 S p1
11 4 S p2 run
13 5 S p1
13 5 S p2
7 8 P p2
11 10 S p1 idle
7 12 P p1
`

func sec(x float64) trace.Time { return trace.Time(math.Round(x * 1e9)) }

// ivs builds intervals from pairs of seconds.
func ivs(bounds ...float64) []interval {
	var r []interval
	for i := 0; i < len(bounds); i += 2 {
		r = append(r, interval{sec(bounds[i]), sec(bounds[i+1])})
	}
	return r
}

// analyse streams text through the Pajé reader into an accumulator, and
// checks that replaying the trace read into memory gives the same sums.
func analyse(t *testing.T, text string, opt Options) *Result {
	t.Helper()
	acc, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := paje.Decode(strings.NewReader(text), "test.trace", 0, acc, paje.Options{}); err != nil {
		t.Fatal(err)
	}
	r, err := acc.Result()
	if err != nil {
		t.Fatal(err)
	}
	tr := trace.New("test.trace")
	if err := paje.Decode(strings.NewReader(text), "test.trace", 0, tr, paje.Options{}); err != nil {
		t.Fatal(err)
	}
	again, err := Compute(tr, opt)
	if err != nil {
		t.Fatal(err)
	}
	for id := range r.Busy {
		if r.Busy[id] != again.Busy[id] {
			t.Errorf("container %d: streamed %+v, replayed %+v", id, r.Busy[id].Moments(), again.Busy[id].Moments())
		}
	}
	return r
}

// The text's length sizes the reader's buffers (FuzzNesting decodes four
// small texts a run: default buffers would cost more than the rest).
func pajeDecode(text string, sink trace.Sink) error {
	return paje.Decode(strings.NewReader(text), "test.trace", int64(len(text)), sink, paje.Options{})
}

// containerID finds a container by name.
func containerID(t *testing.T, r *Result, name string) int32 {
	t.Helper()
	for id, c := range r.Containers {
		if c.Name == name {
			return int32(id)
		}
	}
	t.Fatalf("no container %q", name)
	return 0
}

// checkBusy checks the busy sums of container name against intervals.
func checkBusy(t *testing.T, r *Result, name string, want []interval) {
	t.Helper()
	got := r.Busy[containerID(t, r, name)]
	if len(want) == 0 {
		if !got.Empty() {
			t.Errorf("%s: busy %v ns, want none", name, got.Busy())
		}
		return
	}
	checkExact(t, name, got, want)
}

// stateSums finds the per-state sums of a container and value name.
func stateSums(r *Result, container int32, value string) (Sums, bool) {
	for _, s := range r.States {
		if s.Container == container && s.Name == value {
			return s.Sums, true
		}
	}
	return Sums{}, false
}

func TestNesting(t *testing.T) {
	for _, tc := range []struct {
		sel              Selection
		values           []string
		innermost, union []interval
	}{
		{AllStates, nil, ivs(0, 12), ivs(0, 12)},
		{Only, []string{"run"}, ivs(0, 2, 5, 10), ivs(0, 10)},
		{Only, []string{"wait"}, ivs(2, 3, 4, 5), ivs(2, 5)},
		{Only, []string{"io"}, ivs(3, 4), ivs(3, 4)},
		{Only, []string{"wait", "io"}, ivs(2, 5), ivs(2, 5)},
		{Only, []string{"run", "io"}, ivs(0, 2, 3, 4, 5, 10), ivs(0, 10)},
		{AllBut, []string{"idle"}, ivs(0, 10), ivs(0, 10)},
		{AllBut, []string{"wait"}, ivs(0, 2, 3, 4, 5, 12), ivs(0, 12)},
	} {
		for _, n := range []Nesting{Innermost, Union} {
			want := tc.innermost
			if n == Union {
				want = tc.union
			}
			r := analyse(t, nestedTrace, Options{Select: tc.sel, Values: tc.values, Nesting: n})
			t.Run(tc.sel.String()+" "+strings.Join(tc.values, ",")+" "+n.String(), func(t *testing.T) {
				checkBusy(t, r, "p1", want)
			})
		}
	}
}

func TestByState(t *testing.T) {
	for _, tc := range []struct {
		opt  Options
		want map[string][]interval // p1's per-value busy time
	}{
		{Options{ByState: true}, map[string][]interval{
			"run": ivs(0, 2, 5, 10), "wait": ivs(2, 3, 4, 5), "io": ivs(3, 4), "idle": ivs(10, 12)}},
		{Options{ByState: true, Nesting: Union}, map[string][]interval{
			"run": ivs(0, 10), "idle": ivs(10, 12)}},
		{Options{ByState: true, Nesting: Union, Select: Only, Values: []string{"wait", "io"}}, map[string][]interval{
			"wait": ivs(2, 5)}},
		{Options{ByState: true, Select: AllBut, Values: []string{"wait"}}, map[string][]interval{
			"run": ivs(0, 2, 5, 10), "io": ivs(3, 4), "idle": ivs(10, 12)}},
	} {
		r := analyse(t, nestedTrace, tc.opt)
		p1 := containerID(t, r, "p1")
		var total Sums
		for _, s := range r.States {
			if s.Container != p1 {
				continue
			}
			want, ok := tc.want[s.Name]
			if !ok {
				t.Errorf("%+v: unexpected busy state %q on p1", tc.opt, s.Name)
				continue
			}
			if s.Type != "State" || s.Value < 0 {
				t.Errorf("state sums %+v: bad type or value id", s)
			}
			checkExact(t, s.Name, s.Sums, want)
			total.Merge(s.Sums)
		}
		for name := range tc.want {
			if _, ok := stateSums(r, p1, name); !ok {
				t.Errorf("%+v: no sums for %q", tc.opt, name)
			}
		}
		// The values share out the resource's busy time.
		if total.Busy() != r.Busy[p1].Busy() {
			t.Errorf("%+v: states add up to %v ns, the resource is busy %v ns", tc.opt, total.Busy(), r.Busy[p1].Busy())
		}
	}
}

func TestGaps(t *testing.T) {
	// Only the time in no state.
	r := analyse(t, nestedTrace, Options{Select: Only, Gaps: true, ByState: true})
	checkBusy(t, r, "p1", nil)
	checkBusy(t, r, "p2", ivs(0, 1, 2, 4, 5, 8))
	checkBusy(t, r, "p3", ivs(0.5, 12))
	p3 := containerID(t, r, "p3")
	if s, ok := stateSums(r, p3, NoStateName); !ok || s.Busy() != sec(11.5) {
		t.Errorf("p3 no-state sums %v, %v", s.Busy(), ok)
	}
	for _, s := range r.States {
		if s.Name == NoStateName && (s.Value != trace.None || s.Type != "") {
			t.Errorf("no-state sums %+v should have value trace.None and no type", s)
		}
	}
	// States and gaps together cover each resource's life.
	r = analyse(t, nestedTrace, Options{Gaps: true})
	checkBusy(t, r, "p2", ivs(0, 8))
	checkBusy(t, r, "p1", ivs(0, 12))
}

func TestWindow(t *testing.T) {
	lo, hi := sec(1.5), sec(4.5)
	r := analyse(t, nestedTrace, Options{Start: &lo, End: &hi, Gaps: true, Select: AllBut, Values: []string{"wait"}})
	checkBusy(t, r, "p1", ivs(1.5, 2, 3, 4))
	checkBusy(t, r, "p2", ivs(1.5, 2, 2, 4, 4, 4.5))
	checkBusy(t, r, "p3", ivs(1.5, 4.5))
	if r.Start != lo || r.End != hi {
		t.Errorf("window [%v, %v), want [%v, %v)", r.Start, r.End, lo, hi)
	}
	// An open end takes the trace's.
	r = analyse(t, nestedTrace, Options{Start: &hi})
	checkBusy(t, r, "p1", ivs(4.5, 12))
	if r.End != sec(12) {
		t.Errorf("window end %v, want the trace end 12", r.End)
	}
}

func TestHierarchy(t *testing.T) {
	r := analyse(t, nestedTrace, Options{Gaps: true})
	names := func(ids []int32) string {
		var s []string
		for _, id := range ids {
			s = append(s, r.Containers[id].Name)
		}
		return strings.Join(s, " ")
	}
	if got := names(r.Resources); got != "p1 p2 p3" {
		t.Errorf("resources %q", got)
	}
	if got := names(r.Order()); got != "0 n1 p1 p2 n2 p3" {
		t.Errorf("order %q", got)
	}
	if got := r.Path(containerID(t, r, "p2"), "/"); got != "n1/p2" {
		t.Errorf("path %q", got)
	}
	sub := r.Subtree()
	p1, p2, p3 := ivs(0, 12), ivs(0, 8), ivs(0.5, 12)
	cat := func(parts ...[]interval) []interval {
		var all []interval
		for _, p := range parts {
			all = append(all, p...)
		}
		return all
	}
	checkExact(t, "n1", sub[containerID(t, r, "n1")], cat(p1, p2))
	checkExact(t, "n2", sub[containerID(t, r, "n2")], p3)
	checkExact(t, "root", sub[0], cat(p1, p2, p3))
	g, err := r.Group([]int32{containerID(t, r, "p3"), containerID(t, r, "p2")})
	if err != nil {
		t.Fatal(err)
	}
	checkExact(t, "group", g, cat(p3, p2))
	if _, err := r.Group([]int32{99}); !isArgumentError(err) {
		t.Errorf("group of an unknown container: %v", err)
	}
}

// States of the root container, with a gap before the first one whose
// start is only known when the trace finishes.
func TestRootStates(t *testing.T) {
	text := pajeHeader + `0 P 0 Proc
2 R 0 Phase
6 1 p P 0 p
11 3 R 0 work
13 4 R 0
7 6 P p
`
	r := analyse(t, text, Options{Gaps: true, StateTypes: []string{"Phase"}})
	checkBusy(t, r, "0", ivs(1, 6))
	r = analyse(t, text, Options{Gaps: true, Select: Only})
	checkBusy(t, r, "0", ivs(1, 3, 4, 6))
	if len(r.Resources) != 1 || r.Resources[0] != 0 {
		t.Errorf("resources %v, want the root only", r.Resources)
	}
}

func isArgumentError(err error) bool {
	var ae *errs.ArgumentError
	return errors.As(err, &ae)
}

func TestBadOptions(t *testing.T) {
	lo, hi := sec(3), sec(3)
	far := sec(100)
	for _, opt := range []Options{
		{Values: []string{"run"}}, // a list without only / all but
		{Select: Only},            // nothing busy
		{Select: 7},               // unknown selection
		{Nesting: 9},              // unknown nesting
		{Start: &lo, End: &hi},    // empty window
	} {
		if _, err := New(opt); !isArgumentError(err) {
			t.Errorf("New(%+v): %v, want an ArgumentError", opt, err)
		}
	}
	for _, opt := range []Options{
		{Select: Only, Values: []string{"runn"}},   // typo
		{StateTypes: []string{"Stat"}},             // typo
		{Start: &far},                              // after the trace
		{Select: AllBut, Values: []string{"Proc"}}, // a container type name, not a value
	} {
		acc, _ := New(opt)
		if err := paje.Decode(strings.NewReader(nestedTrace), "test.trace", 0, acc, paje.Options{}); err != nil {
			t.Fatal(err)
		}
		if _, err := acc.Result(); !isArgumentError(err) {
			t.Errorf("Result with %+v: %v, want an ArgumentError", opt, err)
		}
	}
	for _, name := range []string{"innermost", "Union"} {
		if _, err := ParseNesting(name); err != nil {
			t.Error(err)
		}
	}
	for _, name := range []string{"all", "only", "all but", "except"} {
		if _, err := ParseSelection(name); err != nil {
			t.Error(err)
		}
	}
	if _, err := ParseNesting("outer"); !isArgumentError(err) {
		t.Errorf("ParseNesting(outer): %v", err)
	}
	if _, err := ParseSelection("some"); !isArgumentError(err) {
		t.Errorf("ParseSelection(some): %v", err)
	}
}

// A stream that breaks the Sink contract is reported, not averaged over.
func TestBrokenStreams(t *testing.T) {
	define := func(a *Accumulator) {
		a.DefineType(trace.Type{Name: "P", Kind: trace.KindContainer, Parent: trace.None})
		a.DefineType(trace.Type{Name: "S", Kind: trace.KindState, Parent: 0})
		a.DefineValue(trace.Value{Type: 1, Name: "a"})
		a.CreateContainer(trace.Container{Name: "p", Type: 0, Parent: 0, Start: 0})
	}
	st := func(start, end trace.Time, depth int32) trace.State {
		return trace.State{Container: 1, Type: 1, Value: 0, Start: start, End: end, Depth: depth}
	}
	for name, feed := range map[string]func(a *Accumulator){
		"overlapping":        func(a *Accumulator) { a.State(st(0, 5, 0)); a.State(st(3, 6, 0)) },
		"negative length":    func(a *Accumulator) { a.State(st(5, 3, 0)) },
		"nested outside":     func(a *Accumulator) { a.State(st(1, 9, 1)); a.State(st(2, 5, 0)) },
		"orphan":             func(a *Accumulator) { a.State(st(1, 2, 2)); a.State(st(0, 5, 0)) },
		"unknown value":      func(a *Accumulator) { a.State(trace.State{Container: 1, Type: 1, Value: 5, End: 1}) },
		"unknown container":  func(a *Accumulator) { a.State(trace.State{Container: 7, Type: 1, End: 1}) },
		"after destruction":  func(a *Accumulator) { a.DestroyContainer(1, 4); a.State(st(4, 5, 0)) },
		"destroyed twice":    func(a *Accumulator) { a.DestroyContainer(1, 4); a.DestroyContainer(1, 5) },
		"negative depth":     func(a *Accumulator) { a.State(st(1, 2, -1)) },
		"siblings overlap":   func(a *Accumulator) { a.State(st(1, 3, 1)); a.State(st(2, 4, 1)); a.State(st(0, 5, 0)) },
		"before its creator": func(a *Accumulator) { a.CreateContainer(trace.Container{Name: "q", Parent: 9}) },
	} {
		a, err := New(Options{ByState: true})
		if err != nil {
			t.Fatal(err)
		}
		define(a)
		feed(a)
		a.Finish(0, 10)
		if _, err := a.Result(); err == nil {
			t.Errorf("%s: no error", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
	a, _ := New(Options{})
	if _, err := a.Result(); err == nil {
		t.Error("Result before Finish: no error")
	}
}
