package treemap

import (
	"math/rand/v2"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/gen/synthmodel"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
)

// BenchmarkSquarify1M: one flat layout of 1,000,000 random values.
func BenchmarkSquarify1M(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	values := make([]float64, 1_000_000)
	for i := range values {
		values[i] = rng.ExpFloat64()
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := Squarify(values, Rect{W: 4, H: 3}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNested1M: the hierarchy of Lamarche-Perrin et al.'s scenario
// (10 sites, 100 super-clusters, 1,000 clusters, 10,000 machines,
// 1,000,000 processes: 1,111,111 nodes), every process a leaf of random
// value, with padding.
func BenchmarkNested1M(b *testing.B) {
	fanout := []int{10, 10, 10, 10, 100}
	children := [][]int32{nil}
	level := []int32{0}
	for _, f := range fanout {
		var next []int32
		for _, v := range level {
			for range f {
				c := int32(len(children))
				children = append(children, nil)
				children[v] = append(children[v], c)
				next = append(next, c)
			}
		}
		level = next
	}
	rng := rand.New(rand.NewPCG(2, 2))
	values := make([]float64, len(children))
	for _, v := range level {
		values[v] = 0.5 + rng.Float64()
	}
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := Nested(children, values, 0, Rect{W: 720, H: 540}, NestedOptions{Padding: 1, Header: 8}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOfPartitionMillion: the treemap of two partitions of the
// 1,000,000-process scenario: the cut that details exactly its
// heterogeneity (190 aggregates), and every process apart (1,000,000).
func BenchmarkOfPartitionMillion(b *testing.B) {
	sc := synthmodel.Million()
	m, cut := detailedCut(b, sc)
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
				if _, err := OfPartition(m, c.part, Options{Width: 720, Height: 540, Padding: 1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
