package aggregate

import (
	"sync"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// Temporal finds the best cuts of time shared by every resource (lpaggreg's
// OLP): resources are never merged, and each time interval of the
// partition is one aggregate per resource. The quality of an interval is
// the sum, over resources, of the resource's own gain and loss over it, so
// the optimum is a one-dimensional dynamic program over prefixes of time:
//
//	best(j) = max over i <= j of best(i-1) + q(i, j)       best(-1) = 0
//
// Ties: values first, then the larger gain, then the smaller loss; exact
// ties go to the later cut (the shorter last interval), as in lpaggreg.
// Resources without any data contribute nothing with the entropy gain;
// they are kept (Ocelotl drops them), so that parts cover every cell.
//
// A Temporal is safe for concurrent use.
type Temporal struct {
	in  Input
	opt Options
	u   units
	q   []line // quality of every interval (triangular index), engine units
}

// NewTemporal prepares the temporal aggregation of in: the qualities of
// every interval, summed over resources, in O(resources T^2 states).
func NewTemporal(in Input, opt Options) (*Temporal, error) {
	opt, err := prepare(KindTemporal, in, opt)
	if err == nil && opt.Entities != EntitiesCells {
		err = errs.Argument("entities", "only the spatial kind measures resources summed over the window")
	}
	if err != nil {
		return nil, err
	}
	T := in.Slices
	tri := T * (T + 1) / 2
	u := units{gain: opt.Gain, gain0: 1, loss0: 1}
	// Eight partial sums over fixed sets of leaves, added in a fixed order:
	// the result does not depend on the number of workers.
	const tasks = 8
	leaves := len(in.Tree.Leaves)
	partial := make([][]line, tasks)
	next := make(chan int, tasks)
	for k := 0; k < tasks; k++ {
		next <- k
	}
	close(next)
	var wg sync.WaitGroup
	for w := 0; w < min(opt.Workers, tasks); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			iq := newIntervalScratch(T, in.States)
			logSize := logSizes(make([]float64, T+1), T, 1)
			ent := make([]float64, T)
			var cells []float64
			if !in.isSparse() {
				cells = make([]float64, T*in.States)
			}
			for k := range next {
				sum := make([]line, tri)
				for leaf := k; leaf < leaves; leaf += tasks {
					st := leafStats(in, leaf, ent, cells, &iq.sp)
					raw := intervalQualities(st, T, in.States, logSize, &iq)
					iq.sp.recycle(st)
					for j := 0; j < T; j++ {
						for i := 0; i <= j; i++ {
							x := triIndex(i, j)
							q := u.of(raw[x].g, raw[x].l, j-i+1)
							sum[x].g += q.g
							sum[x].l += q.l
						}
					}
				}
				partial[k] = sum
			}
		}()
	}
	wg.Wait()
	q := partial[0]
	for _, o := range partial[1:] {
		for k := range q {
			q[k].g += o[k].g
			q[k].l += o[k].l
		}
	}
	s := &Temporal{in: in, opt: opt, u: u, q: q}
	if opt.Normalize {
		s.u = u.normalised(q[triIndex(0, T-1)])
		for k := range q {
			q[k] = line{q[k].g / s.u.gain0, q[k].l / s.u.loss0}
		}
	}
	return s, nil
}

// Kind implements Engine.
func (s *Temporal) Kind() Kind { return KindTemporal }

// Solve returns the optimal shared time cuts for p in [0, 1].
func (s *Temporal) Solve(p float64) (*Partition, error) {
	if !(p >= 0 && p <= 1) {
		return nil, errs.Argument("p", "must be in [0, 1], got %v", p)
	}
	if s.opt.finestAt(p) {
		return s.finest(), nil
	}
	return s.solveDP(p)
}

// finest returns every resource over every slice (see TieRule).
func (s *Temporal) finest() *Partition {
	return finestPartition(s, s.in, 0, s.in.Slices-1, false, false, s.opt.Workers)
}

// solveDP returns the optimal time cuts for p with the engine's tie rule
// at every p, 0 included.
func (s *Temporal) solveDP(p float64) (*Partition, error) {
	T := s.in.Slices
	best := make([]quality, T)
	start := make([]int, T) // first slice of the last interval of the best prefix
	for j := 0; j < T; j++ {
		var cur quality
		for i := 0; i <= j; i++ {
			c := s.q[triIndex(i, j)].quality(p)
			if i > 0 {
				b := best[i-1]
				c = quality{b.v + c.v, b.g + c.g, b.l + c.l}
			}
			if i == 0 || !cur.better(c) {
				cur, start[j] = c, i
			}
		}
		best[j] = cur
	}
	var pieces [][2]int32 // last first
	for j := T - 1; j >= 0; j = start[j] - 1 {
		pieces = append(pieces, [2]int32{int32(start[j]), int32(j)})
	}
	part := &Partition{P: p, Parts: make([]Part, 0, len(pieces)*len(s.in.Tree.Leaves))}
	for _, leaf := range s.in.Tree.Leaves {
		for k := len(pieces) - 1; k >= 0; k-- {
			part.Parts = append(part.Parts, Part{Node: leaf, First: pieces[k][0], Last: pieces[k][1]})
		}
	}
	finishPartition(part, s, s.opt.Workers)
	return part, nil
}

// Scale implements Engine: the quality of every resource over the whole
// time range.
func (s *Temporal) Scale() (gain0, loss0 float64) {
	q := s.q[triIndex(0, s.in.Slices-1)]
	return q.g, q.l
}

// PartQuality implements Engine.
func (s *Temporal) PartQuality(n int32, i, j int) (gain, loss float64) {
	g, l := blockQuality(s.in, n, i, j)
	q := s.u.of(g, l, s.in.Tree.NumLeaves(n)*(j-i+1))
	return q.g, q.l
}
