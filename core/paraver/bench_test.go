package paraver

import (
	"bytes"
	"os"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// BenchmarkDecodeNamd reads the largest Paraver trace of the corpus
// (2.9 MB, 27,919 event records holding 157,207 events) into a
// trace.Trace.
func BenchmarkDecodeNamd(b *testing.B) {
	needFiles(b, namd)
	data, err := os.ReadFile(namd)
	if err != nil {
		b.Fatal(err)
	}
	cfg, err := LoadConfig(ConfigPaths(namd))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if err := Decode(bytes.NewReader(data), "namd", 0, cfg, ByThread, trace.New(), trace.ReadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// countingSink counts what it receives and keeps nothing, to time the
// reader alone.
type countingSink struct{ n int }

func (c *countingSink) DefineType(trace.Type)              {}
func (c *countingSink) DefineValue(trace.Value)            {}
func (c *countingSink) CreateContainer(trace.Container)    {}
func (c *countingSink) DestroyContainer(int32, trace.Time) {}
func (c *countingSink) State(trace.State)                  { c.n++ }
func (c *countingSink) Variable(trace.Variable)            { c.n++ }
func (c *countingSink) Link(trace.Link)                    { c.n++ }
func (c *countingSink) Event(trace.Event)                  { c.n++ }
func (c *countingSink) Finish(trace.Time, trace.Time)      {}

// BenchmarkDecodeNamdStream is the same read into a sink that keeps
// nothing: the reader's own cost, with memory that does not grow.
func BenchmarkDecodeNamdStream(b *testing.B) {
	needFiles(b, namd)
	data, err := os.ReadFile(namd)
	if err != nil {
		b.Fatal(err)
	}
	cfg, err := LoadConfig(ConfigPaths(namd))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		sink := &countingSink{}
		if err := Decode(bytes.NewReader(data), "namd", 0, cfg, ByThread, sink, trace.ReadOptions{}); err != nil {
			b.Fatal(err)
		}
		if sink.n != 4+157207 {
			b.Fatalf("%d entities", sink.n)
		}
	}
}
