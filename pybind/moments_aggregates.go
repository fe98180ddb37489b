package pybind

import (
	"strings"

	"github.com/macroscope-hpc/macroscope/arrowio"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
	"github.com/macroscope-hpc/macroscope/core/views/moments"
	"github.com/macroscope-hpc/macroscope/plots"
)

// StartMoments starts computing the moments of utilization of each
// aggregate of the partition: the busy functions of the resources under
// its node, added, over its time range; a Work whose Moments are the
// result, so that Ctrl-C stops it. options are those of
// Trace.StartMoments, except that the window is each aggregate's, by is
// "aggregate" (the default) or "state", and the state types default to
// the model's.
func (a *Aggregation) StartMoments(options string) (w *Work, err error) {
	defer guard(&err)
	o, opt, err := parseMomentsOptions(options)
	if err != nil {
		return nil, err
	}
	if opt.Start != nil || opt.End != nil {
		return nil, errs.Argument("start", "the window of an aggregate is its time range; clip the model instead (Trace.micro(start=, end=))")
	}
	var by moments.By
	switch strings.ToLower(strings.TrimSpace(o.By)) {
	case "aggregate", "":
		by = moments.ByNode
	case "state":
		by = moments.ByState
	default:
		return nil, errs.Argument("by", "%q is neither aggregate nor state", o.By)
	}
	src := a.model.source
	if src == nil {
		return nil, errs.Argument("aggregation", "the model of this aggregation was not built from a trace")
	}
	if len(opt.StateTypes) == 0 {
		opt.StateTypes = a.model.stateTypes
	}
	opt.ByState = by == moments.ByState
	var m *Moments
	w = startWork(func(ctl *aggregate.Control) error {
		opt.Cancel = ctl.Cancel
		rows, index, err := moments.Aggregates(src.t, a.model.m, a.part, opt)
		if err != nil {
			return err
		}
		m = a.moments(rows, index, by, opt)
		return nil
	})
	w.result = func() any { return m }
	return w, nil
}

// moments wraps the moments of the aggregates computed by StartMoments.
func (a *Aggregation) moments(rows []moments.Row, index []int32, by moments.By, opt moments.Options) *Moments {
	src := a.model.source
	source := ""
	if len(src.t.Files) > 0 {
		source = src.t.Files[0]
	}
	kind := "aggregate"
	cols := arrowio.MomentsColumns{Key: "node", Index: "aggregate_id", Indices: index, Window: true, Resources: true}
	if by == moments.ByState {
		kind, cols.States = "state", true
	}
	return &Moments{
		rows: rows, cols: cols, kind: kind, busy: describeBusy(opt), source: source,
		start: a.model.m.Start, end: a.model.m.End, origin: a.model.m.Origin, incomplete: a.model.incomplete,
		figure: func(opt plots.MomentsOptions) ([]byte, error) {
			opt.Origin = a.model.m.Origin
			return plots.AggregateFigure(rows, by, a.model.m.Start, a.model.m.End, opt)
		},
		types: src.t.Types, values: src.t.Values,
	}
}
