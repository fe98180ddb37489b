package micro

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// profilerSpans is a trace of a PyTorch profiler's kind: the profiler's
// recording on a thread of its own, two steps on the main thread with an
// operator nested in each, a stream's kernels and, beside the stream, the
// copy of step 1 Kineto draws on it, over [0, 100] ns.
func profilerSpans() *trace.Trace {
	tr := trace.New("spans")
	tr.DefineType(trace.Type{Name: "Process", Kind: trace.KindContainer, Parent: trace.None})
	tr.DefineType(trace.Type{Name: "Thread", Kind: trace.KindContainer, Parent: 0})
	tr.DefineType(trace.Type{Name: "S", Kind: trace.KindState, Parent: 1})
	for _, v := range []trace.Value{
		{Name: "PyTorch Profiler (0)", Category: "Trace", Role: trace.RoleRecording},
		{Name: "ProfilerStep#1", Category: "user_annotation", Role: trace.RoleStep, Step: 1},
		{Name: "aten::mm", Category: "cpu_op", Role: trace.RoleHostCall},
		{Name: "ProfilerStep#2", Category: "user_annotation", Role: trace.RoleStep, Step: 2},
		{Name: "ProfilerStep#1", Category: "gpu_user_annotation", Role: trace.RoleDeviceAnnotation},
		{Name: "kernel", Category: "kernel"},
	} {
		v.Type = 2
		tr.DefineValue(v)
	}
	tr.CreateContainer(trace.Container{Name: "proc", Type: 0, Parent: 0})
	for _, n := range []string{"Spans", "main", "stream 7", "stream 7 (annotations)"} {
		tr.CreateContainer(trace.Container{Name: n, Type: 1, Parent: 1})
	}
	// As a reader delivers them: a state after the states nested in it.
	for _, s := range []trace.State{
		{Container: 2, Value: 0, Start: 0, End: 100},
		{Container: 3, Value: 2, Start: 10, End: 30, Depth: 1},
		{Container: 3, Value: 1, Start: 0, End: 50},
		{Container: 3, Value: 2, Start: 60, End: 70, Depth: 1},
		{Container: 3, Value: 3, Start: 50, End: 100},
		{Container: 4, Value: 5, Start: 20, End: 40},
		{Container: 4, Value: 5, Start: 70, End: 80},
		{Container: 5, Value: 4, Start: 20, End: 80},
	} {
		s.Type = 2
		tr.States.Append(s)
	}
	tr.Finish(0, 100)
	return tr
}

// spanModels builds the model of tr with opt every way there is: Build
// (replaying the trace as a stream), Build on the whole trace (the dense
// builders), and the partial model of the stream, encoded, decoded and
// merged.
func spanModels(t *testing.T, tr *trace.Trace, opt Options) map[string]*Model {
	t.Helper()
	out := map[string]*Model{}
	m, err := Build(tr, opt)
	if err != nil {
		t.Fatal(err)
	}
	out["replay"] = m
	buildReplays = false
	m, err = Build(tr, opt)
	buildReplays = true
	if err != nil {
		t.Fatal(err)
	}
	out["dense"] = m
	start, end := tr.Start, tr.End // the window the options give, if any
	if opt.Start != nil {
		start = *opt.Start
	}
	if opt.End != nil {
		end = *opt.End
	}
	acc, err := NewPartialAccumulator(opt, start, end)
	if err != nil {
		t.Fatal(err)
	}
	for _, ty := range tr.Types {
		acc.DefineType(ty)
	}
	for _, v := range tr.Values {
		acc.DefineValue(v)
	}
	for id := 1; id < len(tr.Containers); id++ {
		c := tr.Containers[id]
		c.Children = nil
		acc.CreateContainer(c)
	}
	for _, s := range tr.States.All() {
		acc.State(s)
	}
	acc.Finish(tr.Start, tr.End)
	p, err := acc.Partial()
	if err != nil {
		t.Fatal(err)
	}
	data, err := p.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if p, err = UnmarshalPartial(data); err != nil {
		t.Fatal(err)
	}
	if p, err = Merge(ByPart, p); err != nil {
		t.Fatal(err)
	}
	if out["partial"], err = p.Model(); err != nil {
		t.Fatal(err)
	}
	return out
}

// containerNames lists the model's resources by their containers' names.
func containerNames(tr *trace.Trace, m *Model) []string {
	var out []string
	for _, node := range m.Tree.Leaves {
		out = append(out, tr.Containers[m.Container[node]].Name)
	}
	return out
}

// TestProfilerSpansLeftOut: by default the model leaves out the
// profiler's recording, the steps and the device's copies of annotations
// (their rows too, which held nothing else), and reports their time slice
// by slice, computed by hand: the recording's 25 ns a slice; the steps'
// own time, step 1 [0, 50) less aten::mm [10, 30) and step 2 [50, 100)
// less [60, 70); the copy [20, 80). The steps still hide their
// operators' time: aten::mm keeps exactly its own. With ProfilerSpans
// every state is there, and the two models add up, cell by cell.
func TestProfilerSpansLeftOut(t *testing.T) {
	tr := profilerSpans()
	wantOut := map[trace.Role][]float64{
		trace.RoleRecording:        {25, 25, 25, 25},
		trace.RoleStep:             {10, 20, 15, 25},
		trace.RoleDeviceAnnotation: {5, 25, 25, 5},
	}
	wantNames := map[trace.Role][]string{trace.RoleRecording: {"PyTorch Profiler (0)"}, trace.RoleStep: {"ProfilerStep"},
		trace.RoleDeviceAnnotation: {"ProfilerStep"}}
	opt := Options{Slices: 4, Depth: Innermost}
	full := opt
	full.ProfilerSpans = true
	for how, m := range spanModels(t, tr, opt) {
		if !slices.Equal(m.States, []string{"aten::mm", "kernel"}) {
			t.Errorf("%s: states %q", how, m.States)
		}
		if got := containerNames(tr, m); !slices.Equal(got, []string{"main", "stream 7"}) {
			t.Errorf("%s: resources %q", how, got)
		}
		if m.LeftOutRows != 2 {
			t.Errorf("%s: %d rows left out, want 2", how, m.LeftOutRows)
		}
		if len(m.LeftOut) != 3 {
			t.Fatalf("%s: left out %+v", how, m.LeftOut)
		}
		for i, l := range m.LeftOut {
			if l.Role != leftOutOrder[i] || !slices.Equal(l.Names, wantNames[l.Role]) {
				t.Errorf("%s: left out %v %q", how, l.Role, l.Names)
			}
			for k, s := range l.Time {
				if want := wantOut[l.Role][k] * 1e-9; math.Abs(s-want) > 1e-21 {
					t.Errorf("%s: %v slice %d: %g s left out, want %g", how, l.Role, k, s, want)
				}
			}
		}
		for k, want := range []float64{15, 5, 10, 0} {
			if got := m.Value(0, k, 0); math.Abs(got-want/25) > 1e-15 {
				t.Errorf("%s: aten::mm slice %d: %g, want %g", how, k, got, want/25)
			}
		}
		note := m.LeftOutNote("profiler_spans=True")
		for _, w := range []string{`the profiler's recording ("PyTorch Profiler (0)"), 1e-07 s`, `the steps ("ProfilerStep"), 7e-08 s`,
			"2 resources that held only them are not rows", "profiler_spans=True keeps them"} {
			if !strings.Contains(note, w) {
				t.Errorf("%s: note %q lacks %q", how, note, w)
			}
		}
		// Everything kept: the same cells, plus those of the spans.
		all := spanModels(t, tr, full)[how]
		if all.LeftOut != nil || all.LeftOutRows != 0 || all.NumLeaves() != 4 {
			t.Errorf("%s: ProfilerSpans model left out %+v, %d rows; %d resources", how, all.LeftOut, all.LeftOutRows, all.NumLeaves())
		}
		checkAddsUp(t, how, tr, m, all)
	}
}

// checkAddsUp checks that model m, which left spans out, and model all,
// which kept them, of the same trace agree: each of m's cells is all's
// of the same resource and state, and for each slice the time of all's
// cells is m's plus the time m left out, to the rounding of the sums.
func checkAddsUp(t *testing.T, how string, tr *trace.Trace, m, all *Model) {
	t.Helper()
	leafOf := map[int32]int{}
	for i, node := range all.Tree.Leaves {
		leafOf[all.Container[node]] = i
	}
	w := m.SliceDuration()
	for k := range m.Slices {
		in, total := 0.0, 0.0
		for i, node := range m.Tree.Leaves {
			j, ok := leafOf[m.Container[node]]
			if !ok {
				t.Fatalf("%s: resource %s is not in the model of every span", how, tr.Containers[m.Container[node]].Name)
			}
			for x, name := range m.States {
				v := m.Value(i, k, x)
				if y := slices.Index(all.States, name); y < 0 || all.Value(j, k, y) != v {
					t.Errorf("%s: %s slice %d %s: %g, not the same in the model of every span", how,
						tr.Containers[m.Container[node]].Name, k, name, v)
				}
				in += v * w
			}
		}
		for j := range all.NumLeaves() {
			for y := range all.States {
				total += all.Value(j, k, y) * w
			}
		}
		out := 0.0
		for _, l := range m.LeftOut {
			out += l.Time[k]
		}
		if math.Abs(in+out-total) > 1e-9*math.Max(total, 1e-9) {
			t.Errorf("%s: slice %d: %.12g s in the model + %.12g s left out, %.12g s with every span", how, k, in, out, total)
		}
	}
}

// TestProfilerSpansOfJAX: JAX's step annotations
// (StepTraceAnnotation("train", step_num=N), steps by their reader) are
// left out of a JAX profile's model, its cells those of the model that
// keeps them, and their time makes up the difference.
func TestProfilerSpansOfJAX(t *testing.T) {
	tr, err := readTrace("../readers/xplane/testdata/jax_cpu_steps1to4.xplane.pb", "")
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Slices: 20, Depth: Innermost}
	m, err := Build(tr, opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.ProfilerSpans = true
	all, err := Build(tr, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.LeftOut) != 1 || m.LeftOut[0].Role != trace.RoleStep || !slices.Equal(m.LeftOut[0].Names, []string{"train"}) ||
		m.LeftOut[0].Total() <= 0 {
		t.Errorf("left out %+v", m.LeftOut)
	}
	if slices.Contains(m.States, "train") || !slices.Contains(all.States, "train") {
		t.Errorf("states %q; with the spans %q", m.States, all.States)
	}
	checkAddsUp(t, "jax", tr, m, all)
}

// TestOnlyProfilerSpans: a trace of nothing but the profiler's spans has
// no model unless it keeps them, and the error names the parameter that
// does, whichever way the model is built.
func TestOnlyProfilerSpans(t *testing.T) {
	tr := trace.New("spans only")
	tr.DefineType(trace.Type{Name: "Thread", Kind: trace.KindContainer, Parent: trace.None})
	tr.DefineType(trace.Type{Name: "S", Kind: trace.KindState, Parent: 0})
	tr.DefineValue(trace.Value{Type: 1, Name: "PyTorch Profiler (0)", Category: "Trace", Role: trace.RoleRecording})
	tr.CreateContainer(trace.Container{Name: "Spans", Type: 0, Parent: 0})
	tr.States.Append(trace.State{Container: 1, Type: 1, Value: 0, Start: 0, End: 10})
	tr.Finish(0, 10)
	for _, replay := range []bool{true, false} {
		buildReplays = replay
		_, err := Build(tr, Options{Slices: 2, Depth: Innermost})
		buildReplays = true
		var ae *errs.ArgumentError
		if !errors.As(err, &ae) || ae.Name != "profiler_spans" || !strings.Contains(ae.Reason, "every state of the trace is a span") {
			t.Errorf("replay %v: error %v", replay, err)
		}
	}
	if m, err := Build(tr, Options{Slices: 2, Depth: Innermost, ProfilerSpans: true}); err != nil || m.NumLeaves() != 1 {
		t.Errorf("with the spans: %v", err)
	}
}

// TestProfilerSpansNamesWhateverKey: the names of the spans left out are
// those of every value with time, whatever the key: with
// key=category (or type), Kineto's copies of two annotations on a GPU
// stream share a category, and the stream's builders, which key the
// columns by category, listed only the first's name.
func TestProfilerSpansNamesWhateverKey(t *testing.T) {
	tr := trace.New("annotations")
	tr.DefineType(trace.Type{Name: "Thread", Kind: trace.KindContainer, Parent: trace.None})
	tr.DefineType(trace.Type{Name: "S", Kind: trace.KindState, Parent: 0})
	tr.DefineValue(trace.Value{Type: 1, Name: "ProfilerStep#1", Category: "gpu_user_annotation", Role: trace.RoleDeviceAnnotation})
	tr.DefineValue(trace.Value{Type: 1, Name: "forward", Category: "gpu_user_annotation", Role: trace.RoleDeviceAnnotation})
	tr.DefineValue(trace.Value{Type: 1, Name: "kernel", Category: "kernel"})
	tr.CreateContainer(trace.Container{Name: "stream 7 (annotations)", Type: 0, Parent: 0})
	tr.CreateContainer(trace.Container{Name: "stream 7", Type: 0, Parent: 0})
	tr.States.Append(trace.State{Container: 1, Type: 1, Value: 0, Start: 0, End: 5})
	tr.States.Append(trace.State{Container: 1, Type: 1, Value: 1, Start: 5, End: 9})
	tr.States.Append(trace.State{Container: 2, Type: 1, Value: 2, Start: 1, End: 9})
	tr.Finish(0, 10)
	for _, key := range Keys {
		for how, m := range spanModels(t, tr, Options{Slices: 2, Depth: Innermost, Key: key}) {
			if len(m.LeftOut) != 1 || !slices.Equal(m.LeftOut[0].Names, []string{"ProfilerStep", "forward"}) ||
				!slices.Equal(m.LeftOut[0].Time, []float64{5e-9, 4e-9}) {
				t.Errorf("key %s, %s: left out %+v", key, how, m.LeftOut)
			}
		}
	}
}

// TestProfilerSpansKeptLast: a model that keeps the profiler's spans has
// the default model's states first, in its order, then the spans, on
// every build path and whatever the key: the palette colours a state by
// its index, so a state has one colour in the figures of both models (and
// in the moment display's, plots.TraceStateColors).
func TestProfilerSpansKeptLast(t *testing.T) {
	tr := profilerSpans()
	for _, key := range []Key{KeyGroup, KeyName, KeyCategory} {
		def, err := Build(tr, Options{Slices: 4, Depth: Innermost, Key: key})
		if err != nil {
			t.Fatal(err)
		}
		for how, m := range spanModels(t, tr, Options{Slices: 4, Depth: Innermost, Key: key, ProfilerSpans: true}) {
			if len(m.States) <= len(def.States) || !slices.Equal(m.States[:len(def.States)], def.States) {
				t.Errorf("key %s, %s: states %q, the default model's %q first", key, how, m.States, def.States)
			}
		}
	}
	m, err := Build(tr, Options{Slices: 4, Depth: Innermost, ProfilerSpans: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"aten::mm", "kernel", "PyTorch Profiler (0)", "ProfilerStep"}; !slices.Equal(m.States, want) {
		t.Errorf("states %q, want %q", m.States, want)
	}
}
