package aggregate

import (
	"errors"
	"math"
	"strconv"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/hier"
	"github.com/macroscope-hpc/macroscope/core/readers/readertest"
)

// fuzzInput makes a small model of data: data[0] sets the slices (1-4),
// data[1] the states (1-3), data[2] the number of nodes (2-9), the next
// bytes each node's parent among the nodes before it, the rest the values
// (byte/16; a model shorter than the bytes reuses them cyclically, a
// byte 0xff is a NaN, to check that invalid values are refused).
func fuzzInput(data []byte) (Input, bool) {
	if len(data) < 4 {
		return Input{}, false
	}
	slices, states, nodes := 1+int(data[0]%4), 1+int(data[1]%3), 2+int(data[2]%8)
	data = data[3:]
	b := hier.NewBuilder("root")
	for i := 1; i < nodes; i++ {
		parent := 0
		if len(data) > 0 {
			parent, data = int(data[0])%i, data[1:]
		}
		b.Add(parent, strconv.Itoa(i))
	}
	tree, _ := b.Build()
	in := Input{Tree: tree, Slices: slices, States: states, Values: make([]float64, len(tree.Leaves)*slices*states)}
	if len(data) == 0 {
		data = []byte{1}
	}
	for i := range in.Values {
		v := data[i%len(data)]
		in.Values[i] = float64(v) / 16
		if v == 0xff {
			in.Values[i] = math.NaN()
		}
	}
	return in, true
}

// FuzzAggregate aggregates small fuzzed models, of each kind, for a fuzzed
// p, and checks the partition against independent computations: its parts
// cover every cell once, each part's gain and loss are those computed
// from the definitions (naiveQuality), the totals add up, and it is at
// least as good as the finest and the coarsest partitions of its kind.
// Invalid models (NaN values) are refused with an ArgumentError.
func FuzzAggregate(f *testing.F) {
	readertest.BoundMinimization(f)
	f.Add([]byte{3, 1, 4, 0, 0, 1, 1, 16, 32, 0, 5, 7, 255 - 1}, uint8(0), uint8(128))
	f.Add([]byte{1, 2, 6, 0, 1, 1, 0, 2, 16, 16, 0, 0, 8, 3}, uint8(1), uint8(40))
	f.Add([]byte{2, 0, 2, 0, 9, 9, 9, 1}, uint8(2), uint8(250))
	f.Add([]byte{0, 0, 3, 0, 0, 255}, uint8(0), uint8(10))
	f.Fuzz(func(t *testing.T, data []byte, kindByte, pByte uint8) {
		if len(data) > 256 {
			return
		}
		in, ok := fuzzInput(data)
		if !ok {
			return
		}
		kind := []Kind{KindSpatiotemporal, KindSpatial, KindTemporal}[kindByte%3]
		p := float64(pByte) / 255
		// naiveQuality computes the entropy gain over cells: the measure
		// of every kind when asked (the spatial kind's default is
		// Lamarche-Perrin et al.'s, checked by its own tests).
		eng, err := New(kind, in, Options{Workers: 1, Gain: GainEntropy, Entities: EntitiesCells})
		invalid := false
		for _, v := range in.Values {
			invalid = invalid || math.IsNaN(v)
		}
		if invalid || err != nil {
			var ae *errs.ArgumentError
			if !invalid || !errors.As(err, &ae) {
				t.Fatalf("%s: invalid input %v, error %v", kind, invalid, err)
			}
			return
		}
		part, err := eng.Solve(p)
		if err != nil {
			t.Fatalf("%s at p=%v: %v", kind, p, err)
		}
		checkPartition(t, in, kind, p, part)
	})
}

func checkPartition(t *testing.T, in Input, kind Kind, p float64, part *Partition) {
	t.Helper()
	tree := in.Tree
	covered := make([]int, len(tree.Leaves)*in.Slices)
	var gain, loss float64
	for _, pt := range part.Parts {
		if pt.Node < 0 || int(pt.Node) >= tree.Len() || pt.First < 0 || pt.First > pt.Last || int(pt.Last) >= in.Slices {
			t.Fatalf("%s: part %+v outside the model", kind, pt)
		}
		for leaf := tree.LeafLo[pt.Node]; leaf < tree.LeafHi[pt.Node]; leaf++ {
			for s := pt.First; s <= pt.Last; s++ {
				covered[int(leaf)*in.Slices+int(s)]++
			}
		}
		g, l := naiveQuality(in, pt, GainEntropy)
		if !fuzzClose(g, pt.Gain) || !fuzzClose(l, pt.Loss) {
			t.Fatalf("%s: part %+v, gain and loss from the definitions %v, %v", kind, pt, g, l)
		}
		gain += pt.Gain
		loss += pt.Loss
	}
	for cell, n := range covered {
		if n != 1 {
			t.Fatalf("%s: cell %d (leaf %d, slice %d) covered %d times", kind, cell, cell/in.Slices, cell%in.Slices, n)
		}
	}
	if part.NumParts != len(part.Parts) || !fuzzClose(gain, part.Gain) || !fuzzClose(loss, part.Loss) ||
		!fuzzClose(part.Value, p*part.Gain-(1-p)*part.Loss) {
		t.Fatalf("%s: %d parts (%d), gain %v (%v), loss %v (%v), value %v", kind, part.NumParts, len(part.Parts),
			part.Gain, gain, part.Loss, loss, part.Value)
	}
	// Two partitions each kind searches, computed from the definitions:
	// the partition must be at least as good as both.
	value := func(parts []Part) float64 {
		v := 0.0
		for _, pt := range parts {
			g, l := naiveQuality(in, pt, GainEntropy)
			v += p*g - (1-p)*l
		}
		return v
	}
	all := int32(in.Slices - 1)
	var rows, cells []Part // each leaf over the whole window; each cell alone
	for _, leaf := range tree.Leaves {
		rows = append(rows, Part{Node: leaf, Last: all})
		for s := range int32(in.Slices) {
			cells = append(cells, Part{Node: leaf, First: s, Last: s})
		}
	}
	whole := []Part{{Node: 0, Last: all}}
	candidates := map[Kind][][]Part{
		KindSpatiotemporal: {whole, cells},
		KindSpatial:        {whole, rows},
		KindTemporal:       {rows, cells},
	}[kind]
	for _, c := range candidates {
		if v := value(c); part.Value < v-fuzzTol(v) {
			t.Fatalf("%s at p=%v: value %v, below %v of partition %+v", kind, p, part.Value, v, c)
		}
	}
}

func fuzzTol(x float64) float64 { return 1e-9 * max(1, math.Abs(x)) }

func fuzzClose(a, b float64) bool { return math.Abs(a-b) <= fuzzTol(max(math.Abs(a), math.Abs(b))) }
