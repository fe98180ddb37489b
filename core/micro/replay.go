package micro

import (
	"errors"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// replayStates builds the model of the states of t as a stream would:
// it hands t's definitions, then its entities in the order the reader
// delivered them (the order t keeps), to an Accumulator. A reader's states
// arrive nested (see Accumulator), so the innermost states are followed
// on the fly, one state at a time: no index of the states by container and
// type to gather and sort, and no allocation per state, which is what made
// forEachExclusive cost as much as the read itself on large traces.
//
// ok is false when the states do not arrive nested (a trace built from a
// table of intervals in another order, say): the caller then computes the
// model from the whole trace (buildStates). Errors are Build's; the caller
// checked the window, the grid and the memory of the model before.
func replayStates(t *trace.Trace, opt Options, start, end trace.Time) (m *Model, ok bool, err error) {
	acc, err := NewAccumulator(opt, start, end)
	if err != nil {
		return nil, true, err
	}
	stopped := false
	acc.OnError = func() { stopped = true }
	for _, ty := range t.Types {
		acc.DefineType(ty)
	}
	for _, v := range t.Values {
		acc.DefineValue(v)
	}
	for id := 1; id < len(t.Containers); id++ {
		c := t.Containers[id]
		c.Children = nil // the accumulator's skeleton links its own
		acc.CreateContainer(c)
		if c.End != trace.Unset && c.End != t.End {
			acc.DestroyContainer(int32(id), c.End)
		}
	}
	for i := range t.States.Len() {
		if i%trace.StopEvery == 0 {
			if err := trace.Stopped(opt.Cancel); err != nil {
				return nil, true, err
			}
		}
		acc.State(t.States.At(i))
		if stopped {
			if !errors.Is(acc.err, ErrNesting) {
				return nil, true, acc.err // the memory budget
			}
			return nil, false, nil
		}
	}
	acc.Finish(t.Start, t.End)
	m, err = acc.Model()
	if errors.Is(err, ErrNesting) {
		return nil, false, nil
	}
	return m, true, err
}
