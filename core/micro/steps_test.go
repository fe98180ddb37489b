package micro

import (
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// stepsTrace is two ranks' main threads, each with steps 1 and 2 (rank
// 1's later), an operator in each step, and a counter of another state
// type, over [0, 100] ns.
func stepsTrace() *trace.Trace {
	tr := trace.New("steps")
	tr.DefineType(trace.Type{Name: "Process", Kind: trace.KindContainer, Parent: trace.None})
	tr.DefineType(trace.Type{Name: "Thread", Kind: trace.KindContainer, Parent: 0})
	tr.DefineType(trace.Type{Name: "S", Kind: trace.KindState, Parent: 1})
	tr.DefineType(trace.Type{Name: "Other", Kind: trace.KindState, Parent: 1})
	for _, v := range []trace.Value{
		{Type: 2, Name: "ProfilerStep#1", Role: trace.RoleStep, Step: 1},
		{Type: 2, Name: "ProfilerStep#2", Role: trace.RoleStep, Step: 2},
		{Type: 2, Name: "aten::mm", Role: trace.RoleHostCall},
		{Type: 3, Name: "busy"},
	} {
		tr.DefineValue(v)
	}
	tr.CreateContainer(trace.Container{Name: "rank 0", Type: 0, Parent: 0})
	tr.CreateContainer(trace.Container{Name: "rank 1", Type: 0, Parent: 0})
	tr.CreateContainer(trace.Container{Name: "main", Type: 1, Parent: 1})
	tr.CreateContainer(trace.Container{Name: "main", Type: 1, Parent: 2})
	for _, s := range []trace.State{
		{Container: 3, Type: 2, Value: 2, Start: 10, End: 30, Depth: 1},
		{Container: 3, Type: 2, Value: 0, Start: 5, End: 40},
		{Container: 3, Type: 2, Value: 1, Start: 40, End: 80},
		{Container: 4, Type: 2, Value: 0, Start: 8, End: 45},
		{Container: 4, Type: 2, Value: 2, Start: 50, End: 60, Depth: 1},
		{Container: 4, Type: 2, Value: 1, Start: 45, End: 90},
		{Container: 4, Type: 3, Value: 3, Start: 0, End: 100},
	} {
		tr.States.Append(s)
	}
	tr.Finish(0, 100)
	return tr
}

// TestModelSteps: every way a model is built carries the program's steps,
// merged over the ranks (from the first start to the last end of each
// number), whether it leaves their time out or keeps it, whatever state
// types it models; a window, and Model.Window, keep the steps they
// overlap.
func TestModelSteps(t *testing.T) {
	tr := stepsTrace()
	both := []Step{{Number: 1, Start: 5, End: 45}, {Number: 2, Start: 40, End: 90}}
	for _, c := range []struct {
		name string
		opt  Options
		want []Step
	}{
		{"default", Options{Slices: 4, Depth: Innermost}, both},
		{"profiler spans", Options{Slices: 4, Depth: Innermost, ProfilerSpans: true}, both},
		{"other type", Options{Slices: 4, Depth: Innermost, StateTypes: []string{"Other"}}, both},
		{"depth 0", Options{Slices: 4, Depth: 0}, both},
		{"window [50, 100)", Options{Slices: 2, Depth: Innermost, Start: ptr(trace.Time(50)), End: ptr(trace.Time(100))}, both[1:]},
		{"window [0, 40)", Options{Slices: 2, Depth: Innermost, Start: ptr(trace.Time(0)), End: ptr(trace.Time(40))}, both[:1]},
		{"window [92, 100)", Options{Slices: 2, Depth: Innermost, Start: ptr(trace.Time(92)), End: ptr(trace.Time(100))}, nil},
	} {
		for how, m := range spanModels(t, tr, c.opt) {
			if !reflect.DeepEqual(m.Steps, c.want) {
				t.Errorf("%s, %s: steps %v, want %v", c.name, how, m.Steps, c.want)
			}
		}
	}
	m, err := Build(tr, Options{Slices: 4, Depth: Innermost})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []struct {
		first, last int
		want        []Step
	}{{0, 0, both[:1]}, {1, 1, both}, {2, 3, both[1:]}} {
		z, err := m.Window(w.first, w.last)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(z.Steps, w.want) {
			t.Errorf("Window(%d, %d): steps %v, want %v", w.first, w.last, z.Steps, w.want)
		}
	}
	if got := both[1].Label(); got != "step 2" {
		t.Errorf("label %q", got)
	}
}

func ptr[T any](x T) *T { return &x }

// TestStepsOfKinetoCorpus: the steps of a real PyTorch profiler trace's
// model are its ProfilerStep#N spans on the host, as the JSON, parsed
// apart from the reader, has them: for each N, from the first event's ts
// to the last event's ts + dur (the GPU streams' copies, category
// gpu_user_annotation, are not steps), to the µs that encoding/json's
// float64 keeps of an epoch's µs.
func TestStepsOfKinetoCorpus(t *testing.T) {
	for _, file := range []string{
		"hta/tests/data/nccl_parser_config/nccl_data.json.gz",
		"hta/tests/data/df_index_resolver/df_index_resolver.json.gz",
		"hta/tests/data/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz",
	} {
		evs := kinetoEvents(t, filepath.Join("..", "..", "..", "shared", "traces", file))
		type span struct{ start, end float64 }
		want := map[int32]span{}
		for _, e := range evs {
			n, ok := strings.CutPrefix(e.Name, "ProfilerStep#")
			if !ok || e.Cat == "gpu_user_annotation" {
				continue
			}
			k, err := strconv.Atoi(n)
			if err != nil {
				t.Fatalf("%s: %q", file, e.Name)
			}
			s, seen := want[int32(k)]
			if !seen || e.Ts < s.start {
				s.start = e.Ts
			}
			if !seen || e.Ts+e.Dur > s.end {
				s.end = e.Ts + e.Dur
			}
			want[int32(k)] = s
		}
		if len(want) == 0 {
			t.Fatalf("%s: no ProfilerStep in the JSON", file)
		}
		tr := corpusTrace(t, file)
		models := map[string]*Model{}
		for _, replay := range []bool{true, false} {
			buildReplays = replay
			m, err := Build(tr, Options{Slices: 50, Depth: Innermost})
			buildReplays = true
			if err != nil {
				t.Fatal(err)
			}
			models[map[bool]string{true: "replay", false: "dense"}[replay]] = m
		}
		for how, m := range models {
			if len(m.Steps) != len(want) {
				t.Errorf("%s, %s: %d steps, the JSON has %d", file, how, len(m.Steps), len(want))
			}
			for i, s := range m.Steps {
				w, ok := want[s.Number]
				if !ok {
					t.Errorf("%s, %s: step %d not in the JSON", file, how, s.Number)
					continue
				}
				if d := float64(s.Start)/1e3 - w.start; d > 1 || d < -1 {
					t.Errorf("%s, %s: step %d starts at %d ns, the JSON's %.3f µs", file, how, s.Number, s.Start, w.start)
				}
				if d := float64(s.End)/1e3 - w.end; d > 1 || d < -1 {
					t.Errorf("%s, %s: step %d ends at %d ns, the JSON's %.3f µs", file, how, s.Number, s.End, w.end)
				}
				if i > 0 && m.Steps[i-1].Start > s.Start {
					t.Errorf("%s, %s: steps out of order", file, how)
				}
			}
		}
	}
}
