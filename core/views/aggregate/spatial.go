package aggregate

import (
	"sync"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// Spatial finds the best cut of the hierarchy over one time window (seed
// 003, Algorithm 1): every aggregate is a node over the whole window, and
// a node is kept whole when that beats the best of its children.
//
// By default it measures aggregates as Lamarche-Perrin et al. do: each
// resource by its shares of the window (EntitiesResources) and the gain
// as the number of values saved, |A| - 1 (GainSize); with normalised
// measures that is the paper's scale of p, independent of the number of
// slices. With EntitiesCells its aggregates are measured over the cells
// (resource x slice) they cover, as the other kinds' are, so that its
// partitions are spatiotemporal partitions without time cuts and the
// three kinds compare directly.
//
// Ties: children replace the aggregate only when strictly better (value,
// then larger gain, then smaller loss), so an exact tie aggregates, as in
// Triva (PajeNG gave ties to the children).
//
// A Spatial is safe for concurrent use.
type Spatial struct {
	in          Input
	opt         Options
	u           units
	first, last int
	q           []line // gain and loss of each node over the window
}

// NewSpatial prepares the spatial aggregation of in over opt.Window (the
// whole model when nil).
func NewSpatial(in Input, opt Options) (*Spatial, error) {
	opt, err := prepare(KindSpatial, in, opt)
	if err != nil {
		return nil, err
	}
	s := &Spatial{in: in, opt: opt, first: 0, last: in.Slices - 1}
	if w := opt.Window; w != nil {
		if w.First < 0 || w.Last < w.First || w.Last >= in.Slices {
			return nil, errs.Argument("window", "slices %d..%d are not a window of a %d-slice model", w.First, w.Last, in.Slices)
		}
		s.first, s.last = w.First, w.Last
	}
	raw := s.windowQualities()
	s.u = units{gain: opt.Gain, gain0: 1, loss0: 1}
	if opt.Normalize {
		s.u = s.u.normalised(raw[0])
	}
	s.q = raw
	if s.u.gain0 != 1 || s.u.loss0 != 1 {
		for n := range s.q {
			s.q[n] = line{s.q[n].g / s.u.gain0, s.q[n].l / s.u.loss0}
		}
	}
	return s, nil
}

// Kind implements Engine.
func (s *Spatial) Kind() Kind { return KindSpatial }

// windowQualities returns the raw gain (in the chosen measure) and loss
// of every node over the window. Per-state sums and sums of v log2 v add
// up from the leaves, children before parents (preorder ids put every
// child after its parent).
func (s *Spatial) windowQualities() []line {
	if s.in.isSparse() {
		return s.windowQualitiesSparse()
	}
	t, X := s.in.Tree, s.in.States
	nodes := t.Len()
	sums := make([]float64, nodes*X)
	ent := make([]float64, nodes)
	leaves := t.Leaves
	var wg sync.WaitGroup
	chunk := (len(leaves) + s.opt.Workers - 1) / s.opt.Workers
	for lo := 0; lo < len(leaves); lo += chunk {
		hi := min(lo+chunk, len(leaves))
		wg.Add(1)
		go func() {
			defer wg.Done()
			var xlb [256]float64
			for leaf := lo; leaf < hi; leaf++ {
				n := leaves[leaf]
				acc := sums[int(n)*X : int(n+1)*X]
				// The leaf's cells over the window are contiguous: their
				// x log2 x in batches, added in the same order.
				first := (leaf*s.in.Slices + s.first) * X
				cells := s.in.Values[first : first+(s.last-s.first+1)*X]
				addRows(acc, cells)
				if s.opt.Entities == EntitiesResources {
					// One entity per resource: its mean over the window.
					for x := range acc {
						acc[x] /= float64(s.last - s.first + 1)
					}
					ent[n] = xlog2xSum(acc, xlb[:])
					continue
				}
				e := ent[n]
				for len(cells) > 0 {
					batch := xlb[:min(len(cells), len(xlb))]
					xlog2xTo(batch, cells[:len(batch)])
					for _, v := range batch {
						e += v
					}
					cells = cells[len(batch):]
				}
				ent[n] = e
			}
		}()
	}
	wg.Wait()
	for n := nodes - 1; n > 0; n-- {
		p := t.Parent[n]
		for x := 0; x < X; x++ {
			sums[int(p)*X+x] += sums[n*X+x]
		}
		ent[p] += ent[n]
	}
	q := make([]line, nodes)
	width := s.last - s.first + 1
	u := units{gain: s.opt.Gain, gain0: 1, loss0: 1}
	xls := make([]float64, len(sums))
	xlog2xTo(xls, sums)
	for n := range q {
		total, xl := 0.0, 0.0
		for x, v := range sums[n*X : (n+1)*X] {
			total += v
			xl += xls[n*X+x]
		}
		size := t.NumLeaves(int32(n)) * width
		if s.opt.Entities == EntitiesResources {
			size = t.NumLeaves(int32(n))
		}
		g, l := gainLoss(xl, ent[n], total, size)
		q[n] = u.of(g, l, size)
	}
	return q
}

// Solve returns the optimal cut for p in [0, 1].
func (s *Spatial) Solve(p float64) (*Partition, error) {
	if !(p >= 0 && p <= 1) {
		return nil, errs.Argument("p", "must be in [0, 1], got %v", p)
	}
	if s.opt.finestAt(p) {
		return s.finest(), nil
	}
	return s.solveDP(p)
}

// finest returns the finest cut (see TieRule).
func (s *Spatial) finest() *Partition {
	return finestPartition(s, s.in, s.first, s.last, true, true, s.opt.Workers)
}

// solveDP returns the optimal cut for p with the engine's tie rule at
// every p, 0 included.
func (s *Spatial) solveDP(p float64) (*Partition, error) {
	t := s.in.Tree
	nodes := t.Len()
	best := make([]quality, nodes)
	split := make([]bool, nodes)
	for n := nodes - 1; n >= 0; n-- {
		q := s.q[n].quality(p)
		if kids := t.Children[n]; len(kids) > 0 {
			var sum quality
			for _, c := range kids {
				sum.v += best[c].v
				sum.g += best[c].g
				sum.l += best[c].l
			}
			if sum.better(q) {
				q, split[n] = sum, true
			}
		}
		best[n] = q
	}
	// Preorder: a node that is not split is a part, and ids are preorder,
	// so parts come out sorted; a split node's subtree continues right
	// after it.
	part := &Partition{P: p}
	for n := int32(0); n < int32(nodes); {
		if split[n] {
			n++
			continue
		}
		part.Parts = append(part.Parts, Part{Node: n, First: int32(s.first), Last: int32(s.last)})
		n = t.End[n]
	}
	finishPartition(part, s, s.opt.Workers)
	return part, nil
}

// Scale implements Engine: the gain and loss of the root over the window.
func (s *Spatial) Scale() (gain0, loss0 float64) { return s.q[0].g, s.q[0].l }

// PartQuality implements Engine.
func (s *Spatial) PartQuality(n int32, i, j int) (gain, loss float64) {
	if i == s.first && j == s.last {
		return s.q[n].g, s.q[n].l
	}
	g, l := blockQuality(s.in, n, i, j)
	q := s.u.of(g, l, s.in.Tree.NumLeaves(n)*(j-i+1))
	return q.g, q.l
}
