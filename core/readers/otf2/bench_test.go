package otf2

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// archiveBytes is the size of an archive's files.
func archiveBytes(b *testing.B, anchor string) int64 {
	var total int64
	err := filepath.Walk(filepath.Dir(anchor), func(_ string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			total += info.Size()
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return total
}

// BenchmarkRead reads the largest archive of the corpus (an MI300A HIP run
// with 32 locations and 72,584 metric samples) into a counting sink.
func BenchmarkRead(b *testing.B) {
	anchor := archivePath(b, "fastotf2/sample-traces/simple-mi300-example-run")
	b.SetBytes(archiveBytes(b, anchor))
	var c trace.Counter
	for b.Loop() {
		c = trace.Counter{}
		if err := Read(anchor, &c, trace.ReadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(c.States+c.Variables+c.Links+c.Events)*float64(b.N)/b.Elapsed().Seconds(), "entities/s")
}

// BenchmarkReadTrace reads the same archive into an in-memory trace.
func BenchmarkReadTrace(b *testing.B) {
	anchor := archivePath(b, "fastotf2/sample-traces/simple-mi300-example-run")
	b.SetBytes(archiveBytes(b, anchor))
	for b.Loop() {
		if _, err := readFile(anchor); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadMPI reads the 64-rank MPI stencil archive (states, links
// and collectives).
func BenchmarkReadMPI(b *testing.B) {
	anchor := archivePath(b, "tracer-stencil4d/stencil4d-otf/traces-64")
	b.SetBytes(archiveBytes(b, anchor))
	for b.Loop() {
		if err := Read(anchor, &trace.Counter{}, trace.ReadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
