package intervals

import (
	"strconv"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// BenchmarkBuilder builds a trace of a million states on 256 cores of 32
// machines: ns/op is per row.
func BenchmarkBuilder(b *testing.B) {
	const cores = 256
	paths := make([]string, cores)
	for i := range paths {
		paths[i] = "site/m" + strconv.Itoa(i/8) + "/c" + strconv.Itoa(i%8)
	}
	states := []string{"compute", "send", "recv", "wait"}
	rows := 1_000_000
	b.ReportAllocs()
	for b.Loop() {
		bl := NewBuilder(Options{})
		bl.Grow(rows)
		for i := range rows {
			core := i % cores
			t := trace.Time(i/cores) * 1000
			if err := bl.Add(paths[core], "", states[i%4], t, t+900); err != nil {
				b.Fatal(err)
			}
		}
		if err := bl.Finish(trace.New()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows), "ns/row")
}
