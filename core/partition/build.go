package partition

import (
	"cmp"
	"errors"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// under returns the sink that puts a part of source src under its run
// container, if it has one, and that run sink (nil for none).
func under(p Part, src *ingest.Source, sink trace.Sink) (trace.Sink, *runSink) {
	if p.Run == "" {
		return sink, nil
	}
	r := newRunSink(sink)
	r.begin(p.Run, src.Job)
	return r, r
}

// Extent returns the first and last instants of a part's records: the
// reader's guess when it can make one without reading (Source.Probe; for
// an OTF2 archive, the span its clock properties give, or its timestamps
// alone), a read that keeps nothing otherwise; guess false always reads.
// The trace's window is the smallest start and the largest end of its
// parts'. A guess must be checked against the extent of the merged
// partial models (micro.Partial's Start and End): their Model fails with
// micro.ErrWindow on a wrong one.
func Extent(p Part, guess bool, ro trace.ReadOptions) (start, end trace.Time, err error) {
	var ext micro.Extent
	src, _, err := formats.Open(p.Path, p.Format, p.Options)
	if err != nil {
		return 0, 0, err
	}
	sink, runs := under(p, src, &ext)
	if guess && src.Probe != nil && p.Run == "" {
		if start, end, ok := src.Probe(); ok {
			return start, end, nil
		}
	}
	if err := src.Read(sink, ro); err != nil {
		return 0, 0, err
	}
	if runs != nil && runs.finished {
		ext.Finish(runs.start, runs.end)
	}
	if !ext.Finished {
		return 0, 0, errs.Format(p.Path, 0, "the reader did not end the trace")
	}
	return ext.Start, ext.End, nil
}

// Read streams part p into sink: the records its reader delivers, under
// its run container if it has one (see PlanRuns), then Finish. It is how
// a part is read into anything other than a partial model (the moments'
// sums of package moments, for instance).
func Read(p Part, sink trace.Sink, ro trace.ReadOptions) error {
	src, _, err := formats.Open(p.Path, p.Format, p.Options)
	if err != nil {
		return err
	}
	into, runs := under(p, src, sink)
	if err := src.Read(into, ro); err != nil {
		return err
	}
	if runs != nil {
		sink.Finish(runs.start, runs.end)
	}
	return nil
}

// Build reads part p into a partial model sliced on the window [start,
// end] fixed for all the parts. Readers that hold their input in memory
// anyway (Source.Whole: JSON) deliver the part into memory first; its
// states are then handed over start-ordered, as the model of a trace in
// memory takes them.
func Build(p Part, opt micro.Options, start, end trace.Time, ro trace.ReadOptions) (*micro.Partial, error) {
	part, _, err := build(p, opt, start, end, ro, false)
	return part, err
}

// build is Build, which also returns, when keep is set and the part's
// format pairs links between parts (the location groups of an OTF2
// archive), the ends the part leaves unpaired (see ingest.Ends) rather
// than counting them as skipped.
func build(p Part, opt micro.Options, start, end trace.Time, ro trace.ReadOptions, keep bool) (*micro.Partial, ingest.Ends, error) {
	acc, err := micro.NewPartialAccumulator(opt, start, end)
	if err != nil {
		return nil, nil, err
	}
	src, f, err := formats.Open(p.Path, p.Format, p.Options)
	if err != nil {
		return nil, nil, err
	}
	var into trace.Sink = acc
	var kept *keeper
	if keep && p.Run == "" && f.Parts != nil && f.Parts.PairEnds != nil {
		kept = &keeper{Sink: acc}
		into = kept
	}
	var mem *trace.Trace
	if src.Whole {
		mem = trace.New()
		into = mem
	} else {
		acc.StartOrdered = src.StartOrdered
	}
	sink, runs := under(p, src, into)
	if ro.Notes == nil {
		ro.Notes = &trace.Notes{}
	}
	if err := src.Read(sink, ro); err != nil {
		return nil, nil, err
	}
	if runs != nil {
		into.Finish(runs.start, runs.end)
	}
	if mem != nil {
		acc.StartOrdered = true
		// The read's Cancel stops the replay too: a read's cancellation.
		if err := replay(mem, acc, &trace.Looker{Cancel: ro.Cancel}); err != nil {
			return nil, nil, trace.ErrCanceled
		}
	}
	part, err := acc.Partial()
	if errors.Is(err, micro.ErrNesting) {
		return nil, nil, &errs.FormatError{File: p.Path, Err: err}
	}
	if err != nil {
		return nil, nil, err
	}
	for _, note := range ro.Notes.Messages() {
		part.Notes = append(part.Notes, p.Label+": "+note)
	}
	var ends ingest.Ends
	if kept != nil {
		ends = kept.ends
	}
	return part, ends, nil
}

// BuildTrace is Build for a part already in memory (a file of a Parquet
// dataset made into a trace by the caller): its states are handed over
// start-ordered, as the model of a trace in memory takes them.
// opt.Cancel, once closed, stops it (the sort of the states and their
// replay look at it every trace.StopEvery items) with
// trace.ErrComputationCanceled and no partial model.
func BuildTrace(t *trace.Trace, opt micro.Options, start, end trace.Time) (*micro.Partial, error) {
	acc, err := micro.NewPartialAccumulator(opt, start, end)
	if err != nil {
		return nil, err
	}
	acc.StartOrdered = true
	if err := replay(t, acc, &trace.Looker{Cancel: opt.Cancel}); err != nil {
		return nil, err
	}
	if err := trace.Stopped(opt.Cancel); err != nil {
		return nil, err
	}
	part, err := acc.Partial()
	if errors.Is(err, micro.ErrNesting) && len(t.Files) > 0 {
		return nil, &errs.FormatError{File: t.Files[0], Err: err}
	}
	return part, err
}

// replay delivers a trace in memory to sink, the states of each
// container and type in the order they start (then by depth and end), as
// Build sorts them. It counts a state, variable, event, link or
// container as an item of look, and stops with its error (the sink left
// unfinished) once look says so.
func replay(t *trace.Trace, sink trace.Sink, look *trace.Looker) error {
	if err := look.Stopped(0); err != nil {
		return err
	}
	for _, ty := range t.Types {
		sink.DefineType(ty)
	}
	for _, v := range t.Values {
		sink.DefineValue(v)
	}
	for _, c := range t.Containers[1:] {
		c.Children = nil
		sink.CreateContainer(c)
	}
	order := make([]int32, t.States.Len())
	for i := range order {
		order[i] = int32(i)
	}
	err := trace.SortStableFunc(order, func(i, j int32) int {
		a, b := t.States.At(int(i)), t.States.At(int(j))
		return cmp.Or(cmp.Compare(a.Container, b.Container), cmp.Compare(a.Type, b.Type),
			cmp.Compare(a.Start, b.Start), cmp.Compare(a.Depth, b.Depth), cmp.Compare(a.End, b.End))
	}, look)
	if err != nil {
		return err
	}
	for _, i := range order {
		if err := look.Stopped(1); err != nil {
			return err
		}
		sink.State(t.States.At(int(i)))
	}
	for _, v := range t.Variables.All() {
		if err := look.Stopped(1); err != nil {
			return err
		}
		sink.Variable(v)
	}
	for _, e := range t.Events.All() {
		if err := look.Stopped(1); err != nil {
			return err
		}
		sink.Event(e)
	}
	for _, l := range t.Links.All() {
		if err := look.Stopped(1); err != nil {
			return err
		}
		sink.Link(l)
	}
	for id := 1; id < len(t.Containers); id++ {
		if err := look.Stopped(1); err != nil {
			return err
		}
		if end := t.Containers[id].End; end != trace.Unset {
			sink.DestroyContainer(int32(id), end)
		}
	}
	sink.Finish(t.Start, t.End)
	return nil
}
