package pybind

import (
	"github.com/macroscope-hpc/macroscope/arrowio"
	"github.com/macroscope-hpc/macroscope/core/errs"
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
	// Containers are the paths of the trace's containers, created in
	// this order before the rows' (the dataset's containers table), and
	// ExtentNs the trace's [start, end] in ns: the dataset's reader gives
	// them, so that the trace read back orders its resources and spans
	// its time as the trace written did.
	Containers []string `json:"containers"`
	ExtentNs   []int64  `json:"extent_ns"`
	// Category names a column of the values' categories (the dataset's).
	Category string `json:"category"`
	// Values are the trace's values of states, [type, name, category,
	// role], in its order: the order of the model's categories.
	Values [][4]string `json:"values"`
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
	for _, p := range o.Containers {
		if err := b.Declare(p); err != nil {
			return nil, err
		}
	}
	for _, v := range o.Values {
		r, ok := trace.RoleNamed(v[3])
		if !ok {
			return nil, errs.Argument("values", "value %s of type %s: %s is no role's name", errs.Quote(v[1]), errs.Quote(v[0]), errs.Quote(v[3]))
		}
		b.DeclareValue(v[0], v[1], v[2], r)
	}
	if len(o.ExtentNs) == 2 && o.ExtentNs[0] <= o.ExtentNs[1] {
		b.Cover(trace.Time(o.ExtentNs[0]), trace.Time(o.ExtentNs[1]))
	}
	cols := arrowio.IntervalColumns{Resource: o.Resource, State: o.State, Start: o.Start, End: o.End,
		Duration: o.Duration, Type: o.Type, TimeUnit: o.TimeUnit, Role: o.Role, Category: o.Category}
	if err := arrowio.ReadIntervals(rdr, cols, b); err != nil {
		return nil, err
	}
	tr := trace.New(o.Name)
	if err := b.Finish(tr); err != nil {
		return nil, err
	}
	return &Trace{t: tr, format: "table"}, nil
}
