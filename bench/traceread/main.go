// Command traceread reads a trace with one of Macroscope's readers, once,
// into one of several sinks, and prints what it read and how long it took.
// bench/paje_vs_pjdump.py runs it against pj_dump on the same Pajé trace,
// bench/table.py against each format's peer, each in its own process so
// that peak memory is measured per run.
//
//	traceread -sink count trace    stream into a sink that only counts
//	traceread -sink trace trace    read the whole trace into memory
//	traceread -sink micro trace    in memory, then the microscopic model
//	traceread -sink stream trace   the microscopic model while reading
//	                               (micro.ReadFile: nothing kept but the model)
//
// -format names the reader (a name of the registry, core/formats: otf2,
// chrome, nsys...; default paje); "" detects it from the file.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// result is what traceread prints, as one JSON object.
type result struct {
	Sink       string  `json:"sink"`
	Format     string  `json:"format"`
	Seconds    float64 `json:"seconds"` // reading (and modelling), process start-up excluded
	Bytes      int64   `json:"bytes"`
	States     int     `json:"states"`
	Variables  int     `json:"variables,omitempty"`
	Links      int     `json:"links,omitempty"`
	Events     int     `json:"events,omitempty"`
	Containers int     `json:"containers"`
	Leaves     int     `json:"leaves,omitempty"`
	Passes     int     `json:"passes,omitempty"` // reads of the file (stream)
	MaxRSSKB   int64   `json:"max_rss_kb"`
	CPUSeconds float64 `json:"cpu_seconds"` // user + system time of the process
}

func main() {
	sink := flag.String("sink", "count", "count, trace, micro or stream")
	format := flag.String("format", "paje", "the reader, a format name of the registry (\"\": detected)")
	slices := flag.Int("slices", 100, "time slices of the microscopic model")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile (go tool pprof) to this file")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: traceread [-format name] [-sink count|trace|micro|stream] [-slices n] trace")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	path := flag.Arg(0)
	st, err := os.Stat(path)
	if err != nil {
		fail(err)
	}
	r := result{Sink: *sink, Format: *format, Bytes: st.Size()}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fail(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fail(err)
		}
		defer pprof.StopCPUProfile()
	}
	began := time.Now()
	switch *sink {
	case "count":
		var c trace.Counter
		if err := formats.Read(path, *format, &c, trace.ReadOptions{}); err != nil {
			fail(err)
		}
		r.States, r.Containers = c.States, c.Containers
		r.Variables, r.Links, r.Events = c.Variables, c.Links, c.Events
	case "trace", "micro":
		t := trace.New(path)
		if err := formats.Read(path, *format, t, trace.ReadOptions{}); err != nil {
			fail(err)
		}
		r.States, r.Containers = t.States.Len(), len(t.Containers)-1
		if *sink == "micro" {
			m, err := micro.Build(t, micro.Options{Slices: *slices, Depth: micro.Innermost})
			if err != nil {
				fail(err)
			}
			r.Leaves = m.NumLeaves()
		}
	case "stream":
		src, _, err := formats.Open(path, *format, nil)
		if err != nil {
			fail(err)
		}
		m, sum, err := micro.FromSource(src, micro.Options{Slices: *slices, Depth: micro.Innermost}, trace.ReadOptions{})
		if err != nil {
			fail(err)
		}
		r.States, r.Containers, r.Leaves, r.Passes = int(sum.States), int(sum.Containers), m.NumLeaves(), sum.Passes
	default:
		flag.Usage()
		os.Exit(2)
	}
	r.Seconds = time.Since(began).Seconds()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
		r.MaxRSSKB = ru.Maxrss
		r.CPUSeconds = time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
	}
	json.NewEncoder(os.Stdout).Encode(r)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "traceread:", err)
	os.Exit(1)
}
