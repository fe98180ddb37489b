package moments

import (
	"github.com/macroscope-hpc/macroscope/core/partition"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Window returns the window of the sums of a trace that spans [start,
// end]: the bounds the options set (Start, End), the trace's where they
// set none. The parts of a trace are summed on the window it gives for
// the extent of all the parts.
func (o Options) Window(start, end trace.Time) (trace.Time, trace.Time) {
	if o.Start != nil {
		start = *o.Start
	}
	if o.End != nil {
		end = *o.End
	}
	return start, end
}

// ComputePart computes the power sums of the resources of a part of a
// trace (package partition) on the window [start, end) fixed for all the
// parts; Merge adds up the parts' results. The parts of a plan by
// location group or by file hold each resource's states whole, so that
// the merged sums are those of the whole trace, bit for bit; byte ranges
// split them (the sums then add up to rounding).
func ComputePart(p partition.Part, opt Options, start, end trace.Time, ro trace.ReadOptions) (*Result, error) {
	opt.Start, opt.End = &start, &end
	acc, err := New(opt)
	if err != nil {
		return nil, err
	}
	if err := partition.Read(p, acc, ro); err != nil {
		return nil, err
	}
	return acc.Result()
}
