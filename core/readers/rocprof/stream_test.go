package rocprof

import (
	"slices"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestStreamAccepted feeds each reader's delivery to the microscopic
// model's streaming accumulator, whose default expects the states of a
// container and type as they complete (a state after those nested in it):
// it must follow the nesting and give, cell by cell, the model Build gives
// on the whole trace, for innermost states and for each depth.
func TestStreamAccepted(t *testing.T) {
	type input struct {
		name string
		read func(trace.Sink, trace.ReadOptions) error
	}
	var inputs []input
	add := func(name string, read func(trace.Sink, trace.ReadOptions) error) {
		inputs = append(inputs, input{name, read})
	}
	t.Run("corpus", func(t *testing.T) {
		rpd := corpus(t, "rpd", "matmul_result.rpd")
		add("rpd", func(s trace.Sink, o trace.ReadOptions) error { return readRPD(rpd, s, o) })
		decode, _ := csvFiles(corpus(t, "rocprofv3-csv", "decode_kernel_trace.csv"), true)
		add("csv", func(s trace.Sink, o trace.ReadOptions) error { return ReadCSV(decode, false, s, o) })
		docs, _ := csvFiles(corpus(t, "rocprofv3-docs"), true)
		add("docs", func(s trace.Sink, o trace.ReadOptions) error { return ReadCSV(docs, false, s, o) })
		v1 := corpus(t, "rocprof-v1v2-csv", "Axes1_mi200_rocprofv1", "SQ_LEVEL_WAVES.csv")
		add("v1", func(s trace.Sink, o trace.ReadOptions) error { return readLegacyCSV(v1, false, s, o) })
		js := corpus(t, "rocprofv3-tracelens", "908_results.json.gz")
		add("json", func(s trace.Sink, o trace.ReadOptions) error { return readJSONFile(js, s, o) })
	})
	for _, in := range inputs {
		whole, _ := load(t, in.read)
		for _, depth := range []int{micro.Innermost, 0, 1} {
			opt := micro.Options{Slices: 50, Depth: depth}
			want, err := micro.Build(whole, opt)
			if err != nil {
				t.Fatalf("%s: %v", in.name, err)
			}
			acc, err := micro.NewAccumulator(opt, whole.Start, whole.End)
			if err != nil {
				t.Fatal(err)
			}
			if err := in.read(acc, trace.ReadOptions{}); err != nil {
				t.Fatal(err)
			}
			got, err := acc.Model()
			if err != nil {
				t.Fatalf("%s, depth %d: %v", in.name, depth, err)
			}
			if !slices.Equal(got.Values, want.Values) || !slices.Equal(got.States, want.States) {
				t.Errorf("%s, depth %d: the streamed model differs from Build's", in.name, depth)
			}
		}
	}
}
