package pybind

import (
	"encoding"
	"encoding/json"
	"errors"
	"runtime"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/partition"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
	"github.com/macroscope-hpc/macroscope/core/views/moments"
)

// The steps of a distributed model (package partition): the plan on the
// client, the extent and the partial model of each part on the workers,
// the merges of partials anywhere, the model on the client. Partials
// cross processes as bytes (micro.Partial.MarshalBinary), and so do the
// ends of the links between parts that the parts leave unpaired (the
// messages between the location groups of an OTF2 archive,
// ingest.Ends.MarshalBinary): they add up along the partials and are
// matched into a partial of their own before the model is made.

// PartitionPlan lists the parts of the traces at paths (a JSON list):
// one per file under a run container when runs is set (or when there are
// several files), the parts of the one trace otherwise (at most n byte
// ranges). options are the reader's (JSON). It returns the plan as JSON.
func PartitionPlan(paths, format, options string, n int, runs bool) (js string, err error) {
	defer guard(&err)
	var list []string
	if err := json.Unmarshal([]byte(paths), &list); err != nil {
		return "", errs.Argument("path", "%v", err)
	}
	values := ingest.Values{}
	if options != "" {
		if err := json.NewDecoder(strings.NewReader(options)).Decode(&values); err != nil {
			return "", errs.Argument("options", "%v", err)
		}
	}
	var plan *partition.Plan
	if runs || len(list) != 1 {
		plan, err = partition.PlanRuns(list, format, values)
	} else {
		plan, err = partition.PlanFile(list[0], format, values, n)
	}
	if err != nil {
		return "", err
	}
	return toJSON(plan)
}

func decodePart(part string) (partition.Part, error) {
	var p partition.Part
	if err := json.Unmarshal([]byte(part), &p); err != nil {
		return p, errs.Argument("part", "%v", err)
	}
	return p, nil
}

// StartPartitionExtent starts finding the extent of a part (JSON, from
// PartitionPlan); path is the part's, for the messages. guess allows a
// guess to be checked later (partition.Extent).
func StartPartitionExtent(path, part string, guess bool) (r *Reading, err error) {
	defer guard(&err)
	p, err := decodePart(part)
	if err != nil {
		return nil, err
	}
	r, ro := newReading()
	go r.run(func() error {
		return readGuarded(path, func() error {
			start, end, err := partition.Extent(p, guess, ro)
			r.extent = [2]int64{int64(start), int64(end)}
			return err
		})
	})
	return r, nil
}

// StartPartitionBuild starts building the partial model of a part on the
// window [start, end] ns, with the options of Trace.micro, and keeping the
// message ends it leaves unmatched (Reading.Messages).
func StartPartitionBuild(path, part, modelOptions string, start, end int64) (r *Reading, err error) {
	defer guard(&err)
	p, opt, from, to, err := partBuild(part, modelOptions, start, end)
	if err != nil {
		return nil, err
	}
	return startPartial(path, func(ro trace.ReadOptions) (encoding.BinaryMarshaler, []byte, error) {
		return partition.BuildMessages(p, opt, from, to, ro)
	}), nil
}

// partBuild decodes what a part's model is built with: the part (JSON),
// the options of Trace.micro (JSON) and the window it is read on
// (micro.Options.Window).
func partBuild(part, modelOptions string, start, end int64) (p partition.Part, opt micro.Options, from, to trace.Time, err error) {
	if p, err = decodePart(part); err != nil {
		return
	}
	if opt, err = parseMicroOptions(modelOptions); err != nil {
		return
	}
	// [start, end] is the extent of the whole trace: the window counts
	// from its start.
	if opt, err = opt.Resolve(trace.Time(start), trace.Time(end)); err != nil {
		return
	}
	from, to = opt.Window(trace.Time(start), trace.Time(end))
	return p, opt, from, to, nil
}

// startPartial starts reading a part into its partial result with build
// and keeps the result encoded, for the worker to send, with the message
// ends build kept encoded (nil for none).
func startPartial(path string, build func(trace.ReadOptions) (encoding.BinaryMarshaler, []byte, error)) *Reading {
	r, ro := newReading()
	go r.run(func() error {
		return readGuarded(path, func() error {
			partial, msgs, err := build(ro)
			if err != nil {
				return err
			}
			r.messages = msgs
			r.partial, err = partial.MarshalBinary()
			return err
		})
	})
	return r
}

// Extent returns the extent found (StartPartitionExtent) as JSON [start,
// end] in ns.
func (r *Reading) Extent() (js string, err error) {
	defer guard(&err)
	if err := r.outcome(); err != nil {
		return "", err
	}
	return toJSON(r.extent)
}

// Partial returns the encoded partial model (StartPartitionBuild).
func (r *Reading) Partial() (data []byte, err error) {
	defer guard(&err)
	if err := r.outcome(); err != nil {
		return nil, err
	}
	return r.partial, nil
}

// Messages returns the encoded message ends the part left unmatched
// (StartPartitionBuild), empty for none.
func (r *Reading) Messages() (data []byte, err error) {
	defer guard(&err)
	if err := r.outcome(); err != nil {
		return nil, err
	}
	return r.messages, nil
}

// PartitionMergeMessages adds up the encoded message ends of two
// consecutive runs of parts, a's before b's.
func PartitionMergeMessages(a, b []byte) (data []byte, err error) {
	defer guard(&err)
	return partition.MergeMessages(a, b)
}

// PartitionMatchMessages returns the encoded partial model of all the
// parts of a plan (total, merged) with the partial of their message ends
// (msgs, added up) merged last; part is one of the plan's (JSON: the
// archive's path), order the plan's, modelOptions and [start, end] ns
// what the parts were built with.
func PartitionMatchMessages(order int, part, modelOptions string, start, end int64, total, msgs []byte) (data []byte, err error) {
	defer guard(&err)
	p, opt, from, to, err := partBuild(part, modelOptions, start, end)
	if err != nil {
		return nil, err
	}
	parts, err := micro.UnmarshalPartial(total)
	if err != nil {
		return nil, err
	}
	matched, err := partition.MatchMessages(p, [][]byte{msgs}, opt, from, to, parts)
	if err != nil {
		return nil, err
	}
	m, err := micro.Merge(micro.Order(order), parts, matched)
	if err != nil {
		return nil, err
	}
	return m.MarshalBinary()
}

// PartitionMerge merges two encoded partial models, a's part before b's;
// order is the plan's.
func PartitionMerge(order int, a, b []byte) (data []byte, err error) {
	defer guard(&err)
	pa, err := micro.UnmarshalPartial(a)
	if err != nil {
		return nil, err
	}
	pb, err := micro.UnmarshalPartial(b)
	if err != nil {
		return nil, err
	}
	m, err := micro.Merge(micro.Order(order), pa, pb)
	if err != nil {
		return nil, err
	}
	return m.MarshalBinary()
}

// PartitionExtentOf returns the extent of the records of the parts
// merged into an encoded partial model, as JSON [start, end] in ns: the
// check of a window guessed before the reads.
func PartitionExtentOf(data []byte) (js string, err error) {
	defer guard(&err)
	p, err := micro.UnmarshalPartial(data)
	if err != nil {
		return "", err
	}
	return toJSON([2]int64{int64(p.Start), int64(p.End)})
}

// PartitionModel returns the model of the merged partial model of all the
// parts of a trace; files (JSON list) and format describe it.
func PartitionModel(data []byte, files, format string) (m *MicroModel, err error) {
	defer guard(&err)
	p, err := micro.UnmarshalPartial(data)
	if err != nil {
		return nil, err
	}
	var fileList []string
	_ = json.Unmarshal([]byte(files), &fileList)
	model, err := p.Model()
	if err != nil {
		return nil, errs.NameFile(err, fileList...)
	}
	return &MicroModel{m: model, in: aggregate.Input{Tree: model.Tree, Slices: model.Slices, States: len(model.States), Values: model.Values, Cells: model.Cells},
		stateTypes: moments.ModelStateTypes(p.Options), summary: map[string]any{
			"files": fileList, "format": format, "start": p.Start.Seconds(), "end": p.End.Seconds(),
			"containers": p.Counts.Containers, "states": p.Counts.States, "variables": p.Counts.Variables,
			"links": p.Counts.Links, "events": p.Counts.Events, "passes": 1, "in_memory": false,
			"warnings": append([]string{}, p.Notes...), "distributed": true,
		}}, nil
}

// SetMaxProcs sets the number of threads that run Go code at once
// (GOMAXPROCS), to match the threads a cluster worker is given; n < 1
// leaves it. It returns the previous setting.
func SetMaxProcs(n int) (previous int, err error) {
	defer guard(&err)
	return runtime.GOMAXPROCS(n), nil
}

// StartPartitionMoments starts computing the moments' power sums of a
// part on the window [start, end] ns, with the options of moments().
func StartPartitionMoments(path, part, options string, start, end int64) (r *Reading, err error) {
	defer guard(&err)
	p, err := decodePart(part)
	if err != nil {
		return nil, err
	}
	_, opt, err := parseResourceMoments(options)
	if err != nil {
		return nil, err
	}
	// [start, end] is the extent of the whole trace: the window counts
	// from its start.
	if opt, err = opt.Resolve(trace.Time(start), trace.Time(end)); err != nil {
		return nil, err
	}
	from, to := opt.Window(trace.Time(start), trace.Time(end))
	return startPartial(path, func(ro trace.ReadOptions) (encoding.BinaryMarshaler, []byte, error) {
		res, err := moments.ComputePart(p, opt, from, to, ro)
		if err != nil {
			return nil, nil, streamError(path, err)
		}
		return res, nil, nil
	}), nil
}

// PartitionMomentsMerge merges the encoded sums of two parts, a's first.
func PartitionMomentsMerge(a, b []byte) (data []byte, err error) {
	defer guard(&err)
	ra, err := moments.UnmarshalResult(a)
	if err != nil {
		return nil, err
	}
	rb, err := moments.UnmarshalResult(b)
	if err != nil {
		return nil, err
	}
	m, err := moments.Merge(ra, rb)
	if err != nil {
		return nil, err
	}
	return m.MarshalBinary()
}

// PartitionMoments returns the moments table of the merged sums of all
// the parts of a trace, laid out as options say (by resource or node).
func PartitionMoments(data []byte, options, source string) (m *Moments, err error) {
	defer guard(&err)
	by, opt, err := parseResourceMoments(options)
	if err != nil {
		return nil, err
	}
	if by == moments.ByState {
		return nil, errs.Argument("by", `the moments of a trace split across a cluster are by "resource" or "node"`)
	}
	r, err := moments.UnmarshalResult(data)
	if err != nil {
		return nil, err
	}
	return resultMoments(r, by, opt, source)
}

// MomentsFromRuns computes the moments of several traces read as one, a
// run container each (partition.Runs); paths is a JSON list.
func MomentsFromRuns(paths, readOptions, options string) (m *Moments, err error) {
	defer guard(&err)
	by, opt, err := parseResourceMoments(options)
	if err != nil {
		return nil, err
	}
	list, _, src, _, err := openRuns(paths, readOptions)
	if err != nil {
		return nil, err
	}
	r, err := moments.Stream(func(sink trace.Sink) error { return src.Read(sink, trace.ReadOptions{}) }, nil, opt)
	if err != nil {
		var fe *errs.FormatError
		if errors.As(err, &fe) {
			return nil, err
		}
		return nil, streamError(list[0], err)
	}
	return resultMoments(r, by, opt, list[0])
}

// Partial builds the partial model of a trace in memory, a part of a
// larger one (a file of a Parquet dataset), on the window [start, end] ns.
func (t *Trace) Partial(modelOptions string, start, end int64) (data []byte, err error) {
	defer guard(&err)
	return t.partial(modelOptions, start, end, nil)
}

// StartPartial starts Partial as a Work, which Ctrl-C stops in the sort
// and the replay of the states; Work.Data gives the encoded partial.
func (t *Trace) StartPartial(modelOptions string, start, end int64) (w *Work, err error) {
	defer guard(&err)
	var data []byte
	w = startWork(func(ctl *aggregate.Control) error {
		var err error
		data, err = t.partial(modelOptions, start, end, ctl.Cancel)
		return err
	})
	w.result = func() any { return data }
	return w, nil
}

// partial is Partial, stopped once cancel is closed.
func (t *Trace) partial(modelOptions string, start, end int64, cancel <-chan struct{}) ([]byte, error) {
	opt, err := parseMicroOptions(modelOptions)
	if err != nil {
		return nil, err
	}
	if opt, err = opt.Resolve(trace.Time(start), trace.Time(end)); err != nil {
		return nil, err
	}
	opt.Cancel = cancel
	from, to := opt.Window(trace.Time(start), trace.Time(end))
	p, err := partition.BuildTrace(t.t, opt, from, to)
	if err != nil {
		return nil, err
	}
	if err := trace.Stopped(cancel); err != nil {
		return nil, err
	}
	return p.MarshalBinary()
}

// Data waits for the end of a work whose result is bytes
// (Trace.StartPartial) and returns them, or its error.
func (w *Work) Data() (data []byte, err error) {
	defer guard(&err)
	r, err := w.finished("bytes")
	if b, ok := r.([]byte); ok && b != nil {
		return b, nil
	}
	return nil, orNone(err, "bytes")
}
