package aggregate_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"

	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
)

// jacobiInput is the microscopic model of the bundled trace.
func jacobiInput(tb testing.TB, slices int) aggregate.Input {
	path := filepath.Join("..", "..", "..", "testdata", "jacobi32.trace")
	if _, err := os.Stat(path); err != nil {
		tb.Skipf("bundled trace not available: %v", err)
	}
	tr, err := formats.ReadFile(path, "paje")
	if err != nil {
		tb.Fatal(err)
	}
	m, err := micro.Build(tr, micro.Options{Slices: slices, Depth: micro.Innermost})
	if err != nil {
		tb.Fatal(err)
	}
	return aggregate.Input{Tree: m.Tree, Slices: m.Slices, States: len(m.States), Values: m.Values, Cells: m.Cells}
}

// BenchmarkSignificantJacobi sweeps every distinct optimal partition of
// the bundled trace at 100 slices (normalised measures), keeping the
// levels' parts or only their measures (what the Python API keeps).
func BenchmarkSignificantJacobi(b *testing.B) {
	in := jacobiInput(b, 100)
	for _, compact := range []bool{false, true} {
		name := "parts"
		if compact {
			name = "compact"
		}
		b.Run(name, func(b *testing.B) {
			st, err := aggregate.NewSpatiotemporal(in, aggregate.Options{Normalize: true})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				sweep := aggregate.SignificantExact
				if compact {
					sweep = aggregate.SignificantCompact
				}
				levels, err := sweep(st, 0)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(len(levels)), "partitions")
			}
		})
	}
}
