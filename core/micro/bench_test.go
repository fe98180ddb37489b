package micro

import (
	"bytes"
	"runtime"
	"sync"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/gen/synth"
	"github.com/macroscope-hpc/macroscope/core/readers/paje"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// benchPaje is a machine room of 512 cores changing state 10^6 times, as
// core/gen/synth writes it in Pajé (about 25 MB).
var benchPaje = sync.OnceValues(func() ([]byte, synth.Stats) {
	var b bytes.Buffer
	st, err := synth.WritePaje(&b, synth.Config{Sites: 2, Clusters: 4, Machines: 8, Cores: 8, Events: 1_000_000, Seed: 1})
	if err != nil {
		panic(err)
	}
	return b.Bytes(), st
})

func benchSource(in []byte) Source {
	return func(sink trace.Sink, opt trace.ReadOptions) error {
		return paje.Decode(bytes.NewReader(in), "bench.trace", 0, sink, paje.Options{})
	}
}

// heapInUse returns the bytes of live heap, after two collections (the
// second empties the pools the reader leaves, as a long session would).
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkReadInMemory reads the trace into memory and builds its model
// from it (ms.read(path).micro()); B/state is the memory the trace holds
// once read, per state.
func BenchmarkReadInMemory(b *testing.B) {
	in, st := benchPaje()
	src := benchSource(in)
	b.SetBytes(int64(len(in)))
	var held uint64
	for b.Loop() {
		before := heapInUse()
		t := trace.New()
		if err := src(t, trace.ReadOptions{}); err != nil {
			b.Fatal(err)
		}
		held = heapInUse() - before
		if _, err := Build(t, Options{Slices: 100, Depth: Innermost}); err != nil {
			b.Fatal(err)
		}
		runtime.KeepAlive(t)
	}
	b.ReportMetric(float64(held)/float64(st.States), "B/state")
	b.ReportMetric(float64(st.States)*float64(b.N)/b.Elapsed().Seconds(), "states/s")
}

// BenchmarkBuildFromTrace builds the model from the trace in memory only,
// to compare with BenchmarkStream (reading included there).
func BenchmarkBuildFromTrace(b *testing.B) {
	in, st := benchPaje()
	t := trace.New()
	if err := benchSource(in)(t, trace.ReadOptions{}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := Build(t, Options{Slices: 100, Depth: Innermost}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(st.States)*float64(b.N)/b.Elapsed().Seconds(), "states/s")
}

// BenchmarkStream builds the model while reading (ms.read_micro(path)).
func BenchmarkStream(b *testing.B) {
	in, st := benchPaje()
	src := benchSource(in)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, _, err := Stream(src, Options{Slices: 100, Depth: Innermost}, trace.ReadOptions{}, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(st.States)*float64(b.N)/b.Elapsed().Seconds(), "states/s")
}
