package rocprof

import (
	"runtime"
	"slices"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// nullSink drops everything: the benchmarks measure the readers alone.
type nullSink struct{}

func (nullSink) DefineType(trace.Type)              {}
func (nullSink) DefineValue(trace.Value)            {}
func (nullSink) CreateContainer(trace.Container)    {}
func (nullSink) DestroyContainer(int32, trace.Time) {}
func (nullSink) State(trace.State)                  {}
func (nullSink) Variable(trace.Variable)            {}
func (nullSink) Link(trace.Link)                    {}
func (nullSink) Event(trace.Event)                  {}
func (nullSink) Finish(trace.Time, trace.Time)      {}

// BenchmarkJSONCorpus reads the 37 MB rocprofv3 JSON of the corpus
// (43,915 kernel dispatches), gzip-compressed.
func BenchmarkJSONCorpus(b *testing.B) {
	p := corpus(b, "rocprofv3-tracelens", "908_results.json.gz")
	for i := 0; i < b.N; i++ {
		if err := readJSONFile(p, nullSink{}, trace.ReadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapSys)/1e6, "MBheapsys")
}

// BenchmarkCSVCorpus reads the decode run's CSV files (920 HIP calls, 144
// kernels).
func BenchmarkCSVCorpus(b *testing.B) {
	files, err := csvFiles(corpus(b, "rocprofv3-csv", "decode_kernel_trace.csv"), true)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		if err := ReadCSV(files, false, nullSink{}, trace.ReadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEmitStates nests and delivers a million HIP calls of one
// thread: the reader's nesting and delivery alone.
func BenchmarkEmitStates(b *testing.B) {
	m := newModel(trace.ReadOptions{})
	th := m.thread(m.host(""), 1, 1)
	for _, s := range readertest.CallStacks(1<<20, 1) {
		m.add(th, kindHIP, "hipLaunchKernel", s.Start, s.End, 0, nan)
	}
	base := slices.Clone(m.recs)
	for b.Loop() {
		copy(m.recs, base)
		if err := m.emit(nullSink{}, "bench"); err != nil {
			b.Fatal(err)
		}
	}
}
