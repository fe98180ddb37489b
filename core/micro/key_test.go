package micro

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/readers/chrome"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// kinetoLike is one thread and one GPU stream of a PyTorch profiler trace
// in miniature, 10 µs long: kernels, CUDA runtime calls and CPU operators,
// each category with two names, "copy" in two categories.
const kinetoLike = `{"traceEvents":[
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":6},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1,"dur":2},
{"ph":"X","cat":"cuda_runtime","name":"copy","pid":1,"tid":1,"ts":4,"dur":1},
{"ph":"X","cat":"cpu_op","name":"aten::relu","pid":1,"tid":1,"ts":7,"dur":3},
{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":2,"dur":4},
{"ph":"X","cat":"kernel","name":"relu","pid":0,"tid":7,"ts":6,"dur":2},
{"ph":"X","cat":"gpu_memcpy","name":"copy","pid":0,"tid":7,"ts":8,"dur":1}
]}`

func kinetoTrace(t *testing.T) *trace.Trace {
	t.Helper()
	tr := trace.New("kineto.json")
	if err := chrome.Decode(strings.NewReader(kinetoLike), "kineto.json", 0, tr, trace.ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestKeyCategory checks the model keyed by category against values
// worked out by hand: on the CPU thread (innermost states) aten::mm holds
// [0,1) [3,4) [5,6), the runtime [1,3) [4,5), relu [7,10); the stream has
// kernels [2,8) and a copy [8,9).
func TestKeyCategory(t *testing.T) {
	tr := kinetoTrace(t)
	for _, c := range []struct {
		metric Metric
		want   map[string][]float64 // by leaf name, by category
	}{
		{StateDuration, map[string][]float64{
			"1": {0.6, 0.3, 0, 0},
			"7": {0, 0, 0.6, 0.1},
		}},
		// Stays: aten::mm is one stay however cut (3 µs on top), relu
		// one (3 µs): 6 µs / 2; the runtime two stays, 3 µs / 2; two
		// kernels, 6 µs / 2.
		{StateAverageDuration, map[string][]float64{
			"1": {3e-6, 1.5e-6, 0, 0},
			"7": {0, 0, 3e-6, 1e-6},
		}},
	} {
		for _, key := range []Key{KeyCategory, "cat"} {
			m, err := Build(tr, Options{Slices: 1, Depth: Innermost, Metric: c.metric, Key: key})
			if err != nil {
				t.Fatal(err)
			}
			if want := []string{"cpu_op", "cuda_runtime", "kernel", "gpu_memcpy"}; !slices.Equal(m.States, want) {
				t.Fatalf("categories %q, want %q", m.States, want)
			}
			for leaf, id := range m.Tree.Leaves {
				name := m.Tree.Names[id]
				got := m.Dense()[leaf*len(m.States) : (leaf+1)*len(m.States)]
				for k, v := range got {
					if diff := v - c.want[name][k]; diff > 1e-18 || diff < -1e-18 {
						t.Errorf("%s key %q: leaf %s %s = %g, want %g", c.metric, key, name, m.States[k], v, c.want[name][k])
					}
				}
			}
			// The stream gives the same model, bit for bit.
			got, _, err := Load(replay(tr), Options{Slices: 1, Depth: Innermost, Metric: c.metric, Key: key}, trace.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := sameModel(m, got); err != nil {
				t.Errorf("%s: stream: %v", c.metric, err)
			}
		}
	}
}

// TestKeyCategoryIsRenaming checks, on several slices and every state
// metric, that keying by category is keying by name a trace whose values
// are renamed after their category: values that share a name share a
// category.
func TestKeyCategoryIsRenaming(t *testing.T) {
	tr := kinetoTrace(t)
	renamed := *tr
	renamed.Values = slices.Clone(tr.Values)
	for i := range renamed.Values {
		renamed.Values[i].Name = renamed.Values[i].Category
	}
	for _, metric := range []Metric{StateDuration, StateAverageDuration} {
		for _, depth := range []int{Innermost, 0, 1} {
			opt := Options{Slices: 5, Depth: depth, Metric: metric}
			want, err := Build(&renamed, opt)
			if err != nil {
				t.Fatal(err)
			}
			opt.Key = KeyCategory
			got, err := Build(tr, opt)
			if err != nil {
				t.Fatal(err)
			}
			if err := sameModel(want, got); err != nil {
				t.Errorf("%s depth %d: %v", metric, depth, err)
			}
		}
	}
}

// TestKeyNameMergesHomonyms checks that two values of one type with one
// name (copy, in two categories) are one category of the model by name.
func TestKeyNameMergesHomonyms(t *testing.T) {
	m, err := Build(kinetoTrace(t), Options{Slices: 1, Depth: Innermost})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"aten::mm", "cudaLaunchKernel", "copy", "aten::relu", "gemm", "relu"}
	if !slices.Equal(m.States, want) {
		t.Errorf("categories %q, want %q", m.States, want)
	}
}

func TestKeyRejected(t *testing.T) {
	tr := kinetoTrace(t)
	for _, run := range []func() error{
		func() error { _, err := Build(tr, Options{Slices: 2, Key: "names"}); return err },
		func() error {
			_, _, err := Load(replay(tr), Options{Slices: 2, Key: "names"}, trace.ReadOptions{})
			return err
		},
	} {
		var ae *errs.ArgumentError
		if err := run(); !errors.As(err, &ae) || ae.Name != "key" {
			t.Errorf("got %v, want an ArgumentError on key", err)
		}
	}
}

// TestKeyTypeIsRenaming checks that keying by type is keying by name a
// trace whose values are renamed after their type, in memory and from
// the stream, on a trace with two state types on two kinds of container
// (an Nsight Systems export in miniature).
func TestKeyTypeIsRenaming(t *testing.T) {
	tr := twoTypesTrace()
	renamed := *tr
	renamed.Values = slices.Clone(tr.Values)
	for i := range renamed.Values {
		renamed.Values[i].Name = tr.Types[renamed.Values[i].Type].Name
	}
	for _, metric := range []Metric{StateDuration, StateAverageDuration} {
		for _, depth := range []int{Innermost, 0, 1} {
			opt := Options{Slices: 4, Depth: depth, Metric: metric}
			want, err := Build(&renamed, opt)
			if err != nil {
				t.Fatal(err)
			}
			opt.Key = KeyType
			got, err := Build(tr, opt)
			if err != nil {
				t.Fatal(err)
			}
			if err := sameModel(want, got); err != nil {
				t.Errorf("%s depth %d: %v", metric, depth, err)
			}
			streamed, _, err := StreamWith(replay(tr), opt, trace.ReadOptions{}, StreamOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := sameModel(got, streamed); err != nil {
				t.Errorf("%s depth %d: stream: %v", metric, depth, err)
			}
		}
	}
	m, err := Build(tr, Options{Slices: 1, Depth: Innermost, Key: KeyType})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"API call", "Kernel"}; !slices.Equal(m.States, want) {
		t.Errorf("categories %q, want %q", m.States, want)
	}
}

// twoTypesTrace is a thread making API calls (one nested in another) and
// a GPU stream running three kernels of three names, over 10 ns.
func twoTypesTrace() *trace.Trace {
	tr := trace.New("two-types")
	tr.DefineType(trace.Type{Name: "Thread", Kind: trace.KindContainer, Parent: trace.None})  // 0
	tr.DefineType(trace.Type{Name: "Stream", Kind: trace.KindContainer, Parent: trace.None})  // 1
	tr.DefineType(trace.Type{Name: "API call", Kind: trace.KindState, Parent: 0})             // 2
	tr.DefineType(trace.Type{Name: "Kernel", Kind: trace.KindState, Parent: 1})               // 3
	tr.CreateContainer(trace.Container{Name: "thread", Type: 0, Parent: 0})                   // 1
	tr.CreateContainer(trace.Container{Name: "stream", Type: 1, Parent: 0})                   // 2
	for i, name := range []string{"cudaLaunchKernel", "cudaMemcpy", "gemm", "relu", "nccl"} { // values 0..4
		typ := int32(2)
		if i >= 2 {
			typ = 3
		}
		tr.DefineValue(trace.Value{Type: typ, Name: name})
	}
	tr.State(trace.State{Container: 1, Type: 2, Value: 0, Start: 1, End: 2, Depth: 1, Order: 1})
	tr.State(trace.State{Container: 1, Type: 2, Value: 1, Start: 0, End: 4, Depth: 0, Order: 0})
	tr.State(trace.State{Container: 1, Type: 2, Value: 0, Start: 5, End: 9, Depth: 0, Order: 2})
	tr.State(trace.State{Container: 2, Type: 3, Value: 2, Start: 2, End: 5, Depth: 0, Order: 0})
	tr.State(trace.State{Container: 2, Type: 3, Value: 3, Start: 5, End: 6, Depth: 0, Order: 1})
	tr.State(trace.State{Container: 2, Type: 3, Value: 4, Start: 7, End: 10, Depth: 0, Order: 2})
	tr.Finish(0, 10)
	return tr
}
