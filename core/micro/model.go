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
	"github.com/macroscope-hpc/macroscope/core/sparse"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Model is a microscopic model: a hierarchy whose leaves are resources,
// and a value per leaf, slice and state, held in a dense array (Values) or
// by the non-zero values of each cell (Cells).
//
// The models Build, Stream and the partial models give are sparse when
// that takes at most half the memory of the dense array (sparse.Pays): a
// profile with thousands of states of which a cell holds a handful; a
// trace with few states, most of them in most cells, stays dense. Value,
// Row and Dense read either.
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
	// LeftOut is what the model left out of the profiler's spans
	// (Options.ProfilerSpans), by kind of span; LeftOutRows counts the
	// resources dropped for holding nothing else. Nil and 0 when nothing
	// was.
	LeftOut     []LeftOut
	LeftOutRows int
	// Steps are the program's steps that overlap the window (Step), in
	// order of start, whether the model leaves their time out or not; nil
	// for a trace without steps and in models made by hand.
	Steps []Step
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
	// at [(leaf*Slices+slice)*len(States)+state], or is nil when Cells
	// holds them.
	Values []float64
	// Cells holds the non-zero values of each cell leaf*Slices+slice, or
	// is nil when Values holds them.
	Cells *sparse.Cells
}

// NumLeaves returns the number of resources.
func (m *Model) NumLeaves() int { return len(m.Tree.Leaves) }

// IsSparse tells whether the values are held by Cells.
func (m *Model) IsSparse() bool { return m.Cells != nil }

// Value returns the metric of leaf s, slice t and category x.
func (m *Model) Value(leaf, slice, state int) float64 {
	if m.Cells != nil {
		return m.Cells.At(leaf*m.Slices+slice, state)
	}
	return m.Values[(leaf*m.Slices+slice)*len(m.States)+state]
}

// Row sets dst (one value per category) to the values of leaf s at slice
// t.
func (m *Model) Row(leaf, slice int, dst []float64) {
	if m.Cells != nil {
		m.Cells.Row(leaf*m.Slices+slice, dst)
		return
	}
	X := len(m.States)
	copy(dst[:X], m.Values[(leaf*m.Slices+slice)*X:])
}

// NonZero returns the number of values that are not zero.
func (m *Model) NonZero() int {
	if m.Cells != nil {
		return m.Cells.NonZero()
	}
	n := 0
	for _, v := range m.Values {
		if v != 0 {
			n++
		}
	}
	return n
}

// EachNonZero calls f for every value that is not zero, leaf by leaf,
// slice by slice, state by state.
func (m *Model) EachNonZero(f func(leaf, slice, state int, v float64)) {
	m.EachNonZeroIn(0, m.NumCells(), f)
}

// NumCells returns the number of cells, leaves x slices, as the values
// hold them.
func (m *Model) NumCells() int {
	if m.Cells != nil {
		return m.Cells.Len()
	}
	if len(m.States) == 0 {
		return 0
	}
	return len(m.Values) / len(m.States)
}

// EachNonZeroIn is EachNonZero of cells lo to hi-1 (a cell is
// leaf*Slices + slice): a long pass goes a range at a time, to look at a
// Cancel channel between them.
func (m *Model) EachNonZeroIn(lo, hi int, f func(leaf, slice, state int, v float64)) {
	if m.Cells != nil {
		for c := lo; c < hi; c++ {
			states, values := m.Cells.Cell(c)
			for k, x := range states {
				if values[k] != 0 {
					f(c/m.Slices, c%m.Slices, int(x), values[k])
				}
			}
		}
		return
	}
	X := len(m.States)
	for i, v := range m.Values[lo*X : hi*X] {
		if v != 0 {
			i += lo * X
			f(i/X/m.Slices, i/X%m.Slices, i%X, v)
		}
	}
}

// ValueBytes returns the memory the values take: 8 bytes a value when
// dense; 12 bytes a non-zero value and 8 a cell when sparse.
func (m *Model) ValueBytes() int64 {
	if m.Cells != nil {
		return m.Cells.Bytes()
	}
	return int64(len(m.Values)) * 8
}

// Dense returns the values as the dense array Values would hold: Values
// itself, or for a sparse model a new array.
func (m *Model) Dense() []float64 {
	if m.Cells != nil {
		return m.Cells.Dense(len(m.States))
	}
	return m.Values
}

// ToDense returns the model with its values in a dense array (m itself if
// they are): what to hand code that reads Values.
func (m *Model) ToDense() *Model {
	if m.Cells == nil {
		return m
	}
	d := *m
	d.Values, d.Cells = m.Cells.Dense(len(m.States)), nil
	return &d
}

// ToSparse returns the model with its values held by Cells (m itself if
// they are).
func (m *Model) ToSparse() *Model {
	if m.Cells != nil {
		return m
	}
	d := *m
	d.Values, d.Cells = nil, sparse.FromDense(m.Values, len(m.States))
	return &d
}

// store sets the model's values from their dense array, keeping them
// sparse when that pays (see Model).
func (m *Model) store(values []float64) {
	nonZero := 0
	for _, v := range values {
		if v != 0 {
			nonZero++
		}
	}
	if sparse.Pays(nonZero, len(values)/max(len(m.States), 1), len(m.States)) {
		m.Values, m.Cells = nil, sparse.FromDense(values, len(m.States))
		return
	}
	m.Values, m.Cells = values, nil
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
	w.Steps = windowSteps(m.Steps, w.Start, w.End)
	w.LeftOut = nil
	for _, l := range m.LeftOut {
		if len(l.Time) == m.Slices {
			l.Time = append([]float64(nil), l.Time[first:last+1]...)
		}
		w.LeftOut = append(w.LeftOut, l)
	}
	if m.Cells != nil {
		w.Cells = m.Cells.Window(first, n, m.Slices, m.NumLeaves())
		return &w, nil
	}
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
