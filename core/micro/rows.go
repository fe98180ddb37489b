package micro

import "github.com/macroscope-hpc/macroscope/core/trace"

// Rows is the row layout of a model's resources without its values: the
// hierarchy Build makes for the selected state types, and the row (leaf)
// each state counts in. Figures that draw the raw states (the Gantt view)
// use it so that their rows are the overview's, in the same order.
type Rows struct {
	// Model has the tree, Container, StateType, States and Colors of the
	// model Build would make; Values is nil and Slices 1.
	Model   *Model
	leafOf  []int32
	slot    []int32
	typeSel []bool
	// category maps a state to its category (index into Model.States).
	categoryOf []int32
	nValues    int
}

// StateRows lays out the resources of the state types named (all when
// empty) over t, as Build does for the state metrics, with the default
// categories (KeyGroup), so that a state has the overview's colour.
func StateRows(t *trace.Trace, stateTypes []string) (*Rows, error) {
	typeSel, err := selectTypes(t, trace.KindState, stateTypes)
	if err != nil {
		return nil, err
	}
	end := t.End
	if end <= t.Start {
		end = t.Start + 1
	}
	// The raw states, all of them: the profiler's spans too.
	opt := Options{Slices: 1, ProfilerSpans: true}
	m, leafOf, categoryOf, slot, err := layout(t, StateDuration, KeyGroup, typeSel, scanUsage(t, trace.KindState, typeSel, opt), opt, t.Start, end)
	if err != nil {
		return nil, err
	}
	return &Rows{Model: m, leafOf: leafOf, slot: slot, typeSel: typeSel, categoryOf: categoryOf, nValues: len(t.Values)}, nil
}

// Row returns the row of state s, or -1 when s is not of a selected type.
func (r *Rows) Row(s *trace.State) int32 {
	if !r.typeSel[s.Type] {
		return -1
	}
	leaf := r.leafOf[s.Container]
	if leaf < 0 {
		return -1
	}
	return leaf + r.slot[s.Type]
}

// Category returns the category (index into Model.States) of state s.
func (r *Rows) Category(s *trace.State) int32 {
	return category(r.categoryOf, r.nValues, s.Type, s.Value)
}
