package pybind

import (
	"encoding/json"

	"github.com/macroscope-hpc/macroscope/core/budget"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/partition"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
	"github.com/macroscope-hpc/macroscope/core/views/moments"
)

// parseMicroOptions decodes the options of Trace.micro (microOptions).
func parseMicroOptions(options string) (micro.Options, error) {
	o := microOptions{Slices: 100}
	if err := decodeOptions(options, &o); err != nil {
		return micro.Options{}, err
	}
	// The window counts from the trace's start, as every window Python
	// gives (trace.Window).
	opt := micro.Options{Slices: o.Slices, StateTypes: o.StateTypes, Types: o.Types, Depth: micro.Innermost,
		Metric: micro.Metric(o.Metric), Key: micro.Key(o.Key), MemoryBudget: o.MemoryBudget, Relative: true,
		ProfilerSpans: o.ProfilerSpans}
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
	options, parallel, err := parallelOption(options)
	if err != nil {
		return nil, err
	}
	src, format, err := openTrace(path, options)
	if err != nil {
		return nil, err
	}
	setting, err := memoryBudget(options)
	if err != nil {
		return nil, err
	}
	return readMicro(path, src, format, opt, parallelPlan(path, format, options, parallel), setting), nil
}

// readMicro starts building the model of src: as one stream, or by the
// parts of plan on all cores when it is not nil (partition.FromSource).
func readMicro(path string, src *ingest.Source, format string, opt micro.Options, plan *partition.Plan, setting int64) *Reading {
	files := src.Files
	r, ro := newReading()
	// What a reader gathers before it delivers it (a whole document, a
	// database's records) weighs against the memory budget; the model's
	// own memory is checked by the builder (micro.Options.MemoryBudget).
	meter := budget.NewMeter(setting, r.stop)
	ro.Hold = meter.Hold
	go r.run(func() error {
		var m *micro.Model
		var sum *micro.Summary
		err := readGuarded(path, func() (err error) {
			m, sum, err = partition.FromSource(src, plan, opt, ro)
			return err
		})
		if meter.Err() != nil {
			return overBudget(path, meter.Err(), err)
		}
		if err != nil {
			return errs.NameFile(err, files...)
		}
		r.model = streamedModel(m, sum, opt, files, format, ro)
		if plan != nil {
			r.model.summary["parallel"] = len(plan.Parts)
		}
		return nil
	})
	return r
}

// streamedModel is the model read with its summary: what was read, the
// reader's notes.
func streamedModel(m *micro.Model, sum *micro.Summary, opt micro.Options, files []string, format string, ro trace.ReadOptions) *MicroModel {
	return &MicroModel{m: m, in: aggregate.Input{Tree: m.Tree, Slices: m.Slices, States: len(m.States), Values: m.Values, Cells: m.Cells},
		stateTypes: moments.ModelStateTypes(opt), summary: map[string]any{
			"files": files, "format": format, "start": sum.Start.Seconds(), "end": sum.End.Seconds(),
			"containers": sum.Containers, "states": sum.States, "variables": sum.Variables, "links": sum.Links,
			"events": sum.Events, "passes": sum.Passes, "in_memory": sum.InMemory, "warnings": ro.Notes.Messages(),
			"skipped": ro.Notes.Skipped(),
		}, incomplete: ro.Notes.IncompleteReasons()}
}

// StartReadMicroRuns starts building the model of several traces read as
// one, each under a container of its own at the top of the hierarchy
// (partition.Runs): the model a cluster builds from their partial models.
// By default the files are the parts of a read on all cores (one file
// read at a time per core, its partial model kept): the memory of the
// largest file's read, not of all of them, for the price of a first read
// of each file that finds the window. The option "parallel" false reads
// them as one stream instead.
// paths is a JSON list; options are the readers' (with "format").
func StartReadMicroRuns(paths, options, modelOptions string) (r *Reading, err error) {
	defer guard(&err)
	opt, err := parseMicroOptions(modelOptions)
	if err != nil {
		return nil, err
	}
	options, parallel, err := parallelOption(options)
	if err != nil {
		return nil, err
	}
	list, format, src, plan, err := openRuns(paths, options)
	if err != nil {
		return nil, err
	}
	if parallel != nil && !*parallel {
		// One stream through every file: the trace kept in memory when
		// the window is not given (the slices need it), but each file
		// read once.
		plan = nil
	}
	setting, err := memoryBudget(options)
	if err != nil {
		return nil, err
	}
	return readMicro(list[0], src, format, opt, plan, setting), nil
}

// openRuns opens several traces as one, a run container each
// (partition.Runs): paths is a JSON list, options are the readers' (with
// "format"). It returns the paths, the format asked for, the one source
// that reads them in turn and the plan of a part per file.
func openRuns(paths, options string) (list []string, format string, src *ingest.Source, plan *partition.Plan, err error) {
	if err := json.Unmarshal([]byte(paths), &list); err != nil {
		return nil, "", nil, nil, errs.Argument("path", "%v", err)
	}
	values := ingest.Values{}
	if options != "" {
		if err := json.Unmarshal([]byte(options), &values); err != nil {
			return nil, "", nil, nil, errs.Argument("options", "%v", err)
		}
	}
	format, _ = values["format"].(string)
	delete(values, "format")
	plan, err = partition.PlanRuns(list, format, values)
	if err != nil {
		return nil, "", nil, nil, err
	}
	src, err = partition.Runs(plan)
	if err != nil {
		return nil, "", nil, nil, err
	}
	return list, format, src, plan, nil
}

// DetectFormat names the format of the trace at path.
func DetectFormat(path string) (name string, err error) {
	defer guard(&err)
	f, err := formats.Detect(path)
	return f.Name, err
}
