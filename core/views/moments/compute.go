package moments

import (
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Compute computes the sums of a trace already in memory by replaying it
// into an Accumulator, in the order the reader delivered it.
func Compute(t *trace.Trace, opt Options) (*Result, error) {
	opt, err := opt.Resolve(t.Start, t.End)
	if err != nil {
		return nil, err
	}
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
	for i, s := range t.States.All() {
		if i%trace.StopEvery == 0 {
			if err := trace.Stopped(opt.Cancel); err != nil {
				return nil, err
			}
		}
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

// Stream computes the moments of the trace read streams, without keeping
// its states. A window counting from the trace's start (Options.Relative)
// needs the trace's first instant before the states come: probe guesses
// it (nil: no guess) and a first read finds it otherwise; a wrong guess
// costs a second read.
func Stream(read func(trace.Sink) error, probe func() (start, end trace.Time, ok bool), opt Options) (*Result, error) {
	if !opt.Relative || opt.Start == nil && opt.End == nil {
		opt.Relative = false
		return streamOnce(read, opt)
	}
	first, last, known := trace.Time(0), trace.Time(0), false
	if probe != nil {
		first, last, known = probe()
	}
	if !known {
		var ext micro.Extent
		if err := read(&ext); err != nil {
			return nil, err
		}
		first, last = ext.Start, ext.End
	}
	for pass := 0; ; pass++ {
		ropt, err := opt.Resolve(first, last)
		if err != nil && (!known || pass > 0) {
			return nil, err
		}
		if err == nil {
			r, err := streamOnce(read, ropt)
			if err != nil || !known || r.Origin == first && r.traceEnd == last || pass > 0 {
				return r, err
			}
			first, last = r.Origin, r.traceEnd
			continue
		}
		// Outside the guessed extent: the trace's own says.
		var ext micro.Extent
		if err := read(&ext); err != nil {
			return nil, err
		}
		first, last, known = ext.Start, ext.End, false
	}
}

func streamOnce(read func(trace.Sink) error, opt Options) (*Result, error) {
	a, err := New(opt)
	if err != nil {
		return nil, err
	}
	if err := read(a); err != nil {
		return nil, err
	}
	return a.Result()
}
