package pybind

import (
	"github.com/macroscope-hpc/macroscope/core/aggregate"
	"github.com/macroscope-hpc/macroscope/core/micro"
)

// parseMicroOptions decodes the options of Trace.micro (microOptions).
func parseMicroOptions(options string) (micro.Options, error) {
	o := microOptions{Slices: 100}
	if err := decodeOptions(options, &o); err != nil {
		return micro.Options{}, err
	}
	opt := micro.Options{Slices: o.Slices, StateTypes: o.StateTypes, Types: o.Types, Depth: micro.Innermost,
		Metric: micro.Metric(o.Metric), Key: micro.Key(o.Key), MemoryBudget: o.MemoryBudget}
	if o.Depth != nil {
		opt.Depth = *o.Depth
	}
	var err error
	if opt.Start, err = seconds("start", o.Start); err != nil {
		return micro.Options{}, err
	}
	if opt.End, err = seconds("end", o.End); err != nil {
		return micro.Options{}, err
	}
	return opt, nil
}

// StartReadMicro starts building the microscopic model of the trace at
// path while reading it (micro.Stream): options are those of
// StartRead, modelOptions those of Trace.Micro. Problems found before
// reading starts are reported at once.
func StartReadMicro(path, options, modelOptions string) (r *Reading, err error) {
	defer guard(&err)
	opt, err := parseMicroOptions(modelOptions)
	if err != nil {
		return nil, err
	}
	src, format, err := openTrace(path, options)
	if err != nil {
		return nil, err
	}
	files := src.Files
	r, ro := newReading()
	go r.run(func() error {
		var m *micro.Model
		var sum *micro.Summary
		err := readGuarded(path, func() (err error) {
			m, sum, err = micro.FromSource(src, opt, ro)
			return err
		})
		warnings := ro.Notes.Messages()
		if err != nil {
			return err
		}
		r.model = &MicroModel{m: m, in: aggregate.Input{Tree: m.Tree, Slices: m.Slices, States: len(m.States), Values: m.Values},
			stateTypes: momentsStateTypes(opt), summary: map[string]any{
				"files": files, "format": format, "start": sum.Start.Seconds(), "end": sum.End.Seconds(),
				"containers": sum.Containers, "states": sum.States, "variables": sum.Variables, "links": sum.Links,
				"events": sum.Events, "passes": sum.Passes, "in_memory": sum.InMemory, "warnings": warnings,
				"skipped": ro.Notes.Skipped(),
			}, incomplete: ro.Notes.IncompleteReasons()}
		return nil
	})
	return r, nil
}
