package aggregate

import (
	"math"
	"sync"
)

// xlog2x returns x log2 x, with 0 log 0 = 0.
func xlog2x(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return x * log2(x)
}

// line is the gain and loss of a partition of some block. Its pIC is
// p*g - (1-p)*l, a line in p: that is what the significant-p search and
// the reuse of solutions between values of p rely on.
type line struct{ g, l float64 }

func (q line) at(p float64) float64 { return p*q.g - (1-p)*q.l }

// units converts raw measures into an engine's units: the chosen gain
// measure, divided by the normalisation constants (1 when off).
type units struct {
	gain         GainMeasure
	gain0, loss0 float64
}

// of returns the gain and loss of a block of size cells whose entropy
// gain and loss are entGain and loss.
func (u units) of(entGain, loss float64, size int) line {
	g := entGain
	if u.gain == GainSize {
		g = float64(size - 1)
	}
	return line{g / u.gain0, loss / u.loss0}
}

// normalised returns u with the normalisation constants set from the raw
// gain and loss of the coarsest partition (kept at 1 when zero).
func (u units) normalised(coarse line) units {
	if coarse.g > 0 {
		u.gain0 = coarse.g
	}
	if coarse.l > 0 {
		u.loss0 = coarse.l
	}
	return u
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

// intervalQualities calls fn(i, j, gain, loss) with the raw entropy gain
// and loss of every interval [i..j] of the node whose stats are s and
// which has leaves leaves.
//
// Sums run forward from i, never as differences of prefix sums: a single
// cell then has gain and loss exactly 0, and sums of identical cells do
// not suffer cancellation.
func intervalQualities(s nodeStats, slices, states, leaves int, acc []float64, fn func(i, j int, gain, loss float64)) {
	// log2 of the block sizes, by length.
	logSize := make([]float64, slices+1)
	for n := 1; n <= slices; n++ {
		logSize[n] = log2(float64(leaves * n))
	}
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
			gain, loss := gainLossLog(xl, ent, total, logSize[j-i+1])
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
	return gainLossLog(xl, ent, total, log2(float64(size)))
}

// gainLossLog is gainLoss given log2(size).
func gainLossLog(xl, ent, total, logSize float64) (gain, loss float64) {
	scale := total * logSize
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

// blockQuality computes the raw entropy gain and loss of node n over
// slices i..j directly from the cells.
func blockQuality(in Input, n int32, i, j int) (gain, loss float64) {
	t := in.Tree
	var buf [8]float64
	acc := buf[:0]
	if in.States <= len(buf) {
		acc = buf[:in.States]
	} else {
		acc = make([]float64, in.States)
	}
	ent := 0.0
	for leaf := t.LeafLo[n]; leaf < t.LeafHi[n]; leaf++ {
		for sl := i; sl <= j; sl++ {
			row := in.Values[(int(leaf)*in.Slices+sl)*in.States:][:in.States]
			for x, v := range row {
				acc[x] += v
				ent += xlog2x(v)
			}
		}
	}
	total, xl := 0.0, 0.0
	for _, v := range acc {
		total += v
		xl += xlog2x(v)
	}
	return gainLoss(xl, ent, total, t.NumLeaves(n)*(j-i+1))
}

// rootQuality returns the raw entropy gain and loss of aggregating the
// whole model into one block, summing over chunks of leaves in parallel
// (chunks of a fixed size added in a fixed order, so that the result does
// not depend on the number of workers).
func rootQuality(in Input, workers int) (gain, loss float64) {
	X := in.States
	row := in.Slices * X
	leaves := len(in.Values) / row
	const chunk = 4096
	type partial struct {
		sums []float64
		ent  float64
	}
	parts := make([]partial, (leaves+chunk-1)/chunk)
	next := make(chan int, len(parts))
	for c := range parts {
		next <- c
	}
	close(next)
	var wg sync.WaitGroup
	for w := 0; w < min(workers, len(parts)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range next {
				sums := make([]float64, X)
				ent := 0.0
				for i, v := range in.Values[c*chunk*row : min((c+1)*chunk, leaves)*row] {
					sums[i%X] += v
					ent += xlog2x(v)
				}
				parts[c] = partial{sums, ent}
			}
		}()
	}
	wg.Wait()
	sums := make([]float64, X)
	ent := 0.0
	for _, p := range parts {
		for x, v := range p.sums {
			sums[x] += v
		}
		ent += p.ent
	}
	total, xl := 0.0, 0.0
	for _, v := range sums {
		total += v
		xl += xlog2x(v)
	}
	return gainLoss(xl, ent, total, leaves*in.Slices)
}
