package pybind

import (
	"encoding/json"
	"errors"
	"runtime"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/ingest"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/partition"
	"github.com/macroscope-hpc/macroscope/core/readers/otf2"
)

// An OTF2 archive's model adds up per location group: read_micro reads
// the groups on all cores (partition.Local), each group's locations
// decoded and modelled on their own, rather than merging every location's
// records by time into one stream, and matches the messages between
// groups afterwards: the model, the counts and the notes are the
// stream's. The option "parallel" of read_micro forces it (true), forbids
// it (false) or leaves it to the archive (null, the default: parallel
// when it has several location groups whose metric series each come from
// one group, otf2.Separable). It is the default because it is exact and
// not slower: on one core too, it spares the merge by time.

// parallelOptionName is read_micro's option, the front end's, not the
// reader's.
const parallelOptionName = "parallel"

// parallelOption takes the option parallel out of the read options: nil
// when absent or null.
func parallelOption(options string) (string, *bool, error) {
	values, err := decodeReadOptions(options)
	if err != nil {
		return "", nil, err
	}
	v, ok := values[parallelOptionName]
	if !ok {
		return options, nil, nil
	}
	delete(values, parallelOptionName)
	rest, err := json.Marshal(values)
	if err != nil {
		return "", nil, err
	}
	if v == nil {
		return string(rest), nil, nil
	}
	b, ok := v.(bool)
	if !ok {
		return "", nil, errs.Argument(parallelOptionName, "must be True, False or None, got %v", v)
	}
	return string(rest), &b, nil
}

// parallelPlan returns the plan of the parallel read of the trace at
// path, or nil to read it as one stream: an OTF2 archive read whole (the
// option location_groups already picks a part) of several location
// groups, when asked or by default when its groups add up
// (otf2.Separable).
func parallelPlan(path, format, options string, parallel *bool) *partition.Plan {
	if format != otf2.Format.Name || (parallel != nil && !*parallel) {
		return nil
	}
	values, err := decodeReadOptions(options)
	if err != nil {
		return nil
	}
	delete(values, "format")
	delete(values, memoryBudgetOption)
	if len(values.Strings("location_groups")) > 0 {
		return nil
	}
	if parallel == nil {
		if ok, err := otf2.Separable(path); err != nil || !ok {
			return nil // the stream's read reports the error
		}
	}
	// A part per location group, up to maxParts: the goroutines of
	// partition.Local take them as they finish, which balances groups of
	// unequal sizes. Every part holds the hierarchy until the parts are
	// merged: thousands of groups are read in fewer parts, of several
	// groups each.
	plan, err := partition.PlanFile(path, format, values, max(64, 8*runtime.GOMAXPROCS(0)))
	if err != nil || len(plan.Parts) < 2 {
		return nil // the stream's read reports the error
	}
	return plan
}

// readMicroLocal starts building the model of plan's parts on all cores
// (partition.Local). States that do not nest per part (micro.ErrNesting)
// fall back on the single stream, which keeps the whole trace then.
func readMicroLocal(path string, src *ingest.Source, format string, opt micro.Options, plan *partition.Plan) *Reading {
	files := src.Files
	r, ro := newReading()
	go r.run(func() error {
		var m *micro.Model
		var sum *micro.Summary
		err := readGuarded(path, func() (err error) {
			m, sum, err = partition.Local(plan, opt, ro, 0)
			if errors.Is(err, micro.ErrNesting) {
				m, sum, err = micro.FromSource(src, opt, ro)
			}
			return err
		})
		if err != nil {
			return err
		}
		r.model = streamedModel(m, sum, opt, files, format, ro)
		r.model.summary["parallel"] = len(plan.Parts)
		return nil
	})
	return r
}
