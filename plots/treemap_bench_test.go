package plots

import (
	"testing"

	"github.com/macroscope-hpc/macroscope/core/gen/synthmodel"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
)

// BenchmarkTreemapFigureMillion: the PNG of the treemap of the
// 1,000,000-process scenario, for the cut that details its heterogeneity
// (190 aggregates, three zooms) and for every process apart (machines
// drawn whole).
func BenchmarkTreemapFigureMillion(b *testing.B) {
	m, cut := detailedCut(b, synthmodel.Million())
	all := &aggregate.Partition{}
	for _, leaf := range m.Tree.Leaves {
		all.Parts = append(all.Parts, aggregate.Part{Node: leaf})
	}
	for _, c := range []struct {
		name string
		part *aggregate.Partition
	}{{"cut", cut}, {"processes", all}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Treemap(m, c.part, TreemapOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
