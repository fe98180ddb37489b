package topology

import (
	"math"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/macroscope-hpc/macroscope/core/formats"

	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/forcelayout"
)

const corpus = "../../../../shared/traces"

func corpusFile(tb testing.TB, rel string) string {
	tb.Helper()
	p := filepath.Join(corpus, rel)
	if _, err := os.Stat(p); err != nil {
		tb.Skip("the shared trace corpus is absent: ", p)
	}
	return p
}

var (
	g5kOnce  sync.Once
	g5kTrace *trace.Trace
	g5kErr   error
)

func g5k(tb testing.TB) *trace.Trace {
	p := corpusFile(tb, "pajeng/traces/g5k.trace")
	g5kOnce.Do(func() { g5kTrace, g5kErr = formats.ReadFile(p, "paje") })
	if g5kErr != nil {
		tb.Fatal(g5kErr)
	}
	return g5kTrace
}

// g5kGraph is the full platform graph of g5k (4,732 nodes) at positions
// reached after a few iterations from random ones.
func g5kGraph(b *testing.B) (forcelayout.Graph, []float64, []float64) {
	tp, err := Build(g5k(b), Options{})
	if err != nil {
		b.Fatal(err)
	}
	v := tp.View()
	g := forcelayout.Graph{N: len(v.Nodes)}
	for _, e := range v.Edges {
		g.Edges = append(g.Edges, [2]int32{e.From, e.To})
	}
	x, y := make([]float64, g.N), make([]float64, g.N)
	for i := range x {
		x[i], y[i] = math.NaN(), math.NaN()
	}
	if _, err := forcelayout.Layout(g, x, y, forcelayout.Params{MaxIterations: 20}); err != nil {
		b.Fatal(err)
	}
	return g, x, y
}

// One iteration of the layout of g5k: forces by Barnes-Hut (theta 0.7) and
// over every pair.
func BenchmarkLayoutG5KBarnesHut(b *testing.B) { benchLayout(b, false) }
func BenchmarkLayoutG5KExact(b *testing.B)     { benchLayout(b, true) }

// The machine may be shared: besides the wall time, the CPU time the
// process spent per iteration (cpu-ms/op) is reported, which other loads
// disturb much less.
func benchLayout(b *testing.B, exact bool) {
	g, x, y := g5kGraph(b)
	p := forcelayout.Params{Exact: exact, MaxIterations: 1, Tolerance: 1e-300}
	cpu0 := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		if _, err := forcelayout.Layout(g, x, y, p); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
}

// cpuTime returns the user and system time of the process.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
