package micro

import (
	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// ReadFile builds the model of the trace file at path while reading it,
// through the registry's door, as the front ends do.
func ReadFile(path, format string, opt Options, ro trace.ReadOptions) (*Model, *Summary, error) {
	src, _, err := formats.Open(path, format, nil)
	if err != nil {
		return nil, nil, err
	}
	return FromSource(src, opt, ro)
}
