package aggregate

import (
	"math"
	"runtime"
	"sync"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// Solver is an aggregation that can be solved for any p.
type Solver interface {
	Solve(p float64) (*Partition, error)
}

// reuser is a Solver that solves faster between two of its own solutions
// (see sweep.go), with the given number of goroutines, and can leave out
// the parts of its solutions.
type reuser interface {
	solveReusing(p float64, a, b *Partition, workers int, compact bool, ctl *Control) (*Partition, error)
	release(*Partition)
}

// repeatSolver is a Solver that may keep, for the solves to come, what
// each of them would compute again (see partial.go).
type repeatSolver interface {
	solvesAgain()
}

// sweeper solves through a reuser when the solver is one, and lets the
// search explore disjoint ranges of p concurrently: solves between two
// close solutions touch few nodes, too few to keep every core busy.
type sweeper struct {
	s Solver
	// spare holds a token per goroutine that may still be started.
	spare chan struct{}
	// compact drops the parts of every solution (SignificantCompact).
	compact bool
	// track follows the search for its Control (nil for none).
	track *tracker
}

func newSweeper(s Solver) sweeper {
	w := sweeper{s: s}
	if r, ok := s.(repeatSolver); ok {
		r.solvesAgain()
	}
	if _, ok := s.(reuser); ok {
		w.spare = make(chan struct{}, runtime.GOMAXPROCS(0)-1)
	}
	return w
}

func (w sweeper) solve(p float64, a, b *Partition) (part *Partition, err error) {
	if w.track != nil && w.track.ctl.canceled() {
		return nil, ErrCanceled
	}
	defer func() {
		if err == nil {
			w.track.solved()
		}
	}()
	if r, ok := w.s.(reuser); ok {
		workers := 1 // the other cores run other ranges
		if len(w.spare) == 0 {
			workers = runtime.GOMAXPROCS(0)
		}
		var ctl *Control // checked during the solve as well
		if w.track != nil {
			ctl = &Control{Cancel: w.track.ctl.Cancel}
		}
		part, err = r.solveReusing(p, a, b, workers, w.compact, ctl)
	} else if d, ok := w.s.(dpSolver); ok {
		part, err = d.solveDP(p)
	} else {
		part, err = w.s.Solve(p)
	}
	if err == nil && w.compact && part.Parts != nil {
		part.NumParts = len(part.Parts)
		part.Parts = nil
	}
	return part, err
}

// solveEnds solves at p = 0 and p = 1, the two levels every search starts
// from, in one traversal when the solver can share the work (see
// pairSolver); the results are those of two solves.
func (w sweeper) solveEnds() (lo, hi *Partition, err error) {
	ps, ok := w.s.(pairSolver)
	if !ok || !ps.pairs() {
		if lo, err = w.solve(0, nil, nil); err != nil {
			return nil, nil, err
		}
		if hi, err = w.solve(1, nil, nil); err != nil {
			w.release(lo)
			return nil, nil, err
		}
		return lo, hi, nil
	}
	if w.track != nil && w.track.ctl.canceled() {
		return nil, nil, ErrCanceled
	}
	var ctl *Control
	if w.track != nil {
		ctl = &Control{Cancel: w.track.ctl.Cancel}
	}
	if lo, hi, err = ps.solvePair(0, 1, w.compact, ctl); err != nil {
		return nil, nil, err
	}
	w.track.solved()
	w.track.solved()
	for _, x := range []*Partition{lo, hi} {
		if w.compact && x.Parts != nil {
			x.NumParts = len(x.Parts)
			x.Parts = nil
		}
	}
	return lo, hi, nil
}

// both runs left and right, concurrently when a goroutine is spare.
func (w sweeper) both(left, right func() error) error {
	select {
	case w.spare <- struct{}{}:
	default:
		if err := left(); err != nil {
			return err
		}
		return right()
	}
	var wg sync.WaitGroup
	var rerr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer func() { <-w.spare }()
		rerr = right()
	}()
	lerr := left()
	wg.Wait()
	if lerr != nil {
		return lerr
	}
	return rerr
}

func (w sweeper) release(x *Partition) {
	if r, ok := w.s.(reuser); ok {
		r.release(x)
	}
}

// Level is one distinct optimal partition and the range of p over which it
// is optimal.
type Level struct {
	PLow, PHigh float64
	Partition   *Partition
}

// samePartition compares partitions the way Ocelotl does, by their gain
// and loss: two partitions with equal quality are indistinguishable to the
// trade-off. Equal means equal up to rounding: merging identical rows in
// one order or another gives the same quality, computed with different
// round-off.
func samePartition(a, b *Partition) bool {
	return nearlyEqual(a.Gain, b.Gain) && nearlyEqual(a.Loss, b.Loss)
}

func nearlyEqual(x, y float64) bool {
	return math.Abs(x-y) <= 1e-12*math.Max(1, math.Max(math.Abs(x), math.Abs(y)))
}

// SignificantExact returns the distinct optimal partitions, in increasing
// order of p, with the exact p where each stops being optimal.
//
// For a fixed partition, pIC(p) = p*(G+L) - L is linear in p, so the
// optimum over p is the upper envelope of lines. Starting from the
// solutions at p = 0 and p = 1, the solver is asked at the intersection of
// the two lines; a strictly better solution there is a new vertex of the
// envelope (recurse on both sides), otherwise the two partitions meet at
// that p. With resolution 0 it needs 2k-1 solves for k partitions and
// misses none.
//
// A resolution r > 0 stops the search between two solutions found less
// than r apart in p: partitions optimal only within such a range are not
// listed, and the two neighbours are reported to meet where their lines
// cross. Near p = 0 there are often hundreds of partitions that differ by
// a few cells; r = 1e-3 keeps the levels an analyst can tell apart at a
// fraction of the cost.
//
// Solvers that can reuse their solutions (the spatiotemporal engine) keep
// the two solutions bracketing each search and solve in between only what
// can change (see sweep.go), within their Options.SweepBytes.
func SignificantExact(s Solver, resolution float64) ([]Level, error) {
	return significantExact(newSweeper(s), resolution)
}

// SignificantCompact is SignificantExact without the parts of the levels'
// partitions (Parts is nil, NumParts counts them): a sweep of a large model
// finds thousands of partitions of up to a part per cell, too many to keep.
// Solve at a level's p to get its parts.
func SignificantCompact(s Solver, resolution float64) ([]Level, error) {
	return SignificantCompactControl(s, resolution, nil)
}

// SignificantCompactControl is SignificantCompact followed and stopped
// through ctl (nil for neither).
func SignificantCompactControl(s Solver, resolution float64, ctl *Control) ([]Level, error) {
	w := newSweeper(s)
	w.compact = true
	if ctl != nil {
		w.track = &tracker{ctl: ctl}
	}
	return significantExact(w, resolution)
}

func significantExact(w sweeper, resolution float64) ([]Level, error) {
	if !(resolution >= 0 && resolution < 1) {
		return nil, errs.Argument("threshold", "must be in [0, 1), got %v", resolution)
	}
	lo, hi, err := w.solveEnds()
	if err != nil {
		return nil, err
	}
	defer w.release(lo)
	defer w.release(hi)
	levels, err := envelopeBetween(w, lo, hi, resolution)
	if err != nil {
		return nil, err
	}
	levels = append(levels, Level{PHigh: 1, Partition: hi})
	for i := range levels {
		if i > 0 {
			levels[i].PLow = levels[i-1].PHigh
		}
	}
	return withFinest(w.s, dedupe(levels), w.compact), nil
}

// envelopeBetween returns the levels from a up to (not including) b, each
// with the p where it gives way to the next.
func envelopeBetween(s sweeper, a, b *Partition, resolution float64) ([]Level, error) {
	level, c, err := bracketStep(s, a, b, resolution)
	if err != nil || c == nil {
		if level != nil {
			return []Level{*level}, err
		}
		return nil, err
	}
	defer s.release(c)
	var left, right []Level
	err = s.both(func() (err error) {
		left, err = envelopeBetween(s, a, c, resolution)
		return err
	}, func() (err error) {
		right, err = envelopeBetween(s, c, b, resolution)
		return err
	})
	if err != nil {
		return nil, err
	}
	return append(left, right...), nil
}

// bracketStep is one step of the search between two optimal solutions a
// and b, found at a.P <= b.P: either they meet (level is a, optimal up to
// level.PHigh; level is nil when a and b are the same partition), or c,
// the optimum where their lines cross, is a new level between them (the
// caller releases it).
func bracketStep(s sweeper, a, b *Partition, resolution float64) (level *Level, c *Partition, err error) {
	if samePartition(a, b) {
		s.track.settle(a.P, b.P)
		return nil, nil, nil
	}
	sa, sb := a.Gain+a.Loss, b.Gain+b.Loss
	if sb <= sa { // parallel or inverted lines: b dominates from a.P on
		s.track.settle(a.P, b.P)
		return &Level{PHigh: math.Max(a.P, b.P), Partition: a}, nil, nil
	}
	p := (b.Loss - a.Loss) / (sb - sa)
	p = math.Min(math.Max(p, a.P), b.P)
	if b.P-a.P <= resolution || p == a.P || p == b.P {
		// At a.P (or b.P) the solve would find a (or b) again: the lines
		// cross at an end, where a gives way to b.
		s.track.settle(a.P, b.P)
		return &Level{PHigh: p, Partition: a}, nil, nil
	}
	c, err = s.solve(p, a, b)
	if err != nil {
		return nil, nil, err
	}
	lineA := p*sa - a.Loss
	if samePartition(c, a) || samePartition(c, b) || !(c.Value > lineA+tolerance(a, b)) {
		s.release(c)
		s.track.settle(a.P, b.P)
		return &Level{PHigh: p, Partition: a}, nil, nil
	}
	return nil, c, nil
}

// tolerance absorbs rounding when comparing a new solution's value with a
// line evaluated at the same p.
func tolerance(a, b *Partition) float64 {
	scale := math.Max(math.Abs(a.Gain)+math.Abs(a.Loss), math.Abs(b.Gain)+math.Abs(b.Loss))
	return 1e-12 * math.Max(scale, 1e-300)
}

// SignificantDichotomy is Ocelotl's search: bisect [p1, p2] while the
// solutions at both ends differ and p2 - p1 > threshold. Partitions optimal
// only on ranges narrower than threshold may be missed, and the reported
// p ranges are only as precise as threshold.
func SignificantDichotomy(s Solver, threshold float64) ([]Level, error) {
	return SignificantDichotomyControl(s, threshold, nil)
}

// SignificantDichotomyControl is SignificantDichotomy followed and stopped
// through ctl (nil for neither).
func SignificantDichotomyControl(s Solver, threshold float64, ctl *Control) ([]Level, error) {
	if !(threshold > 0 && threshold < 1) {
		return nil, errs.Argument("threshold", "must be in (0, 1), got %v", threshold)
	}
	w := sweeper{s: s}
	if ctl != nil {
		w.track = &tracker{ctl: ctl}
	}
	lo, hi, err := w.solveEnds()
	if err != nil {
		return nil, err
	}
	defer w.release(lo)
	defer w.release(hi)
	sols := []*Partition{lo}
	var walk func(a, b *Partition) error
	walk = func(a, b *Partition) error {
		if samePartition(a, b) || b.P-a.P <= threshold {
			w.track.settle(a.P, b.P)
			return nil
		}
		c, err := w.solve((a.P+b.P)/2, a, b)
		if err != nil {
			return err
		}
		defer w.release(c)
		if err := walk(a, c); err != nil {
			return err
		}
		sols = append(sols, c)
		return walk(c, b)
	}
	if err := walk(lo, hi); err != nil {
		return nil, err
	}
	sols = append(sols, hi)
	var levels []Level
	for i, sol := range sols {
		if i > 0 && samePartition(sol, levels[len(levels)-1].Partition) {
			levels[len(levels)-1].PHigh = sol.P
			continue
		}
		if len(levels) > 0 {
			levels[len(levels)-1].PHigh = sol.P
		}
		levels = append(levels, Level{PLow: sol.P, PHigh: sol.P, Partition: sol})
	}
	levels[len(levels)-1].PHigh = 1
	return withFinest(w.s, levels, false), nil
}

// dedupe merges consecutive levels holding the same partition.
func dedupe(levels []Level) []Level {
	out := levels[:0]
	for _, l := range levels {
		if n := len(out); n > 0 && samePartition(out[n-1].Partition, l.Partition) {
			out[n-1].PHigh = l.PHigh
			continue
		}
		out = append(out, l)
	}
	return out
}
