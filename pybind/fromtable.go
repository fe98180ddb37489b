package pybind

import (
	"github.com/macroscope-hpc/macroscope/arrowio"
	"github.com/macroscope-hpc/macroscope/core/readers/intervals"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// tableOptions mirror the keyword arguments of macroscope.from_pandas.
type tableOptions struct {
	Resource  string   `json:"resource"`
	State     string   `json:"state"`
	Start     string   `json:"start"`
	End       string   `json:"end"`
	Duration  string   `json:"duration"`
	Type      string   `json:"type"`
	Sep       string   `json:"sep"`
	Levels    []string `json:"levels"`
	TimeUnit  string   `json:"time_unit"`
	StateType string   `json:"state_type"`
	Name      string   `json:"name"`
	// Role names a column of the values' roles: the dataset's reader
	// gives it (macroscope._dataset), from_pandas does not.
	Role string `json:"role"`
}

// FromArrow builds a trace from a table of intervals, which Python
// exported to the ArrowArrayStream at addr; options is a JSON object
// (tableOptions). The stream is taken over before anything else, so it is
// released whatever happens.
func FromArrow(addr uintptr, options string) (t *Trace, err error) {
	defer guard(&err)
	rdr, err := arrowio.ImportStream(addr)
	if err != nil {
		return nil, err
	}
	defer rdr.Release()
	var o tableOptions
	if err := decodeOptions(options, &o); err != nil {
		return nil, err
	}
	b := intervals.NewBuilder(intervals.Options{Sep: o.Sep, Levels: o.Levels, StateType: o.StateType})
	cols := arrowio.IntervalColumns{Resource: o.Resource, State: o.State, Start: o.Start, End: o.End,
		Duration: o.Duration, Type: o.Type, TimeUnit: o.TimeUnit, Role: o.Role}
	if err := arrowio.ReadIntervals(rdr, cols, b); err != nil {
		return nil, err
	}
	tr := trace.New(o.Name)
	if err := b.Finish(tr); err != nil {
		return nil, err
	}
	return &Trace{t: tr, format: "table"}, nil
}
