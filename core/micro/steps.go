package micro

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Step is one step of the program's main loop as its profiler marks it
// (a state of role trace.RoleStep or RoleStepCall: PyTorch's
// ProfilerStep#N, its NVTX and roctx copies, an XSpace step), over every
// resource: from the earliest start of a state of its number to the
// latest end. The figures draw where each step starts, so that a person
// sees which part of the run is which step, as TensorBoard and HTA show
// them; the model leaves the steps' own time out (Options.ProfilerSpans)
// but keeps where they are.
type Step struct {
	Number     int32 // the value's Step: N of ProfilerStep#N
	Start, End trace.Time
}

// noStep is the Accumulator's stepOf for a value that is not a step.
const noStep = -1 << 40

// Label names the step for a person: "step 5" for ProfilerStep#5, the
// NVTX or roctx range of that name, or the XSpace step 5.
func (s Step) Label() string { return "step " + strconv.Itoa(int(s.Number)) }

// steps gathers the steps of a trace, by number, as its states come.
type steps map[int32]Step

// isStep tells whether the states of v are steps.
func isStep(v trace.Value) bool { return v.Role == trace.RoleStep || v.Role == trace.RoleStepCall }

// add widens step n to [start, end).
func (s steps) add(n int32, start, end trace.Time) {
	if end < start {
		return
	}
	if st, ok := s[n]; ok {
		st.Start, st.End = min(st.Start, start), max(st.End, end)
		s[n] = st
		return
	}
	s[n] = Step{Number: n, Start: start, End: end}
}

// addAll widens the steps by those of list (a partial's).
func (s steps) addAll(list []Step) {
	for _, st := range list {
		s.add(st.Number, st.Start, st.End)
	}
}

// list returns the steps in order of start (then number).
func (s steps) list() []Step {
	out := make([]Step, 0, len(s))
	for _, st := range s {
		out = append(out, st)
	}
	slices.SortFunc(out, func(a, b Step) int {
		if a.Start != b.Start {
			return cmp.Compare(a.Start, b.Start)
		}
		return int(a.Number) - int(b.Number)
	})
	return out
}

// within returns the steps of s that overlap the window [start, end), in
// order of start; nil for none.
func (s steps) within(start, end trace.Time) []Step { return windowSteps(s.list(), start, end) }

// stepsOf returns the steps of t that overlap the window [start, end)
// (Model.Steps), whatever the options select or leave out.
func stepsOf(t *trace.Trace, start, end trace.Time) []Step {
	if !slices.ContainsFunc(t.Values, isStep) {
		return nil
	}
	s := steps{}
	for i := range t.States.Len() {
		st := t.States.At(i)
		if st.Value >= 0 && int(st.Value) < len(t.Values) && isStep(t.Values[st.Value]) {
			s.add(t.Values[st.Value].Step, st.Start, st.End)
		}
	}
	return s.within(start, end)
}

// windowSteps returns the steps of list that overlap [start, end): a
// step of no length, where it is.
func windowSteps(list []Step, start, end trace.Time) []Step {
	var out []Step
	for _, st := range list {
		if st.Start < end && (st.End > start || st.Start >= start) {
			out = append(out, st)
		}
	}
	return out
}
