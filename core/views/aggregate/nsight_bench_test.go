package aggregate_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
)

// nsightModel is the model of the Nsight Systems export of a 2-GPU
// training step in the shared corpus (24 resources x 100 slices x 18,529
// states, 21,640 values that are not zero), as the command line builds
// it.
func nsightModel(tb testing.TB) *micro.Model {
	path := filepath.Join("..", "..", "..", "..", "shared", "traces", "nsys", "mfu_2gpu_before.sqlite")
	if _, err := os.Stat(path); err != nil {
		tb.Skipf("the shared corpus is not here: %v", err)
	}
	src, _, err := formats.Open(path, "", nil)
	if err != nil {
		tb.Fatal(err)
	}
	m, _, err := micro.FromSource(src, micro.Options{Slices: 100, Depth: micro.Innermost}, trace.ReadOptions{Notes: &trace.Notes{}})
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// BenchmarkSignificantNsight finds the significant levels of the Nsight
// model as the command line and significant_p do (normalised measures,
// threshold 1e-3, their measures only), from the model to the levels: the
// engine (the qualities of every block) and the sweep. "sparse" is the
// model as it is built; "dense" the same values in a dense array (the
// engine before sparse models). The target: under 1 s on 2 cores.
func BenchmarkSignificantNsight(b *testing.B) {
	m := nsightModel(b)
	for _, form := range []string{"sparse", "dense"} {
		b.Run(form, func(b *testing.B) {
			f := m.ToSparse()
			if form == "dense" {
				f = m.ToDense()
			}
			in := aggregate.Input{Tree: f.Tree, Slices: f.Slices, States: len(f.States), Values: f.Values, Cells: f.Cells}
			for b.Loop() {
				e, err := aggregate.New(aggregate.KindSpatiotemporal, in, aggregate.Options{Normalize: true})
				if err != nil {
					b.Fatal(err)
				}
				levels, err := aggregate.SignificantCompact(e, 1e-3)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(len(levels)), "levels")
			}
		})
	}
}

// BenchmarkKneeNsight finds the recommended level of the Nsight model
// alone (Knee), what the command line's overview does without -levels.
func BenchmarkKneeNsight(b *testing.B) {
	m := nsightModel(b)
	in := aggregate.Input{Tree: m.Tree, Slices: m.Slices, States: len(m.States), Values: m.Values, Cells: m.Cells}
	for b.Loop() {
		e, err := aggregate.New(aggregate.KindSpatiotemporal, in, aggregate.Options{Normalize: true})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := aggregate.Knee(e, 1e-3, 1, 1, nil); err != nil {
			b.Fatal(err)
		}
	}
}
