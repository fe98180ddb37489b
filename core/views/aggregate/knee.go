package aggregate

import (
	"container/heap"
	"math"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// The recommended level without the sweep.
//
// An overview needs one level, the one RuleKnee recommends, not the
// hundreds a sweep of a large model lists (734 for 1,000 resources x 100
// slices, a minute). Knee finds it with a branch and bound over the same
// search: the levels between two known ones a and b, found at a.P < b.P,
// have gains in [G_a, G_b] and losses in [L_a, L_b] (both grow with p:
// adding the optimality of each at the other's p gives it). Their
// distance to the ideal (G/G0 - 1)^2 + (L/L0)^2 is therefore at least
// (G_b/G0 - 1)^2 + (L_a/L0)^2 (gains are at most G0, the coarsest
// partition's, but for rounding; kneeBound does not count on it): a
// bracket whose bound exceeds the best distance found is never searched.
// The brackets are taken smallest bound first, and split exactly as the
// sweep splits them (bracketStep), so the levels found are the sweep's, and
// the two brackets around the best one are always searched (their bound is
// at most its distance): its range of p is the sweep's too.

// kneeBracket is a range of p between two known levels, to search.
type kneeBracket struct {
	a, b  *Partition
	bound float64
}

type kneeQueue []kneeBracket

func (q kneeQueue) Len() int { return len(q) }
func (q kneeQueue) Less(i, j int) bool {
	if q[i].bound != q[j].bound {
		return q[i].bound < q[j].bound
	}
	return q[i].a.P < q[j].a.P
}
func (q kneeQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *kneeQueue) Push(x any)   { *q = append(*q, x.(kneeBracket)) }
func (q *kneeQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

// kneeMargin keeps the bound from pruning a bracket that rounding alone
// would make look worse than the best level.
const kneeMargin = 1e-9

// Knee returns the level Recommend(levels, RuleKnee, g0, l0) picks among
// the levels SignificantCompact(s, resolution) lists (pass 1, 1 for
// normalised measures), bit for bit: its range of p and its partition's
// measures (its parts are dropped, as SignificantCompact drops them), with
// a handful of solves where the sweep needs one per level. ctl follows and
// stops it as it does the sweeps (nil for neither); its progress counts
// the ranges of p searched or ruled out.
func Knee(s Solver, resolution, g0, l0 float64, ctl *Control) (Level, error) {
	if !(resolution >= 0 && resolution < 1) {
		return Level{}, errs.Argument("threshold", "must be in [0, 1), got %v", resolution)
	}
	w := newSweeper(s)
	w.compact = true
	if ctl != nil {
		w.track = &tracker{ctl: ctl}
	}
	lo, hi, err := w.solveEnds()
	if err != nil {
		return Level{}, err
	}
	defer w.release(lo)
	defer w.release(hi)
	dist := func(p *Partition) float64 {
		g, l := p.Gain/g0, p.Loss/l0
		if d := (g-1)*(g-1) + l*l; d == d {
			return d
		}
		return math.Inf(1) // Recommend never picks a NaN
	}

	// The candidates: the partitions the sweep lists as levels, in the
	// order of p (order), with the ends of their ranges as the search
	// learns them. The first level is lo, unless lo and hi are the same
	// partition (hi alone then); the finest partition comes before it or
	// takes its place (withFinest).
	type candidate struct {
		level Level
		order float64
		d     float64
	}
	cands := map[*Partition]*candidate{}
	var best *candidate
	consider := func(c *candidate) {
		if best == nil || c.d < best.d || c.d == best.d && c.order < best.order {
			best = c
		}
	}
	add := func(p *Partition, order float64) *candidate {
		c := &candidate{level: Level{PLow: math.NaN(), PHigh: math.NaN(), Partition: p}, order: order, d: dist(p)}
		cands[p] = c
		consider(c)
		return c
	}
	first, last := lo, hi
	if samePartition(lo, hi) {
		first = hi
	}
	last = hi
	add(last, 1).level.PHigh = 1
	fc := cands[first]
	if first != last {
		fc = add(first, 0)
	}
	fc.level.PLow = 0
	if f := withFinest(w.s, []Level{{Partition: first}}, true); f[0].Partition != first {
		if len(f) == 1 { // the finest partition stands for the first level
			fc.level.Partition = f[0].Partition
			fc.d = dist(f[0].Partition)
			best = nil
			for _, c := range cands {
				consider(c)
			}
		} else { // a level of its own, at p = 0 only, before the others
			consider(&candidate{level: f[0], order: -1, d: dist(f[0].Partition)})
		}
	}

	refs := map[*Partition]int{}
	drop := func(p *Partition) {
		if refs[p]--; refs[p] == 0 && p != lo && p != hi {
			w.release(p)
		}
	}
	q := &kneeQueue{}
	push := func(a, b *Partition) {
		refs[a]++
		refs[b]++
		heap.Push(q, kneeBracket{a: a, b: b, bound: kneeHullBound(a, b, g0, l0)})
	}
	if first != last {
		push(first, last)
	} else {
		w.track.settle(0, 1)
	}
	for q.Len() > 0 {
		br := heap.Pop(q).(kneeBracket)
		if br.bound > best.d+kneeMargin {
			w.track.settle(br.a.P, br.b.P)
			drop(br.a)
			drop(br.b)
			continue
		}
		level, c, err := bracketStep(w, br.a, br.b, resolution)
		if err != nil {
			drop(br.a)
			drop(br.b)
			for _, b := range *q {
				drop(b.a)
				drop(b.b)
			}
			return Level{}, err
		}
		if c != nil {
			add(c, c.P)
			push(br.a, c)
			push(c, br.b)
		} else if level != nil { // a gives way to b there
			cands[br.a].level.PHigh = level.PHigh
			cands[br.b].level.PLow = level.PHigh
		}
		drop(br.a)
		drop(br.b)
	}
	return best.level, nil
}

// kneeBound is the least distance to the ideal, (g - 1)^2 + l^2, of a
// level whose gain g lies in [ga, gb] and loss is at least la >= 0.
func kneeBound(ga, gb, la float64) float64 {
	g := 0.0 // 1 is in [ga, gb]
	if gb < 1 {
		g = gb - 1
	} else if ga > 1 {
		g = ga - 1
	}
	return g*g + la*la
}

// The bound of a bracket, tightened.
//
// kneeBound knows only that a level c between a and b has its gain in
// [G_a, G_b] and its loss in [L_a, L_b]: a box in the (loss, gain) plane,
// whose corner (L_a, G_b) is nearest the ideal (0, G0). But c is no better
// than a at a.P, where the solve found a, nor than b at b.P:
//
//	a.P*G_c - (1-a.P)*L_c <= a.P*G_a - (1-a.P)*L_a, and the same for b,
//
// two half-planes whose edges pass through a and b, with slopes the lines
// of the levels' envelope take there. Together they cut that corner off
// the box (the levels between a and b are the vertices of the upper hull
// of the partitions' (loss, gain) points between a and b, which lies
// under both edges). The least distance to the ideal over what is left, a
// convex polygon, is at least kneeBound's, and it is still a bound on
// every level of the bracket: the level Knee picks, and its range of p,
// are the same. The comparisons above hold for the solves' values, which
// are sums in the dynamic program's order, while the measures of a
// partition are sums in the order of its parts: the half-planes are moved
// out by kneeSlack of the measures' scale, far more than the two orders
// can differ by, and the bound falls back to kneeBound if the polygon
// vanishes or anything is not a number.

// kneeSlack moves the half-planes out, relative to the measures' scale.
const kneeSlack = 1e-9

// kneePoint is a point of the (loss, gain) plane, in the measures Knee
// compares (divided by l0 and g0).
type kneePoint struct{ l, g float64 }

// kneeHullBound is the least distance to the ideal, (g - 1)^2 + l^2 in
// the measures divided by g0 and l0, of a level between a and b (a.P <
// b.P): over the box of kneeBound cut by the optimality of a and b at
// their p.
func kneeHullBound(a, b *Partition, g0, l0 float64) float64 {
	ga, gb, la, lb := a.Gain/g0, b.Gain/g0, a.Loss/l0, b.Loss/l0
	box := kneeBound(ga, gb, la)
	if !(la <= lb && ga <= gb) {
		return box
	}
	poly := []kneePoint{{la, ga}, {lb, ga}, {lb, gb}, {la, gb}} // counterclockwise
	scale := math.Abs(a.Gain) + math.Abs(a.Loss) + math.Abs(b.Gain) + math.Abs(b.Loss)
	for _, x := range []*Partition{a, b} {
		rhs := x.P*x.Gain - (1-x.P)*x.Loss + kneeSlack*scale
		poly = clipHalfPlane(poly, x.P*g0, (1-x.P)*l0, rhs)
	}
	d := distanceToPolygon(poly, kneePoint{0, 1})
	if !(d >= box) { // empty, NaN, or below the box's by rounding
		return box
	}
	return d
}

// clipHalfPlane returns the part of the convex polygon poly (vertices in
// order) where alpha*g - beta*l <= rhs (Sutherland and Hodgman's step).
func clipHalfPlane(poly []kneePoint, alpha, beta, rhs float64) []kneePoint {
	out := make([]kneePoint, 0, len(poly)+1)
	for i, p := range poly {
		q := poly[(i+1)%len(poly)]
		fp, fq := alpha*p.g-beta*p.l-rhs, alpha*q.g-beta*q.l-rhs
		if fp <= 0 {
			out = append(out, p)
		}
		if fp < 0 && fq > 0 || fp > 0 && fq < 0 {
			t := fp / (fp - fq)
			out = append(out, kneePoint{p.l + t*(q.l-p.l), p.g + t*(q.g-p.g)})
		}
	}
	return out
}

// distanceToPolygon is the least squared distance from x to the convex
// polygon poly (vertices counterclockwise): 0 inside, +Inf if poly is
// empty.
func distanceToPolygon(poly []kneePoint, x kneePoint) float64 {
	if len(poly) == 0 {
		return math.Inf(1)
	}
	inside := true
	d := math.Inf(1)
	for i, p := range poly {
		q := poly[(i+1)%len(poly)]
		el, eg := q.l-p.l, q.g-p.g
		if el*(x.g-p.g)-eg*(x.l-p.l) < 0 {
			inside = false
		}
		t := 0.0
		if n := el*el + eg*eg; n > 0 {
			t = min(1, max(0, (el*(x.l-p.l)+eg*(x.g-p.g))/n))
		}
		dl, dg := p.l+t*el-x.l, p.g+t*eg-x.g
		d = min(d, dl*dl+dg*dg)
	}
	if inside && len(poly) >= 3 {
		return 0
	}
	return d
}
