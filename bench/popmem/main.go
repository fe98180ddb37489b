// Command popmem streams a trace into one analysis in this process and
// prints a SHA-256 of every field of its result, for comparing the
// memory (peak RSS, /usr/bin/time -v) and CPU time of the analyses with
// reading the trace into memory, and their results before and after a
// change:
//
//	popmem count|read|pop|critpath|stragglers FILE [FORMAT]
//
// count streams the trace into a sink that only counts (the reader's own
// memory); read reads the trace into memory (formats.ReadFile); pop streams it into
// the POP accumulator (pop.New, as ms.pop(path) does) and hashes the POP
// data printed with %+v (every field; NaN prints alike); critpath streams
// it into the critical path's accumulator and hashes the path and wait
// states, then the attribution (and, with POPMEM_DELAYS set, the delay
// costs); stragglers hashes the instances and the table by resource. POPMEM_CPUPROFILE names a file for a Go CPU profile of the run.
//
// Hashing a result of millions of rows through fmt takes seconds of its
// own, so popmem also prints, on standard error, the CPU time (user+sys)
// and peak RSS of the process when the trace has been read ("at read")
// and when the result is ready, before the hash ("at result"), and for the critical path the CPU time the delay costs
// took: the analysis's own cost. Both spill beyond POPMEM_SPILL_MEMORY
// bytes of records in memory when it is set (their Options.SpillMemory).
// With POPMEM_PIPE set, the analyses get the trace through a trace.Pipe
// (their sink's work on a goroutine of its own, as ms.critical_path(path)
// reads), and so does count.
package main

import (
	"bufio"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"syscall"
	"time"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/critpath"
	"github.com/macroscope-hpc/macroscope/core/views/pop"
	"github.com/macroscope-hpc/macroscope/core/views/stragglers"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: popmem count|read|pop|critpath|stragglers FILE [FORMAT]")
		os.Exit(2)
	}
	what, path, format := os.Args[1], os.Args[2], ""
	if len(os.Args) > 3 {
		format = os.Args[3]
	}
	if path := os.Getenv("POPMEM_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		check(err)
		check(pprof.StartCPUProfile(f))
		defer pprof.StopCPUProfile()
	}
	var out string
	switch what {
	case "read":
		t, err := formats.ReadFile(path, format)
		check(err)
		out = fmt.Sprintf("%d states", t.States.Len())
	case "count":
		var c trace.Counter
		check(read(path, format, &c))
		out = fmt.Sprintf("%d states, %d links, %d events", c.States, c.Links, c.Events)
	case "pop":
		a := pop.New(pop.Options{SpillMemory: spillMemory()})
		check(read(path, format, a))
		usage("read")
		run, err := a.Result()
		check(err)
		usage("result")
		heapProfile()
		out = fmt.Sprintf("%d calls, %d messages, ideal runtime %d", run.Calls, run.Messages, run.IdealRuntime)
		fmt.Printf("sha256 %x\n", sha256.Sum256([]byte(fmt.Sprintf("%+v", *run))))
	case "critpath":
		a := critpath.New(critpath.Options{SpillMemory: spillMemory()})
		check(read(path, format, a))
		usage("read")
		res, err := a.Result()
		check(err)
		usage("result")
		out = fmt.Sprintf("%d path segments, %d waits", len(res.Segments), len(res.Waits))
		heapProfile()
		// The hash of fmt.Sprintf("%+v %+v", res.Segments, res.Waits),
		// written an element at a time: the string of a million wait
		// states would weigh more than the analysis.
		h := sha256.New()
		hashSlice(h, res.Segments)
		fmt.Fprint(h, " ")
		hashSlice(h, res.Waits)
		fmt.Printf("sha256 %x\n", h.Sum(nil))
		if at := res.Attribution; at != nil {
			h := sha256.New()
			hashSlice(h, at.Pieces)
			fmt.Fprintf(h, " %+v %+v", at.ByState, at.ByResource)
			fmt.Printf("attribution sha256 %x\n", h.Sum(nil))
		}
		if os.Getenv("POPMEM_DELAYS") != "" {
			before := cpuTime()
			d := res.DelayCosts()
			fmt.Fprintf(os.Stderr, "popmem: delay costs took %.2fs CPU\n", (cpuTime() - before).Seconds())
			if d == nil { // a GPU or task path has none
				fmt.Println("no delay costs")
			} else {
				fmt.Printf("delays sha256 %x\n", sha256.Sum256([]byte(fmt.Sprintf("%+v", *d))))
			}
		}
	case "stragglers":
		a, err := stragglers.New(stragglers.Options{})
		check(err)
		check(read(path, format, a))
		usage("read")
		r, err := a.Result()
		check(err)
		usage("result")
		out = fmt.Sprintf("%d instances, %d resources", len(r.Instances), len(r.Resources))
		h := sha256.New()
		hashSlice(h, r.Instances)
		fmt.Fprintf(h, " %+v", r.ByResource())
		fmt.Printf("sha256 %x\n", h.Sum(nil))
	default:
		fmt.Fprintln(os.Stderr, "popmem: unknown analysis", what)
		os.Exit(2)
	}
	fmt.Println(out)
}

// read streams the trace at path into sink, through a trace.Pipe when
// POPMEM_PIPE is set.
func read(path, format string, sink trace.Sink) error {
	if os.Getenv("POPMEM_PIPE") == "" {
		return formats.Read(path, format, sink, trace.ReadOptions{})
	}
	p := trace.NewPipe(sink)
	defer p.Wait()
	return formats.Read(path, format, p, trace.ReadOptions{})
}

// spillMemory returns the spill's share of memory POPMEM_SPILL_MEMORY
// sets, in bytes (0, the default, when unset).
func spillMemory() int64 {
	m := os.Getenv("POPMEM_SPILL_MEMORY")
	if m == "" {
		return 0
	}
	n, err := strconv.ParseInt(m, 10, 64)
	check(err)
	return n
}

// started is when the process began, for the wall times usage prints.
var started = time.Now()

// usage prints, on standard error, the process's CPU time (user+sys),
// the wall time since it began and its peak RSS so far, at the step named.
func usage(at string) {
	var ru syscall.Rusage
	check(syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	fmt.Fprintf(os.Stderr, "popmem: at %s: %.2fs CPU, %.2fs wall, peak RSS %d KB\n", at, cpuTime().Seconds(),
		time.Since(started).Seconds(), ru.Maxrss)
}

// cpuTime returns the process's CPU time so far (user+sys).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	check(syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// heapProfile writes the heap profile POPMEM_MEMPROFILE names, if any,
// while the result is held.
func heapProfile() {
	if path := os.Getenv("POPMEM_MEMPROFILE"); path != "" {
		f, err := os.Create(path)
		check(err)
		runtime.GC()
		check(pprof.WriteHeapProfile(f))
		check(f.Close())
	}
}

// hashSlice writes xs to w as fmt's %+v prints a slice.
func hashSlice[T any](w io.Writer, xs []T) {
	fmt.Fprint(w, "[")
	bw := bufio.NewWriter(w)
	for i := range xs {
		if i > 0 {
			bw.WriteByte(' ')
		}
		fmt.Fprintf(bw, "%+v", xs[i])
	}
	check(bw.Flush())
	fmt.Fprint(w, "]")
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "popmem:", err)
		os.Exit(1)
	}
}
