package aggregate_test

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/gen/synthmodel"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
)

// peakRSS returns the peak resident memory of the process in bytes (Linux),
// or 0.
func peakRSS() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb * 1024
		}
	}
	return 0
}

// BenchmarkSpatiotemporalMillionx30 solves the spatiotemporal optimum of
// lpaggreg's synthetic model with 1,000,000 leaves (fan-out 10, depth 6) x
// 30 slices x 4 states, from the model to the partition (the qualities
// do not fit the default cache and are computed during the solve).
func BenchmarkSpatiotemporalMillionx30(b *testing.B) {
	m, err := synthmodel.LCG(10, 6, 30)
	if err != nil {
		b.Fatal(err)
	}
	in := synthmodel.Input(m)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e, err := aggregate.NewSpatiotemporal(in, aggregate.Options{Normalize: true})
		if err != nil {
			b.Fatal(err)
		}
		part, err := e.Solve(0.5)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(part.Parts)), "parts")
	}
	b.ReportMetric(peakRSS()/(1<<30), "peakGiB")
}

// BenchmarkSpatialMillion finds the optimal spatial cut of Lamarche-Perrin et al.'s
// one-million-process scenario, from the model to the partition.
func BenchmarkSpatialMillion(b *testing.B) {
	m, err := synthmodel.Million().Model()
	if err != nil {
		b.Fatal(err)
	}
	in := synthmodel.Input(m)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e, err := aggregate.NewSpatial(in, aggregate.Options{})
		if err != nil {
			b.Fatal(err)
		}
		part, err := e.Solve(1e-4)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(part.Parts)), "parts")
	}
}

// BenchmarkSignificantSpatialMillion sweeps every distinct optimal cut of
// the one-million-process scenario.
func BenchmarkSignificantSpatialMillion(b *testing.B) {
	m, err := synthmodel.Million().Model()
	if err != nil {
		b.Fatal(err)
	}
	e, err := aggregate.NewSpatial(synthmodel.Input(m), aggregate.Options{Normalize: true})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		levels, err := aggregate.SignificantExact(e, 0)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(levels)), "partitions")
	}
}
