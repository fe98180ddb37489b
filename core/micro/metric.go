package micro

import (
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Metric names what a model measures in each cell (resource x slice x
// category). The categories (the "states" of the aggregation) are state
// values, event values or variable types depending on the metric.
type Metric string

// The metrics of Ocelotl's microscopic descriptions.
const (
	// StateDuration is the proportion of the slice the resource spends in
	// each state (Dosimont et al. 2014's rho). The default.
	StateDuration Metric = "state_duration"
	// StateAverageDuration is the average length, in seconds, of the
	// resource's stays in each state during the slice: the time spent in
	// the state within the slice divided by the number of distinct state
	// intervals that contribute to it (0 when none does).
	StateAverageDuration Metric = "state_average_duration"
	// EventCount is the number of events of each value the resource emits
	// during the slice.
	EventCount Metric = "event_count"
	// VariableAverage is the time average of each variable of the resource
	// over the slice: the integral of its piecewise-constant value over the
	// slice divided by the slice's length (time where the variable is not
	// defined counts as 0).
	VariableAverage Metric = "variable_average"
)

// ParseMetric reads a metric name; empty means StateDuration.
func ParseMetric(s string) (Metric, error) {
	switch m := Metric(strings.ToLower(strings.TrimSpace(s))); m {
	case StateDuration, StateAverageDuration, EventCount, VariableAverage:
		return m, nil
	case "":
		return StateDuration, nil
	}
	return "", errs.Argument("metric", "unknown metric %q (use %s, %s, %s or %s)", s,
		StateDuration, StateAverageDuration, EventCount, VariableAverage)
}

// entityKind is the kind of trace entity the metric reads.
func (m Metric) entityKind() trace.Kind {
	switch m {
	case EventCount:
		return trace.KindEvent
	case VariableAverage:
		return trace.KindVariable
	}
	return trace.KindState
}

// Dimension names the categories of the metric: "state", "event" or
// "variable".
func (m Metric) Dimension() string {
	switch m.entityKind() {
	case trace.KindEvent:
		return "event"
	case trace.KindVariable:
		return "variable"
	}
	return "state"
}
