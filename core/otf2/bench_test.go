package otf2

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// counter is a sink that only counts, to time the reader alone.
type counter struct {
	types, values, containers, states, variables, links, events int
}

func (c *counter) DefineType(trace.Type)              { c.types++ }
func (c *counter) DefineValue(trace.Value)            { c.values++ }
func (c *counter) CreateContainer(trace.Container)    { c.containers++ }
func (c *counter) DestroyContainer(int32, trace.Time) {}
func (c *counter) State(trace.State)                  { c.states++ }
func (c *counter) Variable(trace.Variable)            { c.variables++ }
func (c *counter) Link(trace.Link)                    { c.links++ }
func (c *counter) Event(trace.Event)                  { c.events++ }
func (c *counter) Finish(trace.Time, trace.Time)      {}

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
	var c counter
	for b.Loop() {
		c = counter{}
		if err := Read(anchor, &c, trace.ReadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(c.states+c.variables+c.links+c.events)*float64(b.N)/b.Elapsed().Seconds(), "entities/s")
}

// BenchmarkReadTrace reads the same archive into an in-memory trace.
func BenchmarkReadTrace(b *testing.B) {
	anchor := archivePath(b, "fastotf2/sample-traces/simple-mi300-example-run")
	b.SetBytes(archiveBytes(b, anchor))
	for b.Loop() {
		if _, err := ReadFile(anchor); err != nil {
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
		if err := Read(anchor, &counter{}, trace.ReadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
