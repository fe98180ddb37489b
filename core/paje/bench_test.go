package paje

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// countSink counts entities and keeps nothing, like an analysis that only
// needs a summary.
type countSink struct{ states, variables, others int }

func (c *countSink) DefineType(trace.Type)              {}
func (c *countSink) DefineValue(trace.Value)            {}
func (c *countSink) CreateContainer(trace.Container)    {}
func (c *countSink) DestroyContainer(int32, trace.Time) {}
func (c *countSink) State(trace.State)                  { c.states++ }
func (c *countSink) Variable(trace.Variable)            { c.variables++ }
func (c *countSink) Link(trace.Link)                    { c.others++ }
func (c *countSink) Event(trace.Event)                  { c.others++ }
func (c *countSink) Finish(trace.Time, trace.Time)      {}

const benchEvents = 1_000_000

var benchInput = sync.OnceValue(func() []byte {
	return []byte(generate(genConfig{processes: 64, events: benchEvents, seed: 42}))
})

// BenchmarkRead streams a generated trace of SetState, PushState, PopState
// and SetVariable events (64 processes, 10^6 events, about 30 MB) into a
// sink that keeps nothing.
func BenchmarkRead(b *testing.B) {
	in := benchInput()
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		var s countSink
		if err := DecodeWith(bytes.NewReader(in), "bench.trace", 0, &s, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(benchEvents)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkReadTrace reads the same trace into memory.
func BenchmarkReadTrace(b *testing.B) {
	in := benchInput()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if err := DecodeWith(bytes.NewReader(in), "bench.trace", 0, trace.New(), Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(benchEvents)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// TestGeneratedTraceIsConsistent checks the generator against the reader:
// every SetState and PushState line opens one state that ends.
func TestGeneratedTraceIsConsistent(t *testing.T) {
	in := generate(genConfig{processes: 5, events: 2000, seed: 1})
	var s countSink
	if err := DecodeWith(strings.NewReader(in), "gen.trace", 0, &s, Options{}); err != nil {
		t.Fatal(err)
	}
	opened := 0
	for _, l := range strings.Split(in, "\n") {
		if strings.HasPrefix(l, "4 ") || strings.HasPrefix(l, "5 ") {
			opened++
		}
	}
	if s.states != opened || s.variables == 0 {
		t.Fatalf("%d states for %d opened, %d variable pieces", s.states, opened, s.variables)
	}
}
