package micro

import (
	"math"
	"sort"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// grid cuts the window [start, end] into n equal slices. It works on
// positions scaled by n: there, slice k is [k*w, (k+1)*w) with w the
// window length, so every boundary is an integer and sums of durations are
// exact.
type grid struct {
	start, end trace.Time
	n          int64
	nCat       int // categories per cell
	leaves     int
}

func (g grid) width() int64 { return int64(g.end - g.start) }

func (g grid) cells() int { return g.leaves * int(g.n) * g.nCat }

// cell returns the index of (leaf, slice, category).
func (g grid) cell(leaf, k, cat int) int { return (leaf*int(g.n)+k)*g.nCat + cat }

// spans calls fn for every slice k that [a, b) overlaps, clipped to the
// window, with the overlap in scaled units (n per nanosecond).
func (g grid) spans(a, b trace.Time, fn func(k int, d int64)) {
	if a < g.start {
		a = g.start
	}
	if b > g.end {
		b = g.end
	}
	if b <= a {
		return
	}
	w := g.width()
	x0 := int64(a-g.start) * g.n
	x1 := int64(b-g.start) * g.n
	for x, k := x0, x0/w; x < x1; k++ {
		next := min((k+1)*w, x1)
		fn(int(k), next-x)
		x = next
	}
}

// sliceOf returns the slice holding instant at, or -1 outside the window.
func (g grid) sliceOf(at trace.Time) int {
	if at < g.start || at > g.end {
		return -1
	}
	if at == g.end {
		return int(g.n) - 1
	}
	return int(int64(at-g.start) * g.n / g.width())
}

// buildStates computes the state metrics: the proportion of each slice
// spent in each state, or with average the mean length in seconds of the
// stays that contribute to each cell. It counts a state, and a run of
// cells of the last pass, as an item of look, and stops with its error
// and no values once look says so.
//
// The states of values the options leave out (outRole, by value: see
// Options.leftOutRole) still hide the states they enclose from the
// innermost, and their time goes to out instead of a cell.
func buildStates(t *trace.Trace, g grid, leafOf, slot, categoryOf []int32, typeSel []bool, depth int, average bool, look *trace.Looker,
	outRole []trace.Role, left *leftOuts) ([]float64, error) {
	durations := make([]int64, g.cells())
	var counts []int32
	if average {
		counts = make([]int32, g.cells())
	}
	// A piece of state s lasting [a, b); counted holds the last slice
	// where s was counted as a stay (pieces of one state come in order).
	add := func(s *trace.State, a, b trace.Time, counted *int) {
		if s.Value >= 0 && outRole[s.Value] != trace.RoleNone {
			g.spans(a, b, func(k int, d int64) { left.add(outRole[s.Value], s.Value, k, d) })
			return
		}
		leaf := leafOf[s.Container]
		if leaf < 0 {
			return
		}
		leaf += slot[s.Type]
		cat := int(category(categoryOf, len(t.Values), s.Type, s.Value))
		g.spans(a, b, func(k int, d int64) {
			c := g.cell(int(leaf), k, cat)
			durations[c] += d
			if average && *counted < k {
				counts[c]++
				*counted = k
			}
		})
	}
	if depth == Innermost {
		if err := forEachExclusive(t, typeSel, add, look); err != nil {
			return nil, err
		}
	} else {
		for i := range t.States.Len() {
			if err := look.Stopped(1); err != nil {
				return nil, err
			}
			if s := t.States.At(i); typeSel[s.Type] && s.Depth == int32(depth) {
				counted := -1
				add(&s, s.Start, s.End, &counted)
			}
		}
	}
	out := make([]float64, len(durations))
	if average {
		// durations are in 1/n ns.
		scale := float64(g.n) * 1e9
		err := eachRun(len(durations), look, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				if counts[i] > 0 {
					out[i] = float64(durations[i]) / (scale * float64(counts[i]))
				}
			}
		})
		if err != nil {
			return nil, err
		}
		return out, nil
	}
	// A slice is w scaled units long: one division per cell.
	w := float64(g.width())
	err := eachRun(len(durations), look, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] = float64(durations[i]) / w
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// cellRun is how many cells a pass over the values handles between two
// looks: a look per cell would cost as much as the cell.
const cellRun = 1 << 16

// eachRun calls f on the runs [lo, hi) of at most cellRun of [0, n),
// counting each run's cells as items of look, and stops with its error
// (nil values then) once look says so.
func eachRun(n int, look *trace.Looker, f func(lo, hi int)) error {
	for lo := 0; lo < n; lo += cellRun {
		hi := min(lo+cellRun, n)
		if err := look.Stopped(hi - lo); err != nil {
			return err
		}
		f(lo, hi)
	}
	return nil
}

// buildEvents counts the events of each category per cell, an event an
// item of look.
func buildEvents(t *trace.Trace, g grid, leafOf, categoryOf []int32, typeSel []bool, look *trace.Looker, outRole []trace.Role, left *leftOuts) ([]float64, error) {
	out := make([]float64, g.cells())
	for _, e := range t.Events.All() {
		if err := look.Stopped(1); err != nil {
			return nil, err
		}
		if !typeSel[e.Type] {
			continue
		}
		if e.Value >= 0 && outRole[e.Value] != trace.RoleNone {
			if k := g.sliceOf(e.Time); k >= 0 {
				left.add(outRole[e.Value], e.Value, k, 1)
			}
			continue
		}
		if leafOf[e.Container] < 0 {
			continue
		}
		if k := g.sliceOf(e.Time); k >= 0 {
			out[g.cell(int(leafOf[e.Container]), k, int(category(categoryOf, len(t.Values), e.Type, e.Value)))]++
		}
	}
	return out, nil
}

// buildVariables computes the time average of every variable per cell, a
// variable's value an item of look.
func buildVariables(t *trace.Trace, g grid, leafOf, categoryOf []int32, typeSel []bool, look *trace.Looker) ([]float64, error) {
	out := make([]float64, g.cells())
	for _, v := range t.Variables.All() {
		if err := look.Stopped(1); err != nil {
			return nil, err
		}
		if !typeSel[v.Type] || leafOf[v.Container] < 0 {
			continue
		}
		if math.IsNaN(v.Value) || math.IsInf(v.Value, 0) {
			return nil, errs.Argument("variables", "variable %s of %s is %v at %s s from the trace's start", t.Types[v.Type].Name,
				t.ContainerPath(v.Container, "/"), v.Value, v.Start-t.Start)
		}
		leaf, cat := int(leafOf[v.Container]), int(categoryOf[v.Type])
		g.spans(v.Start, v.End, func(k int, d int64) {
			out[g.cell(leaf, k, cat)] += v.Value * float64(d)
		})
	}
	w := float64(g.width())
	err := eachRun(len(out), look, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] /= w
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// forEachExclusive calls add for the exclusive pieces of the states of the
// selected types: the parts of each state not covered by a state nested
// in it on the same container and state type. At every instant, the
// deepest open state is the one counted.
func forEachExclusive(t *trace.Trace, typeSel []bool, add func(s *trace.State, a, b trace.Time, counted *int), look *trace.Looker) error {
	type key struct{ container, typ int32 }
	groups := map[key][]int32{}
	for i, s := range t.States.All() {
		if err := look.Stopped(1); err != nil {
			return err
		}
		if typeSel[s.Type] {
			k := key{s.Container, s.Type}
			groups[k] = append(groups[k], int32(i))
		}
	}
	type open struct {
		s       trace.State
		cursor  trace.Time // start of the part not yet counted
		counted int        // see buildStates
	}
	var stack []*open
	for _, idx := range groups {
		// The sort and the walk count the group's states as items.
		if err := look.Stopped(len(idx)); err != nil {
			return err
		}
		sort.Slice(idx, func(i, j int) bool {
			a, b := t.States.At(int(idx[i])), t.States.At(int(idx[j]))
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
				add(&top.s, top.cursor, stop, &top.counted)
			}
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && stack[len(stack)-1].cursor < stop {
				stack[len(stack)-1].cursor = stop
			}
		}
		for _, i := range idx {
			if err := look.Stopped(1); err != nil {
				return err
			}
			s := t.States.At(int(i))
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
				parent := stack[len(stack)-1]
				if s.Start > parent.cursor {
					add(&parent.s, parent.cursor, s.Start, &parent.counted)
				}
				parent.cursor = s.Start
			}
			stack = append(stack, &open{s, s.Start, -1})
		}
		for len(stack) > 0 {
			pop(stack[len(stack)-1].s.End)
		}
	}
	return nil
}
