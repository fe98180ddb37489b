package critpath

import (
	"cmp"
	"slices"
	"sort"

	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/mpi"
)

// The attribution as it was computed before the accumulator, from every
// state of a trace held in memory: the reference the accumulator's must
// equal.

// attributeHeld attributes the path's time to what its resources were doing
// in t (the trace the path was computed from).
func attributeHeld(r *Result, t *trace.Trace) *Attribution {
	// The run gathered again, held: the Result reads its calls back
	// from a spill file.
	run, err := mpi.FromTrace(t)
	if err != nil {
		panic(err)
	}
	resOf := map[int32]int32{}
	for i, res := range run.Resources {
		resOf[res.Container] = int32(i)
	}
	// Every resource's states (their indices: 4 bytes a state), to find
	// what it was doing when, one resource at a time.
	resOfContainer := make([]int32, len(t.Containers))
	for i := range resOfContainer {
		resOfContainer[i] = -1
	}
	for c, i := range resOf {
		resOfContainer[c] = i
	}
	indices := make([][]int32, len(run.Resources))
	for k := range t.States.Len() {
		s := t.States.At(k)
		if i := resOfContainer[s.Container]; i >= 0 && s.End > s.Start {
			indices[i] = append(indices[i], int32(k))
		}
	}
	onPathRes := make([]bool, len(run.Resources))
	for _, seg := range r.Segments {
		onPathRes[seg.Resource] = true
	}
	acts := make([][]Piece, len(run.Resources))
	total := map[string]trace.Time{}
	var states []trace.State
	for i := range indices {
		states = states[:0]
		for _, k := range indices[i] {
			states = append(states, t.States.At(int(k)))
		}
		indices[i] = nil
		act := activityHeld(int32(i), states, t, run)
		for _, p := range act {
			if d := min(p.End, r.End) - max(p.Start, r.Start); d > 0 {
				total[p.State] += d
			}
		}
		if onPathRes[i] {
			acts[i] = act
		}
	}
	a := &Attribution{}
	onPath := map[string]trace.Time{}
	for _, seg := range r.Segments {
		for _, p := range clip(acts[seg.Resource], seg.Start, seg.End) {
			a.Pieces = append(a.Pieces, p)
			onPath[p.State] += p.End - p.Start
		}
	}
	for name, on := range onPath {
		a.ByState = append(a.ByState, StateShare{State: name, OnPath: on, Total: total[name]})
	}
	a.finish(r, resourceShares(r))
	return a
}

// activity returns what resource res did over the trace: its MPI calls,
// between them its innermost states, elsewhere NoState, as pieces in time
// order that tile [run's start, run's end].
func activityHeld(res int32, states []trace.State, t *trace.Trace, run *mpi.Run) []Piece {
	inner := innermostHeld(states, t)
	out := make([]Piece, 0, len(inner)+2*len(run.Calls[res])+1)
	add := func(a, b trace.Time, name string) {
		if b <= a {
			return
		}
		if n := len(out); n > 0 && out[n-1].State == name && out[n-1].End == a {
			out[n-1].End = b
			return
		}
		out = append(out, Piece{Resource: res, Start: a, End: b, State: name})
	}
	// Between calls, the innermost states, else nothing.
	gap := func(a, b trace.Time) {
		i := sort.Search(len(inner), func(k int) bool { return inner[k].End > a })
		at := a
		for ; i < len(inner) && inner[i].Start < b; i++ {
			p := inner[i]
			add(at, max(at, p.Start), NoState)
			s, e := max(p.Start, at), min(p.End, b)
			add(s, e, p.State)
			at = max(at, e)
		}
		add(at, b, NoState)
	}
	at := run.Start
	for _, c := range run.Calls[res] {
		gap(at, c.Enter)
		add(max(at, c.Enter), c.Leave, run.Names[c.Name])
		at = max(at, c.Leave)
	}
	gap(at, max(at, run.End))
	return out
}

// innermost returns the innermost states of one container, as pieces in
// time order: at each instant the deepest open state (of any type; the
// last opened among equals).
func innermostHeld(states []trace.State, t *trace.Trace) []Piece {
	type edge struct {
		at    trace.Time
		open  bool
		depth int32
		idx   int
	}
	edges := make([]edge, 0, 2*len(states))
	for i, s := range states {
		edges = append(edges, edge{s.Start, true, s.Depth, i}, edge{s.End, false, s.Depth, i})
	}
	slices.SortFunc(edges, func(x, y edge) int {
		if c := cmp.Compare(x.at, y.at); c != 0 {
			return c
		}
		if x.open != y.open { // ends before starts
			if x.open {
				return 1
			}
			return -1
		}
		if x.open { // outer states open first
			return cmp.Compare(x.depth, y.depth)
		}
		return cmp.Compare(y.depth, x.depth)
	})
	out := make([]Piece, 0, len(states))
	var stack []int
	last := trace.Time(0)
	for _, e := range edges {
		if len(stack) > 0 && e.at > last {
			s := states[stack[len(stack)-1]]
			name := t.ValueName(s.Value)
			if n := len(out); n > 0 && out[n-1].State == name && out[n-1].End == last {
				out[n-1].End = e.at
			} else {
				out = append(out, Piece{Start: last, End: e.at, State: name})
			}
		}
		if e.open {
			stack = append(stack, e.idx)
		} else if k := slices.Index(stack, e.idx); k >= 0 {
			stack = slices.Delete(stack, k, k+1)
		}
		last = e.at
	}
	return out
}

// clip returns the pieces of ps (in time order) within [a, b], cut to it.
func clip(ps []Piece, a, b trace.Time) []Piece {
	i := sort.Search(len(ps), func(k int) bool { return ps[k].End > a })
	var out []Piece
	for ; i < len(ps) && ps[i].Start < b; i++ {
		p := ps[i]
		p.Start, p.End = max(p.Start, a), min(p.End, b)
		if p.End > p.Start {
			out = append(out, p)
		}
	}
	return out
}
