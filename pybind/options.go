package pybind

import (
	"encoding/json"
	"math"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/plots"
)

// Options arrive from Python as JSON objects: the facade stays a handful
// of functions while the Python signatures grow keyword arguments.
func decodeOptions(js string, v any) error {
	if js == "" {
		return nil
	}
	if err := json.Unmarshal([]byte(js), v); err != nil {
		return errs.Argument("options", "malformed options %s: %v", js, err)
	}
	return nil
}

// seconds converts an optional time in seconds to trace time.
func seconds(name string, s *float64) (*trace.Time, error) {
	if s == nil {
		return nil, nil
	}
	if math.IsNaN(*s) || math.IsInf(*s, 0) {
		return nil, errs.Argument(name, "must be a finite number of seconds, got %v", *s)
	}
	t, ok := trace.FromSeconds(*s)
	if !ok {
		return nil, errs.Argument(name, "%v s is out of range", *s)
	}
	return &t, nil
}

// decodePlotOptions decodes the options of a Plot method into o, whose
// field format names the image format (defaulted by the caller), and
// returns that format.
func decodePlotOptions(js string, o any, format *string) (plots.Format, error) {
	if err := decodeOptions(js, o); err != nil {
		return "", err
	}
	return plots.ParseFormat(*format)
}
