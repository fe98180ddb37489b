package gotrace

import (
	"bufio"
	"os"
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// BenchmarkRead reads the largest sample trace (Go 1.26, 0.9 MB, 217,000
// states) into memory.
func BenchmarkRead(b *testing.B) {
	path := filepath.Join(corpus, "generated-go1.26", "gc-stress.trace")
	st, err := os.Stat(path)
	if err != nil {
		b.Skipf("no %s", path)
	}
	b.SetBytes(st.Size())
	for b.Loop() {
		if err := read(path, trace.New(path), trace.ReadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeWire decodes the generations of a trace without building
// the model: GOTRACE_BENCH names a large file (bench/gotracegen), else the
// largest sample trace is used.
func BenchmarkDecodeWire(b *testing.B) {
	path := os.Getenv("GOTRACE_BENCH")
	if path == "" {
		path = filepath.Join(corpus, "generated-go1.26", "gc-stress.trace")
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Skipf("no %s", path)
	}
	b.SetBytes(st.Size())
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		br := bufio.NewReaderSize(f, 1<<20)
		head, _ := br.Peek(headerLen)
		ver, err := version(head, path)
		if err != nil {
			b.Fatal(err)
		}
		br.Discard(headerLen)
		if err := decodeWire(br, ver, 0, func(*wireGeneration) error { return nil }); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}

// BenchmarkReadLarge reads the trace GOTRACE_BENCH names (else the
// largest sample) into memory with the parser (parser) and with the
// package's own decoder and merge (own).
func BenchmarkReadLarge(b *testing.B) {
	path := os.Getenv("GOTRACE_BENCH")
	if path == "" {
		path = filepath.Join(corpus, "generated-go1.26", "gc-stress.trace")
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Skipf("no %s", path)
	}
	for _, own := range []bool{false, true} {
		name := map[bool]string{false: "parser", true: "own"}[own]
		b.Run(name, func(b *testing.B) {
			defer func(was bool) { ownDecoder = was }(ownDecoder)
			ownDecoder = own
			b.SetBytes(st.Size())
			for b.Loop() {
				if err := read(path, trace.New(path), trace.ReadOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkMerge decodes and merges the events of the trace
// GOTRACE_BENCH names (else the largest sample) and keeps none: the
// package's counterpart of bench/gotraceparse, which reads every event
// with the parser and keeps none.
func BenchmarkMerge(b *testing.B) {
	path := os.Getenv("GOTRACE_BENCH")
	if path == "" {
		path = filepath.Join(corpus, "generated-go1.26", "gc-stress.trace")
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Skipf("no %s", path)
	}
	b.SetBytes(st.Size())
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		br := bufio.NewReaderSize(f, 1<<20)
		head, _ := br.Peek(headerLen)
		ver, err := version(head, path)
		if err != nil {
			b.Fatal(err)
		}
		br.Discard(headerLen)
		n := 0
		mg := newMergerEach(func(*mergedEvent) error { n++; return nil })
		if err := decodeWire(br, ver, 0, mg.generation); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}
