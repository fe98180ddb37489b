package paje

import (
	"bytes"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/macroscope-hpc/macroscope/core/gen/synth"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

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
	began := cpuTime()
	for b.Loop() {
		var s trace.Counter
		if err := Decode(bytes.NewReader(in), "bench.trace", 0, &s, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	perCore(b, len(in), began)
	b.ReportMetric(float64(benchEvents)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkReadTrace reads the same trace into memory.
func BenchmarkReadTrace(b *testing.B) {
	in := benchInput()
	b.SetBytes(int64(len(in)))
	began := cpuTime()
	for b.Loop() {
		if err := Decode(bytes.NewReader(in), "bench.trace", 0, trace.New(), Options{}); err != nil {
			b.Fatal(err)
		}
	}
	perCore(b, len(in), began)
	b.ReportMetric(float64(benchEvents)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// synthInput is a machine room of 512 cores (2 sites x 4 clusters x 8
// machines x 8 cores) changing state 10^6 times, as core/gen/synth writes it
// (about 25 MB).
var synthInput = sync.OnceValues(func() ([]byte, synth.Stats) {
	var b bytes.Buffer
	st, err := synth.WritePaje(&b, synth.Config{Sites: 2, Clusters: 4, Machines: 8, Cores: 8, Events: 1_000_000, Seed: 1})
	if err != nil {
		panic(err)
	}
	return b.Bytes(), st
})

// BenchmarkReadSynth streams the synthetic trace into a sink that keeps
// nothing: the reader's own speed. events/s counts the event lines.
func BenchmarkReadSynth(b *testing.B) {
	in, st := synthInput()
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	began := cpuTime()
	for b.Loop() {
		var s trace.Counter
		if err := Decode(bytes.NewReader(in), "synth.trace", 0, &s, Options{}); err != nil {
			b.Fatal(err)
		}
		if int64(s.States) != st.States {
			b.Fatalf("%d states, want %d", s.States, st.States)
		}
	}
	perCore(b, len(in), began)
	b.ReportMetric(float64(st.Events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkReadSynthLineByLine is BenchmarkReadSynth without the pipeline.
func BenchmarkReadSynthLineByLine(b *testing.B) {
	in, st := synthInput()
	b.SetBytes(int64(len(in)))
	began := cpuTime()
	for b.Loop() {
		var s trace.Counter
		d := newDecoder(&s, Options{}, 0)
		d.serial = true
		if err := d.decode(bytes.NewReader(in), "synth.trace"); err != nil {
			b.Fatal(err)
		}
		if err := d.finish(); err != nil {
			b.Fatal(err)
		}
	}
	perCore(b, len(in), began)
	b.ReportMetric(float64(st.Events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkReadSynthTrace reads the synthetic trace into memory.
func BenchmarkReadSynthTrace(b *testing.B) {
	in, st := synthInput()
	b.SetBytes(int64(len(in)))
	began := cpuTime()
	for b.Loop() {
		if err := Decode(bytes.NewReader(in), "synth.trace", 0, trace.New(), Options{}); err != nil {
			b.Fatal(err)
		}
	}
	perCore(b, len(in), began)
	b.ReportMetric(float64(st.Events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// TestGeneratedTraceIsConsistent checks the generator against the reader:
// every SetState and PushState line opens one state that ends.
func TestGeneratedTraceIsConsistent(t *testing.T) {
	in := generate(genConfig{processes: 5, events: 2000, seed: 1})
	var s trace.Counter
	if err := Decode(strings.NewReader(in), "gen.trace", 0, &s, Options{}); err != nil {
		t.Fatal(err)
	}
	opened := 0
	for _, l := range strings.Split(in, "\n") {
		if strings.HasPrefix(l, "4 ") || strings.HasPrefix(l, "5 ") {
			opened++
		}
	}
	if s.States != opened || s.Variables == 0 {
		t.Fatalf("%d states for %d opened, %d variable pieces", s.States, opened, s.Variables)
	}
}

// cpuTime returns the user and system time of the process: on a machine
// shared with other jobs, the speed per core is the bytes over it.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// perCore reports the benchmark's bytes over the CPU time the process
// spent since began (every goroutine, the collector's included): MB/s per
// core, which the load of the machine does not change.
func perCore(b *testing.B, size int, began time.Duration) {
	if cpu := cpuTime() - began; cpu > 0 {
		b.ReportMetric(float64(size)*float64(b.N)/cpu.Seconds()/1e6, "MB/cpu-s")
	}
}

// synthChunks cuts the synthetic trace into the pipeline's chunks and
// tokenizes them with its definitions (the first chunk, which defines
// them, stops at its first line).
func synthChunks(b *testing.B) ([]*chunk, *defTable) {
	in, _ := synthInput()
	d := newDecoder(&trace.Counter{}, Options{}, 0)
	if err := d.decode(bytes.NewReader(in), "synth.trace"); err != nil {
		b.Fatal(err)
	}
	tab := d.tables.Load()
	var chunks []*chunk
	r := bytes.NewReader(in)
	var carry []byte
	for {
		c := &chunk{ready: make(chan struct{}, 1)}
		carry, _ = c.fill(r, carry, defaultChunk, nil)
		c.tab = tab
		c.tokenize()
		chunks = append(chunks, c)
		if c.last {
			break
		}
	}
	if last := chunks[len(chunks)-1]; last.stop != len(last.data) {
		b.Fatalf("the tokenizer stopped at byte %d of %d of the last chunk", last.stop, len(last.data))
	}
	return chunks, tab
}

// BenchmarkTokenize splits the synthetic trace into records, chunk after
// chunk on one goroutine, without the simulation: the tokenizers' share
// of a read, measured alone.
func BenchmarkTokenize(b *testing.B) {
	in, _ := synthInput()
	chunks, _ := synthChunks(b)
	b.SetBytes(int64(len(in)))
	began := cpuTime()
	for b.Loop() {
		for _, c := range chunks {
			c.tokenize()
		}
	}
	perCore(b, len(in), began)
}

// BenchmarkSimulate simulates the records of the tokenized synthetic trace
// into a sink that counts, on one goroutine: the simulation's share of a
// read, measured alone.
func BenchmarkSimulate(b *testing.B) {
	in, st := synthInput()
	chunks, tab := synthChunks(b)
	b.SetBytes(int64(len(in)))
	began := cpuTime()
	for b.Loop() {
		var s trace.Counter
		d := newDecoder(&s, Options{}, 0)
		d.file, d.sim.file = "synth.trace", "synth.trace"
		for i, c := range chunks {
			if i == 1 {
				// The chunks were tokenized with the definitions of
				// another read, the same.
				d.tables.Store(tab)
			}
			if err := d.consume(c); err != nil {
				b.Fatal(err)
			}
		}
		if err := d.finish(); err != nil {
			b.Fatal(err)
		}
		if int64(s.States) != st.States {
			b.Fatalf("%d states, want %d", s.States, st.States)
		}
	}
	perCore(b, len(in), began)
}
