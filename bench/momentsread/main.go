// Command momentsread measures what computing moments of utilization costs
// on top of reading a Pajé trace: it reads the same file, in the same run,
// into a sink that drops everything (reading alone), into the moments
// accumulator with several options, and into memory, and prints the best
// time of each, its ratio to reading alone, the memory the sink keeps
// beyond what reading alone leaves behind, and the time the accumulator
// takes per state when it replays the trace held in memory.
//
//	go run ./bench/momentsread [-mb 120] [-n 3] [-keep file] [trace]
//
// Without a trace it generates a Pajé trace of at least -mb megabytes with
// core/gen/synth: 512 cores in 2 sites x 4 clusters x 8 machines changing
// state millions of times.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/gen/synth"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/moments"
)

// mode is one way of reading the trace.
type mode struct {
	name string
	opt  *moments.Options // the moments computed, if any
	sink func() (trace.Sink, error)
	// done checks the sink once the file is read, and returns what it
	// keeps so that its memory can be measured.
	done func(trace.Sink) (any, error)
}

func keep(s trace.Sink) (any, error) { return s, nil }

func momentsMode(name string, opt moments.Options) mode {
	return mode{name, &opt,
		func() (trace.Sink, error) { return moments.New(opt) },
		func(s trace.Sink) (any, error) { return s.(*moments.Accumulator).Result() }}
}

var modes = []mode{
	{"read alone", nil, func() (trace.Sink, error) { return &trace.Counter{}, nil }, keep},
	momentsMode("moments, every state busy", moments.Options{}),
	momentsMode("moments, all but MPI_Wait", moments.Options{Select: moments.AllBut, Values: []string{"MPI_Wait"}}),
	momentsMode("moments per state", moments.Options{ByState: true}),
	momentsMode("moments of Compute and gaps, per state",
		moments.Options{ByState: true, Gaps: true, Select: moments.Only, Values: []string{"Compute"}}),
	{"read into memory", nil, func() (trace.Sink, error) { return trace.New(""), nil }, keep},
}

func main() {
	mb := flag.Int("mb", 120, "size of the generated trace in megabytes")
	repeat := flag.Int("n", 3, "runs of each mode, interleaved; the best time is kept")
	keep := flag.String("keep", "", "write the generated trace to this file and keep it")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: momentsread [-mb 120] [-n 3] [-keep file] [trace.paje]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if err := run(flag.Args(), *mb, *repeat, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "momentsread:", err)
		os.Exit(1)
	}
}

func run(args []string, mb, repeat int, keep string) error {
	var path string
	switch {
	case len(args) == 1:
		path = args[0]
	case len(args) > 1:
		return fmt.Errorf("one trace at most")
	default:
		path = keep
		if path == "" {
			dir, err := os.MkdirTemp("", "momentsread")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			path = filepath.Join(dir, "bench.paje")
		}
		if err := generate(path, int64(mb)<<20); err != nil {
			return err
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	fmt.Printf("trace %s: %.1f MB, %d CPUs\n", path, float64(st.Size())/1e6, runtime.NumCPU())
	best := make([]time.Duration, len(modes))
	kept := make([]uint64, len(modes))
	for r := range max(repeat, 1) {
		for i, m := range modes {
			d, heap, err := measure(path, m)
			if err != nil {
				return fmt.Errorf("%s: %w", m.name, err)
			}
			if r == 0 || d < best[i] {
				best[i] = d
			}
			kept[i] = heap
		}
	}
	// The accumulator alone: replaying the trace held in memory.
	tr := trace.New(path)
	if err := formats.Read(path, "paje", tr, trace.ReadOptions{}); err != nil {
		return err
	}
	alone := make([]time.Duration, len(modes))
	for range max(repeat, 1) {
		for i, m := range modes {
			if m.opt == nil {
				continue
			}
			start := time.Now()
			if _, err := moments.Compute(tr, *m.opt); err != nil {
				return fmt.Errorf("%s: %w", m.name, err)
			}
			if d := time.Since(start); alone[i] == 0 || d < alone[i] {
				alone[i] = d
			}
		}
	}
	fmt.Printf("%-40s %9s %7s %10s %16s\n", "mode", "best (s)", "ratio", "kept (MB)", "replay (ns/state)")
	base := kept[0]
	for i, m := range modes {
		replay := "-"
		if m.opt != nil {
			replay = fmt.Sprintf("%.1f", float64(alone[i].Nanoseconds())/float64(tr.States.Len()))
		}
		fmt.Printf("%-40s %9.3f %7.3f %10.2f %16s\n", m.name, best[i].Seconds(), best[i].Seconds()/best[0].Seconds(),
			float64(max(kept[i], base)-base)/1e6, replay)
	}
	return nil
}

// measure reads path into a fresh sink of mode m and returns the time and
// the heap the result keeps alive.
func measure(path string, m mode) (time.Duration, uint64, error) {
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	sink, err := m.sink()
	if err != nil {
		return 0, 0, err
	}
	if err := formats.Read(path, "paje", sink, trace.ReadOptions{}); err != nil {
		return 0, 0, err
	}
	res, err := m.done(sink)
	if err != nil {
		return 0, 0, err
	}
	elapsed := time.Since(start)
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(res)
	runtime.KeepAlive(sink)
	heap := uint64(0)
	if after.HeapAlloc > before.HeapAlloc {
		heap = after.HeapAlloc - before.HeapAlloc
	}
	return elapsed, heap, nil
}

// generate writes a synthetic Pajé trace of at least size bytes, sizing
// the number of state changes from a small trial.
func generate(path string, size int64) error {
	cfg := synth.Config{Sites: 2, Clusters: 4, Machines: 8, Cores: 8, Seed: 1, Events: 200_000}
	trial, err := synth.WritePaje(io.Discard, cfg)
	if err != nil {
		return err
	}
	cfg.Events = int64(float64(cfg.Events) * float64(size) / float64(trial.Bytes) * 1.02)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	st, err := synth.WritePaje(w, cfg)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if st.Bytes < size {
		return fmt.Errorf("generated %d bytes, fewer than the %d asked", st.Bytes, size)
	}
	fmt.Printf("generated %s: %d states on %d containers\n", path, st.States, st.Containers)
	return nil
}
