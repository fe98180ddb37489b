package chrome

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/macroscope-hpc/macroscope/core/readers/nesting"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// benchFile is the largest Kineto trace of the corpus: 455,739 events,
// 87 MB of JSON once decompressed.
const benchFile = corpus + "/hta/tests/data/mtia_trace_single_rank/mtia_rank_0.json.gz"

func loadBench(b *testing.B) (compressed, plain []byte) {
	compressed, err := os.ReadFile(benchFile)
	if err != nil {
		b.Skipf("benchmark trace not available: %v", err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(compressed))
	if err != nil {
		b.Fatal(err)
	}
	plain, err = io.ReadAll(zr)
	if err != nil {
		b.Fatal(err)
	}
	return compressed, plain
}

// reportCPU adds the CPU time per read and the megabytes read per CPU
// second to the benchmark's results: on a machine shared with other work
// they are steadier than the wall time b.N is timed with.
func reportCPU(b *testing.B, bytes int, from time.Duration) {
	cpu := cpuTime() - from
	if cpu <= 0 || b.N == 0 {
		return
	}
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(bytes)*float64(b.N)/1e6/cpu.Seconds(), "MB/cpu-s")
}

// BenchmarkDecodeGzip reads the compressed file into a trace.Trace, the
// common case.
func BenchmarkDecodeGzip(b *testing.B) {
	compressed, plain := loadBench(b)
	b.SetBytes(int64(len(plain)))
	start := cpuTime()
	for b.Loop() {
		if err := Decode(bytes.NewReader(compressed), "bench", 0, trace.New(), trace.ReadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, len(plain), start)
}

// BenchmarkDecodePlain reads the same trace already decompressed.
func BenchmarkDecodePlain(b *testing.B) {
	_, plain := loadBench(b)
	b.SetBytes(int64(len(plain)))
	start := cpuTime()
	for b.Loop() {
		if err := Decode(bytes.NewReader(plain), "bench", 0, trace.New(), trace.ReadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, len(plain), start)
}

// BenchmarkDecodeArgs reads it into a trace that keeps every event's
// arguments.
func BenchmarkDecodeArgs(b *testing.B) {
	_, plain := loadBench(b)
	b.SetBytes(int64(len(plain)))
	start := cpuTime()
	for b.Loop() {
		tr := trace.New()
		tr.KeepArgs = true
		if err := Decode(bytes.NewReader(plain), "bench", 0, tr, trace.ReadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, len(plain), start)
}

// BenchmarkGunzip is the decompression alone, a floor for DecodeGzip.
func BenchmarkGunzip(b *testing.B) {
	compressed, plain := loadBench(b)
	b.SetBytes(int64(len(plain)))
	for b.Loop() {
		zr, _ := gzip.NewReader(bytes.NewReader(compressed))
		if _, err := io.Copy(io.Discard, zr); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJSONTokens walks the same text with encoding/json's streaming
// Decoder.Token, without doing anything with the tokens: the alternative
// to the hand-written scanner, for comparison.
func BenchmarkJSONTokens(b *testing.B) {
	_, plain := loadBench(b)
	b.SetBytes(int64(len(plain)))
	for b.Loop() {
		dec := json.NewDecoder(bytes.NewReader(plain))
		dec.UseNumber()
		for {
			if _, err := dec.Token(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkNestThread nests one thread of a million slices, with a flow
// point bound to its enclosing slice every 20 slices: the reader's
// nesting alone.
func BenchmarkNestThread(b *testing.B) {
	src := readertest.CallStacks(1<<20, 1)
	base := make([]slice, len(src))
	var basePoints []flowPoint
	for i, s := range src {
		base[i] = slice{start: s.Start, end: s.End, seq: int32(i)}
		if i%20 == 0 {
			basePoints = append(basePoints, flowPoint{ts: s.Start + (s.End-s.Start)/2, seq: int32(i), enclosing: true})
		}
	}
	slices.SortFunc(basePoints, func(a, b flowPoint) int { return cmp.Compare(a.ts, b.ts) })
	sl, points := chunksOf(base), chunksOf(basePoints)
	order := identity(len(basePoints))
	var t nesting.Tracker
	for b.Loop() {
		for i := range base {
			*sl.at(i) = base[i]
		}
		for i := range basePoints {
			*points.at(i) = basePoints[i]
		}
		if _, ok := nestThread(&t, sl, points, order); !ok {
			b.Fatal("too many lanes")
		}
	}
}

// BenchmarkDecodeFile reads the plain JSON file named by
// MACROSCOPE_BENCH_JSON (bench/compare.py's synthetic Kineto traces, for
// instance), on as many cores as -cpu gives.
func BenchmarkDecodeFile(b *testing.B) {
	path := os.Getenv("MACROSCOPE_BENCH_JSON")
	if path == "" {
		b.Skip("MACROSCOPE_BENCH_JSON names no file")
	}
	plain, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(plain)))
	start := cpuTime()
	for b.Loop() {
		if err := Decode(bytes.NewReader(plain), path, 0, trace.New(), trace.ReadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, len(plain), start)
}
