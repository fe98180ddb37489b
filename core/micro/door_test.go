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

// readTrace reads the trace file at path into memory through the
// registry's door, with the format's default options (those ReadFile
// reads it with: a StarPU Pajé trace's dates in milliseconds, for one).
func readTrace(path, format string) (*trace.Trace, error) {
	src, _, err := formats.Open(path, format, nil)
	if err != nil {
		return nil, err
	}
	tr := trace.New(path)
	if err := src.Read(tr, trace.ReadOptions{}); err != nil {
		return nil, err
	}
	return tr, nil
}
