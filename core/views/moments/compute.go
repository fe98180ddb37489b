package moments

import "github.com/macroscope-hpc/macroscope/core/trace"

// Compute computes the sums of a trace already in memory by replaying it
// into an Accumulator, in the order the reader delivered it.
func Compute(t *trace.Trace, opt Options) (*Result, error) {
	a, err := New(opt)
	if err != nil {
		return nil, err
	}
	for _, ty := range t.Types {
		a.DefineType(ty)
	}
	for _, v := range t.Values {
		a.DefineValue(v)
	}
	for _, c := range t.Containers[1:] {
		a.CreateContainer(c)
	}
	for _, s := range t.States.All() {
		a.State(s)
	}
	// Every container's states precede its destruction, and a container
	// alive at the end ends with the trace either way.
	for id := 1; id < len(t.Containers); id++ {
		if end := t.Containers[id].End; end != trace.Unset && end != t.End {
			a.DestroyContainer(int32(id), end)
		}
	}
	a.Finish(t.Start, t.End)
	return a.Result()
}
