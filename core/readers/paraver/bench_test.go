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
	cfg, err := loadConfig(configPaths(namd))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if err := decodeStream(bytes.NewReader(data), "namd", 0, cfg, threadView, trace.New(), trace.ReadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeNamdStream is the same read into a sink that keeps
// nothing: the reader's own cost, with memory that does not grow.
func BenchmarkDecodeNamdStream(b *testing.B) {
	needFiles(b, namd)
	data, err := os.ReadFile(namd)
	if err != nil {
		b.Fatal(err)
	}
	cfg, err := loadConfig(configPaths(namd))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		sink := &trace.Counter{}
		if err := decodeStream(bytes.NewReader(data), "namd", 0, cfg, threadView, sink, trace.ReadOptions{}); err != nil {
			b.Fatal(err)
		}
		if sink.States+sink.Variables+sink.Links+sink.Events != 4+157207 {
			b.Fatalf("%d entities", sink.States+sink.Variables+sink.Links+sink.Events)
		}
	}
}
