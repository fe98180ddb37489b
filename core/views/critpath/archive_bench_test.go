package critpath

import (
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// BenchmarkArchiveDelayCosts times the delay costs of the critical path of
// the trace CRITPATH_ARCHIVE names (bench/otf2_synth.py's archives), the
// trace read and the path found outside the timing (once for each of the
// testing package's rounds: twice with -benchtime Nx). It reports the
// process's CPU time per computation (user+sys), steadier than the wall
// clock on a loaded machine.
func BenchmarkArchiveDelayCosts(b *testing.B) {
	path := os.Getenv("CRITPATH_ARCHIVE")
	if path == "" {
		b.Skip("CRITPATH_ARCHIVE names no trace")
	}
	a := New(Options{})
	if err := formats.Read(path, "", a, trace.ReadOptions{}); err != nil {
		b.Fatal(err)
	}
	r, err := a.Result()
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	b.ResetTimer()
	start := cpuTime()
	for range b.N {
		if d, err := delayCosts(r, r.acts, r.callName, r.stateNames, nil); err != nil || len(d.Costs) == 0 {
			b.Fatal("no delay costs")
		}
	}
	b.ReportMetric((cpuTime()-start).Seconds()/float64(b.N), "cpu-s/op")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
