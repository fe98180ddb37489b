package aggregate

import "math"

// xlog2x returns x log2 x, with 0 log 0 = 0.
func xlog2x(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return x * math.Log2(x)
}

// nodeStats holds, for one hierarchy node and every slice t, the sum over
// its leaves of each state's value (v[t*states+x]) and of v log2 v over
// all states (ent[t]). They are all that the gain and loss of the node's
// time intervals depend on, and a parent's are the sums of its children's.
type nodeStats struct {
	v   []float64
	ent []float64
}

func leafStats(in Input, leaf int) nodeStats {
	n := in.Slices * in.States
	s := nodeStats{v: in.Values[leaf*n : (leaf+1)*n : (leaf+1)*n], ent: make([]float64, in.Slices)}
	for t := 0; t < in.Slices; t++ {
		e := 0.0
		for x := 0; x < in.States; x++ {
			e += xlog2x(s.v[t*in.States+x])
		}
		s.ent[t] = e
	}
	return s
}

func (s *nodeStats) add(o nodeStats) {
	for i, x := range o.v {
		s.v[i] += x
	}
	for i, x := range o.ent {
		s.ent[i] += x
	}
}

// intervalQualities calls fn(i, j, gain, loss) for every interval [i..j]
// of the node whose stats are s and which has leaves leaves.
//
// Sums run forward from i, never as differences of prefix sums: a single
// cell then has gain and loss exactly 0, and sums of identical cells do
// not suffer cancellation.
func intervalQualities(s nodeStats, slices, states, leaves int, acc []float64, fn func(i, j int, gain, loss float64)) {
	for i := 0; i < slices; i++ {
		clear(acc)
		ent := 0.0
		for j := i; j < slices; j++ {
			row := s.v[j*states : (j+1)*states]
			total, xl := 0.0, 0.0
			for x, v := range row {
				acc[x] += v
				total += acc[x]
				xl += xlog2x(acc[x])
			}
			ent += s.ent[j]
			gain, loss := gainLoss(xl, ent, total, leaves*(j-i+1))
			fn(i, j, gain, loss)
		}
	}
}

// gainLoss finishes the measures of a block of size cells whose per-state
// sums V_x give xl = sum_x V_x log2 V_x and total = sum_x V_x, and whose
// cells give ent = sum_c v_c log2 v_c:
//
//	gain = xl - ent        loss = total log2(size) - gain
//
// Both are non-negative in exact arithmetic. Results within rounding
// error of zero (relative to the terms subtracted) are zero: a homogeneous
// block loses nothing, and noise must not tell it from one that does.
func gainLoss(xl, ent, total float64, size int) (gain, loss float64) {
	scale := total * math.Log2(float64(size))
	noise := 1e-13 * (math.Abs(xl) + math.Abs(ent) + scale)
	gain = xl - ent
	if gain <= noise {
		gain = 0
	}
	loss = scale - gain
	if loss <= noise {
		loss = 0
	}
	return gain, loss
}
