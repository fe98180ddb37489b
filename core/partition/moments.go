package partition

import (
	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/moments"
)

// Moments computes the power sums of a part's resources on the window
// [start, end) fixed for all the parts (moments.Merge adds them up). The
// parts of a plan by location group or by file hold each resource's
// states whole, so that the merged sums are those of the whole trace, bit
// for bit; byte ranges split them (the sums then add up to rounding).
func Moments(p Part, opt moments.Options, start, end trace.Time, ro trace.ReadOptions) (*moments.Result, error) {
	opt.Start, opt.End = &start, &end
	acc, err := moments.New(opt)
	if err != nil {
		return nil, err
	}
	src, _, err := formats.Open(p.Path, p.Format, p.Options)
	if err != nil {
		return nil, err
	}
	sink, runs := under(p, acc)
	if err := src.Read(sink, ro); err != nil {
		return nil, err
	}
	if runs != nil {
		acc.Finish(runs.start, runs.end)
	}
	return acc.Result()
}
