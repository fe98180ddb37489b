// Package micro builds the microscopic model of Dosimont et al. 2014 (Ocelotl): for
// every resource s (a leaf of the container hierarchy), every time slice t
// of a window cut into N equal slices, and every state x, the proportion
// rho_x(s,t) of the slice that s spends in x. It also builds the other
// microscopic descriptions Ocelotl offers (see Metric): average state
// duration, event counts and time-averaged variables.
//
// Durations are accumulated exactly: times are integer nanoseconds, and
// slice boundaries fall on integers once positions are scaled by N, so each
// cell's total time is an exact integer before the single division that
// turns it into a proportion.
package micro

import (
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/hier"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Model is a microscopic model: a hierarchy whose leaves are resources,
// and a dense array of values indexed by leaf, slice and state.
type Model struct {
	Tree *hier.Tree
	// Container maps each tree node to its trace container, or trace.None
	// for a synthetic node (the leaf holding a container's own states when
	// it also has children).
	Container []int32
	// StateType maps each tree node to the state type whose states its
	// leaf holds, when the container holds states of several state types
	// and has a leaf per type ("name [type]"), or trace.None; nil in
	// models made by hand.
	StateType []int32
	// States labels each category (the x dimension): state values, event
	// values or variable types, depending on Metric.
	States []string
	// Colors holds the colour the trace gives each category, as the file
	// wrote it (Pajé's "r g b" in [0, 1]; the Paraver reader converts its
	// .pcf colours so), or "" when it gives none; nil in models made by
	// hand. Figures draw these colours in place of the palette's.
	Colors []string
	// Notes are sentences about the model a person should read before its
	// figures: more states than a figure colours apart, and the key that
	// fits (see LegibleStates). Nil when there is nothing to say.
	Notes []string
	// Metric is what Values measure; empty means StateDuration (models
	// made by hand).
	Metric Metric
	Slices int
	Start  trace.Time // window start
	End    trace.Time // window end
	// Origin is the trace's first instant: the times shown to a person
	// count from it (0 in models made by hand).
	Origin trace.Time
	// Values holds the metric of each cell (rho_x(s,t) for StateDuration)
	// at [(leaf*Slices+slice)*len(States)+state].
	Values []float64
}

// NumLeaves returns the number of resources.
func (m *Model) NumLeaves() int { return len(m.Tree.Leaves) }

// Value returns the metric of leaf s, slice t and category x.
func (m *Model) Value(leaf, slice, state int) float64 {
	return m.Values[(leaf*m.Slices+slice)*len(m.States)+state]
}

// SliceStart returns the start of slice k (k = Slices gives the window end).
// Boundaries are rounded down to the nanosecond for display; the model
// itself uses the exact rational boundaries.
func (m *Model) SliceStart(k int) trace.Time {
	w := int64(m.End - m.Start)
	// k*w may overflow int64 only when the window times slices does, which
	// Build rejects.
	return m.Start + trace.Time(int64(k)*w/int64(m.Slices))
}

// Window returns the model of slices first to last (inclusive): the same
// resources and categories over a shorter time, from the start of slice
// first to the end of slice last (SliceStart), its cells m's. It is how a
// model with no trace behind it to rebuild from is zoomed into; the
// window shares m's hierarchy and labels, and copies its cells.
func (m *Model) Window(first, last int) (*Model, error) {
	if first < 0 || last < first || last >= m.Slices {
		return nil, errs.Argument("window", "slices %d to %d are not within the model's 0 to %d", first, last, m.Slices-1)
	}
	states := len(m.States)
	n := last - first + 1
	w := *m
	w.Slices = n
	w.Start, w.End = m.SliceStart(first), m.SliceStart(last+1)
	w.Values = make([]float64, m.NumLeaves()*n*states)
	for leaf := range m.NumLeaves() {
		from := (leaf*m.Slices + first) * states
		copy(w.Values[leaf*n*states:(leaf+1)*n*states], m.Values[from:from+n*states])
	}
	return &w, nil
}

// SliceDuration returns the length of one slice in seconds.
func (m *Model) SliceDuration() float64 {
	return (m.End - m.Start).Seconds() / float64(m.Slices)
}
