package micro

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/gen/synth"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// recording keeps the calls a reader makes to its sink, to replay them in
// the same order into several sinks.
type recording []func(trace.Sink)

func (r *recording) DefineType(t trace.Type) {
	*r = append(*r, func(s trace.Sink) { s.DefineType(t) })
}
func (r *recording) DefineValue(v trace.Value) {
	*r = append(*r, func(s trace.Sink) { s.DefineValue(v) })
}
func (r *recording) CreateContainer(c trace.Container) {
	*r = append(*r, func(s trace.Sink) { s.CreateContainer(c) })
}
func (r *recording) DestroyContainer(id int32, at trace.Time) {
	*r = append(*r, func(s trace.Sink) { s.DestroyContainer(id, at) })
}
func (r *recording) State(x trace.State)       { *r = append(*r, func(s trace.Sink) { s.State(x) }) }
func (r *recording) Variable(x trace.Variable) { *r = append(*r, func(s trace.Sink) { s.Variable(x) }) }
func (r *recording) Link(x trace.Link)         { *r = append(*r, func(s trace.Sink) { s.Link(x) }) }
func (r *recording) Event(x trace.Event)       { *r = append(*r, func(s trace.Sink) { s.Event(x) }) }
func (r *recording) Finish(a, b trace.Time) {
	*r = append(*r, func(s trace.Sink) { s.Finish(a, b) })
}

// source replays the recording as a Source.
func (r recording) source(sink trace.Sink, _ trace.ReadOptions) error {
	for _, call := range r {
		call(sink)
	}
	return nil
}

func (r recording) trace() *trace.Trace {
	t := trace.New("recorded")
	r.source(t, trace.ReadOptions{})
	return t
}

// randomStream emits a random trace into sink as a reader would: types,
// values and containers defined along the way, states of two state types
// (one on hosts, one on clusters, which also hold hosts) nested by set,
// push and pop, states without a value, two state types whose values
// share names, events, variables, and times on a coarse grid so that
// many fall on slice boundaries. States arrive when they end, nested ones
// first.
func randomStream(rng *rand.Rand, sink trace.Sink) {
	const (
		cluster int32 = iota
		host
		activity
		phase
		mark
		load
		mem
		other
	)
	sink.DefineType(trace.Type{Name: "Cluster", Kind: trace.KindContainer, Parent: trace.None})
	sink.DefineType(trace.Type{Name: "Host", Kind: trace.KindContainer, Parent: cluster})
	sink.DefineType(trace.Type{Name: "Activity", Kind: trace.KindState, Parent: host})
	sink.DefineType(trace.Type{Name: "Phase", Kind: trace.KindState, Parent: cluster})
	sink.DefineType(trace.Type{Name: "Mark", Kind: trace.KindEvent, Parent: host})
	sink.DefineType(trace.Type{Name: "load", Kind: trace.KindVariable, Parent: host})
	sink.DefineType(trace.Type{Name: "mem", Kind: trace.KindVariable, Parent: host})
	sink.DefineType(trace.Type{Name: "Other", Kind: trace.KindState, Parent: host})
	var values [8][]int32 // by type
	nValues := int32(0)
	define := func(typ int32, name string) {
		sink.DefineValue(trace.Value{Type: typ, Name: name})
		values[typ] = append(values[typ], nValues)
		nValues++
	}
	for _, n := range []string{"compute", "send"} {
		define(activity, n)
	}
	define(phase, "compute") // shares a name with Activity's
	define(mark, "tick")
	define(other, "io")
	nContainers := int32(1)
	var clusters, hosts []int32
	create := func(typ, parent int32, at trace.Time) int32 {
		sink.CreateContainer(trace.Container{Name: fmt.Sprintf("c%d", nContainers), Type: typ, Parent: parent, Start: at})
		nContainers++
		return nContainers - 1
	}
	clusters = append(clusters, create(cluster, 0, 0), create(cluster, 0, 0))
	for i := 0; i < 3; i++ {
		hosts = append(hosts, create(host, clusters[i%2], 0))
	}
	type open struct {
		v     int32
		start trace.Time
	}
	type key struct{ c, typ int32 }
	stacks := map[key][]open{}
	varStart := map[key]trace.Time{}
	varValue := map[key]float64{}
	first := trace.Time(5 * rng.IntN(3))
	now := first
	end := trace.Time(600 + 10*rng.IntN(60))
	closeAll := func(k key, from int, at trace.Time) {
		st := stacks[k]
		for d := len(st) - 1; d >= from; d-- {
			sink.State(trace.State{Container: k.c, Type: k.typ, Value: st[d].v, Start: st[d].start, End: at, Depth: int32(d)})
		}
		stacks[k] = st[:from]
	}
	value := func(typ int32) int32 {
		if rng.IntN(12) == 0 {
			return trace.None
		}
		if rng.IntN(30) == 0 { // a value defined on first use
			define(typ, fmt.Sprintf("v%d", nValues))
		}
		return values[typ][rng.IntN(len(values[typ]))]
	}
	for now < end {
		now = min(now+trace.Time(rng.IntN(4)*5), end) // zero-length states happen
		switch op := rng.IntN(40); {
		case op == 0 && len(hosts) < 8:
			hosts = append(hosts, create(host, clusters[rng.IntN(2)], now))
		case op < 4:
			h := hosts[rng.IntN(len(hosts))]
			sink.Event(trace.Event{Container: h, Type: mark, Value: value(mark), Time: now})
		case op < 8:
			k := key{hosts[rng.IntN(len(hosts))], load + int32(rng.IntN(2))}
			if s, ok := varStart[k]; ok {
				sink.Variable(trace.Variable{Container: k.c, Type: k.typ, Start: s, End: now, Value: varValue[k]})
			}
			varStart[k], varValue[k] = now, float64(rng.IntN(2000)-500)/7
		default:
			var k key
			switch rng.IntN(6) {
			case 0:
				k = key{clusters[rng.IntN(2)], phase}
			case 1:
				k = key{hosts[rng.IntN(len(hosts))], other}
			default:
				k = key{hosts[rng.IntN(len(hosts))], activity}
			}
			st := stacks[k]
			switch r := rng.IntN(5); {
			case r == 0 || len(st) == 0: // set
				closeAll(k, 0, now)
				stacks[k] = append(stacks[k], open{value(k.typ), now})
			case r <= 2 && len(st) < 4: // push
				stacks[k] = append(st, open{value(k.typ), now})
			default: // pop
				closeAll(k, len(st)-1, now)
			}
		}
	}
	for k := range stacks {
		closeAll(k, 0, end)
	}
	for k, s := range varStart {
		sink.Variable(trace.Variable{Container: k.c, Type: k.typ, Start: s, End: end, Value: varValue[k]})
	}
	sink.Finish(first, end)
}

// sameModel reports the first difference between two models: exact
// equality, cell by cell.
func sameModel(a, b *Model) error {
	switch {
	case a.Slices != b.Slices || a.Start != b.Start || a.End != b.End || a.Metric != b.Metric:
		return fmt.Errorf("grid %d [%s, %s] %s vs %d [%s, %s] %s", a.Slices, a.Start, a.End, a.Metric, b.Slices, b.Start, b.End, b.Metric)
	case !reflect.DeepEqual(a.States, b.States):
		return fmt.Errorf("categories %q vs %q", a.States, b.States)
	case !reflect.DeepEqual(a.Container, b.Container):
		return fmt.Errorf("containers %v vs %v", a.Container, b.Container)
	case !reflect.DeepEqual(a.StateType, b.StateType):
		return fmt.Errorf("state types %v vs %v", a.StateType, b.StateType)
	case !reflect.DeepEqual(a.Tree, b.Tree):
		return fmt.Errorf("trees differ")
	case a.IsSparse() != b.IsSparse():
		return fmt.Errorf("sparse %v vs %v", a.IsSparse(), b.IsSparse())
	case a.IsSparse() && !reflect.DeepEqual(a.Cells.Start, b.Cells.Start):
		return fmt.Errorf("sparse cells' offsets differ")
	}
	av, bv := a.Dense(), b.Dense()
	if len(av) != len(bv) {
		return fmt.Errorf("%d values vs %d", len(av), len(bv))
	}
	for i := range av {
		if math.Float64bits(av[i]) != math.Float64bits(bv[i]) {
			nc := len(a.States)
			return fmt.Errorf("cell leaf %d slice %d category %s: %v vs %v", i/nc/a.Slices, i/nc%a.Slices, a.States[i%nc], av[i], bv[i])
		}
	}
	return nil
}

// sameResult checks that Stream gives what Build gives: the same model or
// the same error.
func sameResult(t *testing.T, what string, want *Model, wantErr error, got *Model, gotErr error) {
	t.Helper()
	if wantErr != nil || gotErr != nil {
		if wantErr == nil || gotErr == nil || wantErr.Error() != gotErr.Error() {
			t.Fatalf("%s: Build gives error %v, the stream %v", what, wantErr, gotErr)
		}
		return
	}
	if err := sameModel(want, got); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

var allMetrics = []Metric{StateDuration, StateAverageDuration, EventCount, VariableAverage}

// optionSets lists the options compared on trace t: every metric, the
// nesting choices, windows (whole, inside, beyond, half given), slice
// counts and type selections.
func optionSets(t *trace.Trace, many bool) []Options {
	span := t.End - t.Start
	in0, in1 := t.Start+span/7, t.End-span/5
	before, after := t.Start-span/3, t.End+span/2
	windows := [][2]*trace.Time{{nil, nil}, {&in0, &in1}, {&before, &after}, {&in0, nil}, {nil, &in1}}
	var out []Options
	for _, metric := range allMetrics {
		depths := []int{Innermost}
		if metric.entityKind() == trace.KindState {
			depths = []int{Innermost, 0, 1, 2}
		}
		for _, depth := range depths {
			for wi, w := range windows {
				for _, n := range []int{1, 7, 100} {
					if !many && (wi > 1 || n == 7) {
						continue
					}
					out = append(out, Options{Slices: n, Start: w[0], End: w[1], Metric: metric, Depth: depth})
				}
			}
		}
	}
	if many {
		out = append(out, Options{Slices: 10, Types: []string{"Activity"}, Depth: Innermost},
			Options{Slices: 10, StateTypes: []string{"Phase"}, Depth: Innermost},
			Options{Slices: 10, StateTypes: []string{"Activity", "Phase"}, Metric: StateAverageDuration, Depth: Innermost},
			Options{Slices: 10, StateTypes: []string{"nope"}, Depth: Innermost},
			Options{Slices: 10, Types: []string{"mem"}, Metric: VariableAverage, Depth: Innermost},
			// Values without a category: one category per type, which
			// merges the values of each type.
			Options{Slices: 7, Depth: Innermost, Key: KeyCategory},
			Options{Slices: 7, Depth: 1, Key: KeyCategory, Metric: StateAverageDuration},
			Options{Slices: 7, Depth: Innermost, Key: KeyCategory, Metric: StateAverageDuration},
			Options{Slices: 7, Depth: Innermost, Key: KeyCategory, Metric: EventCount})
	}
	return out
}

func describe(o Options) string {
	w := func(p *trace.Time) string {
		if p == nil {
			return "trace"
		}
		return p.String()
	}
	return fmt.Sprintf("%s depth %d, %d slices, [%s, %s], types %v%v, key %q", o.Metric, o.Depth, o.Slices, w(o.Start), w(o.End), o.StateTypes, o.Types, o.Key)
}

// exactProbe guesses right.
func exactProbe(t *trace.Trace) Probe {
	return func() (trace.Time, trace.Time, bool) { return t.Start, t.End, true }
}

func TestStreamEqualsBuildOnRandomTraces(t *testing.T) {
	// The accumulator on its own goroutine (async) or the reader's.
	defer func(n int) { asyncMinProcs = n }(asyncMinProcs)
	for _, procs := range []int{1, 1 << 20} {
		asyncMinProcs = procs
		streamEqualsBuildOnRandomTraces(t)
	}
}

func streamEqualsBuildOnRandomTraces(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for iter := 0; iter < 30; iter++ {
		var rec recording
		randomStream(rng, &rec)
		tr := rec.trace()
		wrong := func() (trace.Time, trace.Time, bool) { return tr.Start + 1, tr.End - 3, true }
		for _, opt := range optionSets(tr, true) {
			want, wantErr := Build(tr, opt)
			for pi, probe := range []Probe{exactProbe(tr), wrong, nil} {
				got, sum, err := Stream(rec.source, opt, trace.ReadOptions{}, probe)
				what := fmt.Sprintf("trace %d, %s, probe %d", iter, describe(opt), pi)
				sameResult(t, what, want, wantErr, got, err)
				if err != nil {
					continue
				}
				if sum.InMemory {
					t.Fatalf("%s: read into memory", what)
				}
				passes := 1
				if opt.Start == nil || opt.End == nil {
					passes = []int{1, 2, 2}[pi]
				}
				if sum.Passes != passes {
					t.Errorf("%s: %d reads, want %d", what, sum.Passes, passes)
				}
				if sum.States != int64(tr.States.Len()) || sum.Start != tr.Start || sum.End != tr.End {
					t.Errorf("%s: summary %+v", what, sum)
				}
			}
		}
	}
}

func TestStreamEqualsBuildOnBuildTests(t *testing.T) {
	// The traces of Build's own tests, replayed in their order.
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 20; iter++ {
		tr := randomTrace(rng, 5)
		if iter%2 == 1 {
			withEventsAndVariables(rng, tr)
		}
		src := replay(tr)
		for _, opt := range optionSets(tr, false) {
			want, wantErr := Build(tr, opt)
			got, _, err := Stream(src, opt, trace.ReadOptions{}, exactProbe(tr))
			sameResult(t, fmt.Sprintf("trace %d, %s", iter, describe(opt)), want, wantErr, got, err)
		}
	}
}

// replay streams a trace in memory: definitions, then entities in their
// order, then Finish.
func replay(tr *trace.Trace) Source {
	return func(sink trace.Sink, _ trace.ReadOptions) error {
		for _, ty := range tr.Types {
			sink.DefineType(ty)
		}
		for _, v := range tr.Values {
			sink.DefineValue(v)
		}
		for _, c := range tr.Containers[1:] {
			c.Children = nil
			sink.CreateContainer(c)
		}
		for _, s := range tr.States.All() {
			sink.State(s)
		}
		for _, v := range tr.Variables.All() {
			sink.Variable(v)
		}
		for _, l := range tr.Links.All() {
			sink.Link(l)
		}
		for _, e := range tr.Events.All() {
			sink.Event(e)
		}
		sink.Finish(tr.Start, tr.End)
		return nil
	}
}

func TestStreamNonFiniteVariable(t *testing.T) {
	tr := trace.New("nan")
	tr.DefineType(trace.Type{Name: "Host", Kind: trace.KindContainer, Parent: trace.None})
	tr.DefineType(trace.Type{Name: "load", Kind: trace.KindVariable, Parent: 0})
	tr.CreateContainer(trace.Container{Name: "a", Type: 0, Parent: 0})
	tr.CreateContainer(trace.Container{Name: "b", Type: 0, Parent: 0})
	tr.Variable(trace.Variable{Container: 2, Type: 1, Start: 100, End: 105, Value: 1})
	tr.Variable(trace.Variable{Container: 2, Type: 1, Start: 105, End: 108, Value: math.Inf(1)})
	tr.Variable(trace.Variable{Container: 1, Type: 1, Start: 101, End: 105, Value: math.NaN()})
	tr.Finish(100, 110)
	opt := Options{Slices: 2, Metric: VariableAverage}
	_, wantErr := Build(tr, opt)
	_, _, err := Stream(replay(tr), opt, trace.ReadOptions{}, nil)
	if wantErr == nil || err == nil || err.Error() != wantErr.Error() {
		t.Fatalf("Build: %v; stream: %v", wantErr, err)
	}
	// The instant a person reads counts from the trace's start.
	if want := "variable load of b is +Inf at 0.000000005 s from the trace's start"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q, want it to say %q", err, want)
	}
}

// overlapping is a stream that breaks the nesting rule: two states at
// depth 0 overlap.
func overlapping() *trace.Trace {
	tr := trace.New("overlap")
	tr.DefineType(trace.Type{Name: "Host", Kind: trace.KindContainer, Parent: trace.None})
	tr.DefineType(trace.Type{Name: "S", Kind: trace.KindState, Parent: 0})
	tr.DefineValue(trace.Value{Type: 1, Name: "a"})
	tr.DefineValue(trace.Value{Type: 1, Name: "b"})
	tr.CreateContainer(trace.Container{Name: "h", Type: 0, Parent: 0})
	tr.State(trace.State{Container: 1, Type: 1, Value: 0, Start: 0, End: 60})
	tr.State(trace.State{Container: 1, Type: 1, Value: 1, Start: 40, End: 100})
	tr.Finish(0, 100)
	return tr
}

func TestStreamFallsBackOnBrokenNesting(t *testing.T) {
	defer func(n int) { asyncMinProcs = n }(asyncMinProcs)
	for _, procs := range []int{1, 1 << 20} {
		asyncMinProcs = procs
		streamFallsBackOnBrokenNesting(t)
	}
}

func streamFallsBackOnBrokenNesting(t *testing.T) {
	cases := map[string]*trace.Trace{"overlap": overlapping()}
	// A nested state that ends after its enclosing state, one without an
	// enclosing state, and one that arrives after it.
	for name, states := range map[string][]trace.State{
		"sticks out": {{Value: 1, Start: 10, End: 70, Depth: 1}, {Value: 0, Start: 0, End: 60}},
		"orphan":     {{Value: 0, Start: 0, End: 60}, {Value: 1, Start: 70, End: 80, Depth: 1}},
		"late child": {{Value: 0, Start: 0, End: 60}, {Value: 1, Start: 10, End: 20, Depth: 1}, {Value: 0, Start: 60, End: 90}},
		// Build cuts the first state where the zero-length one starts.
		"zero-length inside":       {{Value: 0, Start: 0, End: 60}, {Value: 1, Start: 30, End: 30}},
		"zero-length child inside": {{Value: 1, Start: 5, End: 20, Depth: 1}, {Value: 1, Start: 10, End: 10, Depth: 1}, {Value: 0, Start: 0, End: 60}},
	} {
		tr := overlapping()
		tr.States = trace.StateColumn{}
		for _, s := range states {
			s.Container, s.Type = 1, 1
			tr.States.Append(s)
		}
		cases[name] = tr
	}
	for name, tr := range cases {
		for _, metric := range []Metric{StateDuration, StateAverageDuration} {
			opt := Options{Slices: 4, Metric: metric, Depth: Innermost}
			want, wantErr := Build(tr, opt)
			acc, err := NewAccumulator(opt, tr.Start, tr.End)
			if err != nil {
				t.Fatal(err)
			}
			replay(tr)(acc, trace.ReadOptions{})
			if _, err := acc.Model(); !errors.Is(err, ErrNesting) {
				t.Errorf("%s: the accumulator gives %v, want ErrNesting", name, err)
			}
			// A reader that looks at Cancel after each state: the first read
			// stops at the first state out of order.
			states := 0
			src := func(sink trace.Sink, ro trace.ReadOptions) error {
				return replay(tr)(cancelable{sink, &ro, &states}, ro)
			}
			got, sum, err := Stream(src, opt, trace.ReadOptions{}, exactProbe(tr))
			sameResult(t, name, want, wantErr, got, err)
			if err == nil && (!sum.InMemory || sum.Passes != 2 || sum.States != int64(tr.States.Len())) {
				t.Errorf("%s: summary %+v, want a second read into memory", name, sum)
			}
			if states > 2*tr.States.Len()+asyncBatch {
				t.Errorf("%s: %d states delivered", name, states)
			}
			// The same states in the order they start.
			var rec recording
			replay(tr)(&rec, trace.ReadOptions{})
			sorted := startOrdered(rec)
			st := trace.New()
			sorted(st, trace.ReadOptions{})
			want, wantErr = Build(st, opt)
			got, _, err = StreamWith(sorted, opt, trace.ReadOptions{}, StreamOptions{Probe: exactProbe(tr), StartOrdered: true})
			sameResult(t, name+", start-ordered", want, wantErr, got, err)
		}
	}
}

// cancelable passes states on to a sink until its read is canceled.
type cancelable struct {
	trace.Sink
	ro *trace.ReadOptions
	n  *int
}

func (c cancelable) State(s trace.State) {
	if c.ro.Canceled() == nil {
		*c.n++
		c.Sink.State(s)
	}
}

func TestStreamErrors(t *testing.T) {
	var rec recording
	randomStream(rand.New(rand.NewPCG(1, 1)), &rec)
	tr := rec.trace()
	five, three := trace.Time(5), trace.Time(3)
	for name, opt := range map[string]Options{
		"zero slices":   {Slices: 0},
		"too many":      {Slices: MaxSlices + 1},
		"empty window":  {Slices: 2, Start: &five, End: &three},
		"empty start":   {Slices: 2, Start: &tr.End},
		"bad depth":     {Slices: 2, Depth: -2},
		"finer than ns": {Slices: 3, Start: &three, End: &five},
		"unknown type":  {Slices: 2, StateTypes: []string{"nope"}},
		"bad metric":    {Slices: 2, Metric: "speed"},
		"no variable":   {Slices: 2, Types: []string{"Activity"}, Metric: VariableAverage},
	} {
		_, wantErr := Build(tr, opt)
		_, _, err := Stream(rec.source, opt, trace.ReadOptions{}, exactProbe(tr))
		var ae *errs.ArgumentError
		if !errors.As(err, &ae) || wantErr == nil || err.Error() != wantErr.Error() {
			t.Errorf("%s: stream %v, Build %v", name, err, wantErr)
		}
	}
	// The reader's errors come through, and so does cancellation.
	bad := errors.New("broken input")
	if _, _, err := Stream(func(trace.Sink, trace.ReadOptions) error { return bad }, Options{Slices: 2}, trace.ReadOptions{}, nil); err != bad {
		t.Errorf("reader error: %v", err)
	}
	cancel := make(chan struct{})
	close(cancel)
	if _, _, err := Stream(rec.source, Options{Slices: 2}, trace.ReadOptions{Cancel: cancel}, nil); !errors.Is(err, trace.ErrCanceled) {
		t.Errorf("canceled read: %v", err)
	}
	// Canceled during the read: the reader sees it through the channel the
	// stream gives it.
	cancel = make(chan struct{})
	midway := func(sink trace.Sink, ro trace.ReadOptions) error {
		close(cancel)
		for i := 0; i < 1e6 && ro.Canceled() == nil; i++ { // a reader looks now and then
			time.Sleep(time.Microsecond)
		}
		return ro.Canceled()
	}
	for _, window := range []*trace.Time{nil, &tr.End} {
		opt := Options{Slices: 2, Start: &tr.Start, End: window}
		if _, _, err := Stream(midway, opt, trace.ReadOptions{Cancel: cancel}, exactProbe(tr)); !errors.Is(err, trace.ErrCanceled) {
			t.Errorf("canceled during the read: %v", err)
		}
		cancel = make(chan struct{})
	}
	if _, err := (&Accumulator{}).Model(); err == nil {
		t.Error("a model before Finish")
	}
}

func TestStreamProgressCountsEveryRead(t *testing.T) {
	var rec recording
	randomStream(rand.New(rand.NewPCG(3, 3)), &rec)
	src := func(sink trace.Sink, ro trace.ReadOptions) error {
		ro.Progress(50, 100)
		rec.source(sink, ro)
		ro.Progress(100, 100)
		return nil
	}
	var got [][2]int64
	ro := trace.ReadOptions{Progress: func(done, total int64) { got = append(got, [2]int64{done, total}) }}
	if _, _, err := Stream(src, Options{Slices: 5}, ro, nil); err != nil {
		t.Fatal(err)
	}
	want := [][2]int64{{50, 200}, {100, 200}, {150, 200}, {200, 200}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("progress %v, want %v", got, want)
	}
}

// corpusPaje lists the Pajé traces of the shared corpus that define
// their events (a file that only includes others does not).
func corpusPaje(t *testing.T) []string {
	var out []string
	for _, path := range readertest.PajeCorpus(t, filepath.Join("..", "..", "..", "shared", "traces")) {
		if head, err := os.ReadFile(path); err == nil && strings.Contains(string(head[:min(len(head), 4096)]), "EventDef") {
			out = append(out, path)
		}
	}
	if len(out) < 20 {
		t.Fatalf("only %d Pajé traces in the corpus", len(out))
	}
	return out
}

func TestStreamEqualsBuildOnCorpus(t *testing.T) {
	read := 0
	for _, path := range corpusPaje(t) {
		tr, readErr := readTrace(path, "paje")
		for _, opt := range optionSets(trOrEmpty(tr), false) {
			if tr == nil {
				opt.Start, opt.End = nil, nil
			}
			got, sum, err := ReadFile(path, "paje", opt, trace.ReadOptions{})
			what := fmt.Sprintf("%s, %s", filepath.Base(path), describe(opt))
			if readErr != nil {
				if err == nil || err.Error() != readErr.Error() {
					t.Fatalf("%s: the reader fails with %v, the stream with %v", what, readErr, err)
				}
				continue
			}
			want, wantErr := Build(tr, opt)
			sameResult(t, what, want, wantErr, got, err)
			if err == nil {
				if sum.InMemory {
					t.Errorf("%s: read into memory", what)
				}
				if sum.Passes != 1 {
					t.Logf("%s: %d reads", what, sum.Passes)
				}
			}
		}
		if readErr == nil {
			read++
		}
	}
	t.Logf("%d traces read and compared", read)
}

func trOrEmpty(tr *trace.Trace) *trace.Trace {
	if tr == nil {
		return trace.New()
	}
	return tr
}

// feed streams n depth-0 states and nested states over 64 hosts into
// sink, in time order, without allocating.
func feed(sink trace.Sink, n int) {
	sink.DefineType(trace.Type{Name: "Host", Kind: trace.KindContainer, Parent: trace.None})
	sink.DefineType(trace.Type{Name: "S", Kind: trace.KindState, Parent: 0})
	for v := 0; v < 5; v++ {
		sink.DefineValue(trace.Value{Type: 1, Name: "v"})
	}
	const hosts = 64
	for h := 0; h < hosts; h++ {
		sink.CreateContainer(trace.Container{Type: 0, Parent: 0})
	}
	for i := 0; i < n; i++ {
		h := int32(1 + i%hosts)
		at := trace.Time(i / hosts * 100)
		if i%3 == 0 {
			sink.State(trace.State{Container: h, Type: 1, Value: int32(i % 5), Start: at + 10, End: at + 40, Depth: 1})
			sink.State(trace.State{Container: h, Type: 1, Value: int32(i % 5), Start: at + 50, End: at + 60, Depth: 1})
		}
		sink.State(trace.State{Container: h, Type: 1, Value: int32(i % 5), Start: at, End: at + 100})
	}
	sink.Finish(0, trace.Time(n/hosts*100+100))
}

func TestStreamMemoryDoesNotGrowWithEvents(t *testing.T) {
	// The allocations of a whole streamed build do not depend on the
	// number of states: the model and the definitions, nothing per state.
	for _, metric := range []Metric{StateDuration, StateAverageDuration} {
		allocs := func(n int) float64 {
			opt := Options{Slices: 100, Metric: metric, Depth: Innermost}
			end := trace.Time(n/64*100 + 100)
			return testing.AllocsPerRun(3, func() {
				acc, err := NewAccumulator(opt, 0, end)
				if err != nil {
					t.Fatal(err)
				}
				feed(acc, n)
				if _, err := acc.Model(); err != nil {
					t.Fatal(err)
				}
			})
		}
		small, large := allocs(20_000), allocs(200_000)
		if large > small+5 { // a few for the runtime's own needs, none per state
			t.Errorf("%s: %v allocations for 20,000 states, %v for 200,000", metric, small, large)
		}
		t.Logf("%s: %v allocations for 20,000 states, %v for 200,000", metric, small, large)
	}
	// And the model is Build's.
	var rec recording
	feed(&rec, 5000)
	tr := rec.trace()
	opt := Options{Slices: 100, Depth: Innermost}
	want, _ := Build(tr, opt)
	got, _, err := Stream(rec.source, opt, trace.ReadOptions{}, exactProbe(tr))
	sameResult(t, "feed", want, nil, got, err)
}

// BenchmarkAccumulatorState measures the accumulator's cost per state
// (depth-0 states, and one in three with two nested states).
func BenchmarkAccumulatorState(b *testing.B) {
	const n = 1 << 20
	opt := Options{Slices: 100, Depth: Innermost}
	b.ReportAllocs()
	for b.Loop() {
		acc, _ := NewAccumulator(opt, 0, trace.Time(n/64*100+100))
		feed(acc, n)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n+n/3*2), "ns/state")
}

// BenchmarkReadFileSynth builds the model of a synthetic Pajé trace of
// 512 cores and 10^6 state changes (about 25 MB, as core/gen/synth writes it)
// while reading it: the streaming path's own speed (paje's
// BenchmarkReadSynth reads the same trace into a sink that keeps nothing).
func BenchmarkReadFileSynth(b *testing.B) {
	path := filepath.Join(b.TempDir(), "synth.trace")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	st, err := synth.WritePaje(f, synth.Config{Sites: 2, Clusters: 4, Machines: 8, Cores: 8, Events: 1_000_000, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	f.Close()
	b.SetBytes(st.Bytes)
	b.ReportAllocs()
	for b.Loop() {
		m, sum, err := ReadFile(path, "paje", Options{Slices: 100, Depth: Innermost}, trace.ReadOptions{})
		if err != nil || sum.Passes != 1 || sum.States != st.States || m.NumLeaves() != 512 {
			b.Fatalf("%v, %+v", err, sum)
		}
	}
	b.ReportMetric(float64(st.Events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// startOrdered returns a source that replays rec with every state after
// the other calls, in the order the states start (by start, depth and
// end), as pj_dump prints them.
func startOrdered(rec recording) Source {
	var calls recording
	var finish func(trace.Sink)
	var states []trace.State
	for _, call := range rec {
		var probe discardSink
		call(&probe)
		switch {
		case probe.state != nil:
			states = append(states, *probe.state)
		case probe.finished:
			finish = call
		default:
			calls = append(calls, call)
		}
	}
	sort.SliceStable(states, func(i, j int) bool {
		a, b := states[i], states[j]
		if a.Start != b.Start {
			return a.Start < b.Start
		}
		if a.Depth != b.Depth {
			return a.Depth < b.Depth
		}
		return a.End < b.End
	})
	return func(sink trace.Sink, ro trace.ReadOptions) error {
		calls.source(sink, ro)
		for _, s := range states {
			sink.State(s)
		}
		finish(sink)
		return nil
	}
}

// discardSink tells which call a recorded call is.
type discardSink struct {
	state    *trace.State
	finished bool
}

func (d *discardSink) DefineType(trace.Type)              {}
func (d *discardSink) DefineValue(trace.Value)            {}
func (d *discardSink) CreateContainer(trace.Container)    {}
func (d *discardSink) DestroyContainer(int32, trace.Time) {}
func (d *discardSink) State(s trace.State)                { d.state = &s }
func (d *discardSink) Variable(trace.Variable)            {}
func (d *discardSink) Link(trace.Link)                    {}
func (d *discardSink) Event(trace.Event)                  {}
func (d *discardSink) Finish(trace.Time, trace.Time)      { d.finished = true }

func TestStreamStartOrderedEqualsBuild(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	streamed, fellBack := 0, 0
	for iter := 0; iter < 30; iter++ {
		var rec recording
		randomStream(rng, &rec)
		src := startOrdered(rec)
		tr := trace.New()
		src(tr, trace.ReadOptions{})
		for _, opt := range optionSets(tr, iter%5 == 0) {
			want, wantErr := Build(tr, opt)
			got, sum, err := StreamWith(src, opt, trace.ReadOptions{}, StreamOptions{Probe: exactProbe(tr), StartOrdered: true})
			sameResult(t, fmt.Sprintf("trace %d, %s", iter, describe(opt)), want, wantErr, got, err)
			if err == nil && opt.Depth == Innermost && opt.Metric.entityKind() == trace.KindState {
				if sum.InMemory {
					fellBack++
				} else {
					streamed++
				}
			}
			// The same stream, not announced as start-ordered, is read
			// into memory in the end: still the same model.
			if opt.Slices == 100 && opt.Start == nil {
				got, _, err := Stream(src, opt, trace.ReadOptions{}, exactProbe(tr))
				sameResult(t, fmt.Sprintf("trace %d, %s, not announced", iter, describe(opt)), want, wantErr, got, err)
			}
		}
	}
	t.Logf("%d innermost models streamed, %d read into memory (states that start together at one depth)", streamed, fellBack)
	if streamed < fellBack {
		t.Errorf("only %d of %d innermost models streamed", streamed, streamed+fellBack)
	}
}

func TestStreamPjdumpTables(t *testing.T) {
	root := filepath.Join("..", "..", "..", "shared", "traces", "pajeng", "oracles")
	paths, _ := filepath.Glob(filepath.Join(root, "0[23][0-9]_pj_dump_*_trace.out"))
	if len(paths) == 0 {
		t.Skip("the shared trace corpus is absent")
	}
	streamed := 0
	for _, path := range paths {
		tr, readErr := formats.ReadFile(path, "pjdump")
		for _, opt := range optionSets(trOrEmpty(tr), false) {
			if tr == nil {
				opt.Start, opt.End = nil, nil
			}
			got, sum, err := ReadFile(path, "pjdump", opt, trace.ReadOptions{})
			what := fmt.Sprintf("%s, %s", filepath.Base(path), describe(opt))
			if readErr != nil {
				if err == nil || err.Error() != readErr.Error() {
					t.Fatalf("%s: the reader fails with %v, the stream with %v", what, readErr, err)
				}
				continue
			}
			want, wantErr := Build(tr, opt)
			sameResult(t, what, want, wantErr, got, err)
			if err == nil && !sum.InMemory {
				streamed++
			}
		}
	}
	if streamed == 0 {
		t.Error("no pj_dump table streamed")
	}
	t.Logf("%d models of %d pj_dump tables streamed", streamed, len(paths))
}
