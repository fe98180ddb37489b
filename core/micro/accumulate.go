package micro

import (
	"sort"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// accumulator sums, per cell, the time resources spend in each state. It
// works on positions scaled by n (the number of slices): there, slice k is
// [k*w, (k+1)*w) with w the window length, so every boundary is an
// integer and sums are exact.
type accumulator struct {
	start, end trace.Time
	n          int64
	nStates    int
	cells      []int64
}

// add counts [a, b) for leaf and state, clipped to the window.
func (acc *accumulator) add(leaf, state int, a, b trace.Time) {
	if a < acc.start {
		a = acc.start
	}
	if b > acc.end {
		b = acc.end
	}
	if b <= a {
		return
	}
	w := int64(acc.end - acc.start)
	x0 := int64(a-acc.start) * acc.n
	x1 := int64(b-acc.start) * acc.n
	k := x0 / w
	base := leaf * int(acc.n) * acc.nStates
	for x := x0; x < x1; k++ {
		next := (k + 1) * w
		if next > x1 {
			next = x1
		}
		acc.cells[base+int(k)*acc.nStates+state] += next - x
		x = next
	}
}

// proportions divides each cell by the scaled slice length (the window
// length w), once.
func (acc *accumulator) proportions() []float64 {
	w := float64(acc.end - acc.start)
	out := make([]float64, len(acc.cells))
	for i, c := range acc.cells {
		out[i] = float64(c) / w
	}
	return out
}

// forEachExclusive calls add for the exclusive pieces of the states of the
// selected types: the parts of each state not covered by a state nested
// in it on the same container and state type. At every instant, the
// deepest open state is the one counted.
func forEachExclusive(t *trace.Trace, typeSel []bool, add func(container, value int32, a, b trace.Time)) {
	type key struct{ container, typ int32 }
	groups := map[key][]int32{}
	for i, s := range t.States {
		if typeSel[s.Type] {
			k := key{s.Container, s.Type}
			groups[k] = append(groups[k], int32(i))
		}
	}
	type open struct {
		s      trace.State
		cursor trace.Time // start of the part not yet counted
	}
	var stack []open
	for _, idx := range groups {
		sort.Slice(idx, func(i, j int) bool {
			a, b := t.States[idx[i]], t.States[idx[j]]
			if a.Start != b.Start {
				return a.Start < b.Start
			}
			if a.Depth != b.Depth {
				return a.Depth < b.Depth
			}
			return a.End < b.End // a zero-length state closes before its successor opens
		})
		stack = stack[:0]
		// pop closes the top at time stop; its parent resumes there.
		pop := func(stop trace.Time) {
			top := stack[len(stack)-1]
			if stop > top.cursor {
				add(top.s.Container, top.s.Value, top.cursor, stop)
			}
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && stack[len(stack)-1].cursor < stop {
				stack[len(stack)-1].cursor = stop
			}
		}
		for _, i := range idx {
			s := t.States[i]
			// Close what ended, and whatever is not an ancestor of s (an
			// overlapping sibling is cut where s starts).
			for len(stack) > 0 {
				top := stack[len(stack)-1].s
				if top.End <= s.Start || top.Depth >= s.Depth {
					pop(min(top.End, s.Start))
					continue
				}
				break
			}
			if len(stack) > 0 {
				parent := &stack[len(stack)-1]
				if s.Start > parent.cursor {
					add(parent.s.Container, parent.s.Value, parent.cursor, s.Start)
				}
				parent.cursor = s.Start
			}
			stack = append(stack, open{s, s.Start})
		}
		for len(stack) > 0 {
			pop(stack[len(stack)-1].s.End)
		}
	}
}
