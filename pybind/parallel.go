package pybind

import (
	"encoding/json"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/partition"
)

// read_micro reads an OTF2 archive's location groups on all cores when
// they add up to the whole archive (partition.LocalPlan, FromSource): the
// model, the counts and the notes are the one stream's. Its option
// "parallel" forces it (true), forbids it (false) or leaves it to the
// trace (null, the default).

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

// parallelPlan returns the plan of the read of the trace at path on all
// cores (partition.LocalPlan), or nil to read it as one stream; options
// are StartRead's, parallel read_micro's option.
func parallelPlan(path, format, options string, parallel *bool) *partition.Plan {
	values, err := decodeReadOptions(options)
	if err != nil {
		return nil
	}
	delete(values, "format")
	delete(values, memoryBudgetOption)
	return partition.LocalPlan(path, format, values, parallel)
}
