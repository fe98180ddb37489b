package aggregate

import (
	"errors"
	"math"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// Two resources over two slices, two states: a is (1,0) then (0,1), b is
// (0,1) twice. Over the window a is (1/2,1/2), b (0,1), the root
// (1/2,3/2).
func TestSpatialResourceEntities(t *testing.T) {
	in := twoLeaves([]float64{1, 0, 0, 1}, []float64{0, 1, 0, 1})
	log3 := math.Log2(3)
	for _, c := range []struct {
		measure    GainMeasure
		gain, loss float64
	}{
		// sum V log2 V - sum w log2 w = 3/2 log2 3/2 + 1/2 log2 1/2 -
		// 2 (1/2 log2 1/2) = 3/2 log2 3 - 1;
		// loss: 1/2 log2(2 (1/2) / (1/2)) + 1/2 log2(2 (1/2) / (3/2)) +
		// 1 log2(2 / (3/2)) = 3 - 3/2 log2 3.
		{GainEntropy, 1.5*log3 - 1, 3 - 1.5*log3},
		{GainSize, 1, 3 - 1.5*log3}, // |A| - 1 resources
	} {
		s, err := NewSpatial(in, Options{Gain: c.measure, Entities: EntitiesResources})
		if err != nil {
			t.Fatal(err)
		}
		g, l := s.PartQuality(0, 0, 1)
		if math.Abs(g-c.gain) > 1e-12 || math.Abs(l-c.loss) > 1e-12 {
			t.Errorf("%s: root gain %v loss %v, want %v %v", c.measure, g, l, c.gain, c.loss)
		}
		// A resource alone neither gains nor loses.
		if g, l := s.PartQuality(1, 0, 1); g != 0 || l != 0 {
			t.Errorf("%s: a leaf gains %v, loses %v", c.measure, g, l)
		}
	}
	// Cells: 4 values, 3 saved.
	cells, _ := NewSpatial(in, Options{Gain: GainSize, Entities: EntitiesCells})
	if g, _ := cells.PartQuality(0, 0, 1); g != 3 {
		t.Errorf("cells: size gain %v, want 3", g)
	}
	for _, kind := range []Kind{KindSpatiotemporal, KindTemporal} {
		if _, err := New(kind, in, Options{Entities: EntitiesResources}); !errors.As(err, new(*errs.ArgumentError)) {
			t.Errorf("%s with resources: %v", kind, err)
		}
	}
	if _, err := ParseEntities("processes"); err == nil {
		t.Error("an unknown entities name is accepted")
	}
}

// refine cuts every slice of in into k equal slices with the same
// proportions.
func refine(in Input, k int) Input {
	out := Input{Tree: in.Tree, Slices: in.Slices * k, States: in.States}
	X := in.States
	for leaf := range in.Tree.Leaves {
		for s := 0; s < in.Slices; s++ {
			cell := in.Values[(leaf*in.Slices+s)*X : (leaf*in.Slices+s+1)*X]
			for range k {
				out.Values = append(out.Values, cell...)
			}
		}
	}
	return out
}

// With resources as entities, the spatial levels, raw or normalised, do
// not depend on the number of slices; with cells the normalised ones do.
func TestSpatialLevelsIndependentOfSlices(t *testing.T) {
	in := figure3()
	for _, normalize := range []bool{true, false} {
		spatialLevelsIndependentOfSlices(t, in, normalize)
	}
}

func spatialLevelsIndependentOfSlices(t *testing.T, in Input, normalize bool) {
	levels := func(in Input, e Entities, gain GainMeasure) []Level {
		s, err := NewSpatial(in, Options{Normalize: normalize, Entities: e, Gain: gain})
		if err != nil {
			t.Fatal(err)
		}
		l, err := SignificantExact(s, 0)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	for _, gain := range []GainMeasure{GainEntropy, GainSize} {
		base := levels(in, EntitiesResources, gain)
		fine := levels(refine(in, 3), EntitiesResources, gain)
		if len(base) != len(fine) || len(base) < 3 {
			t.Fatalf("%s: %d levels with 20 slices, %d with 60", gain, len(base), len(fine))
		}
		for i := range base {
			if math.Abs(base[i].PHigh-fine[i].PHigh) > 1e-9 || key(base[i].Partition.Parts) != key(restrictParts(fine[i].Partition.Parts, 3)) {
				t.Errorf("%s level %d: up to p = %v with 20 slices, %v with 60", gain, i, base[i].PHigh, fine[i].PHigh)
			}
		}
		cells := levels(in, EntitiesCells, gain)
		cellsFine := levels(refine(in, 3), EntitiesCells, gain)
		differ := len(cells) != len(cellsFine)
		for i := 0; !differ && i < len(cells); i++ {
			differ = math.Abs(cells[i].PHigh-cellsFine[i].PHigh) > 1e-9
		}
		if normalize && !differ {
			t.Errorf("%s: with cells the levels do not depend on the slices either", gain)
		}
	}
}

// restrictParts maps the parts of a refined model (k slices per slice)
// back to the original slices.
func restrictParts(parts []Part, k int32) []Part {
	out := make([]Part, len(parts))
	for i, p := range parts {
		out[i] = Part{Node: p.Node, First: p.First / k, Last: p.Last / k}
	}
	return out
}
