package trace

import (
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// One clock: the times a person reads and gives count from the trace's
// first instant, its origin. Traces keep their instants as their files
// write them (Unix time in ns for Kineto, the session's clock for Nsight
// Systems, 0 at the start for most HPC tracers): the tables keep those,
// and everything shown counts from the origin, stated once.

// Window resolves a window given in seconds from the start of a trace
// that spans [first, last] (start or end nil: the trace's own bound) into
// instants of the trace's clock.
//
// An instant of the trace's clock is accepted too where it cannot be
// mistaken: when the window read from the start does not meet the trace,
// and every bound given lies within the trace on its clock (a Kineto
// trace's 1661203462.6 s, a trace starting far from zero). A window that
// meets the trace neither way is an error naming the trace's span, as is
// an empty one: never a model of nothing.
func Window(start, end *Time, first, last Time) (Time, Time, error) {
	from, to := first, last
	if start != nil {
		from = first + *start
	}
	if end != nil {
		to = first + *end
	}
	if meets(from, to, first, last) {
		return from, to, nil
	}
	if onClock(start, first, last) && onClock(end, first, last) && (start != nil || end != nil) {
		from, to = first, last
		if start != nil {
			from = *start
		}
		if end != nil {
			to = *end
		}
		if meets(from, to, first, last) {
			return from, to, nil
		}
	}
	return 0, 0, outside(start, end, first, last)
}

// meets reports whether the non-empty window [from, to] shares time with
// the trace [first, last] (or holds its single instant).
func meets(from, to, first, last Time) bool {
	if to <= from {
		return false
	}
	if first == last {
		return from <= first && first <= to
	}
	return from < last && to > first
}

// onClock reports whether a bound given (nil: none) is an instant of the
// trace's clock within it.
func onClock(v *Time, first, last Time) bool {
	return v == nil || first <= *v && *v <= last
}

func outside(start, end *Time, first, last Time) error {
	if first == last && end == nil {
		return errs.NoDurationEnd(first.Seconds())
	}
	rel := func(v *Time, edge Time) string {
		if v == nil {
			return FormatSeconds(edge - first)
		}
		return FormatSeconds(*v)
	}
	s, e := rel(start, first), rel(end, last)
	span := "lasts " + FormatSeconds(last-first) + " s"
	if first != 0 {
		span += " (from " + FormatSeconds(first) + " s on its clock)"
	}
	if start != nil && end != nil && *end <= *start {
		return errs.Argument("window", "the window %s-%s s (from the trace's start) is empty; the trace %s", s, e, span)
	}
	return errs.Argument("window", "the window %s-%s s (from the trace's start) is outside the trace, which %s", s, e, span)
}

// FormatSeconds formats a duration or an instant in seconds as a person
// reads it: its exact decimal form without trailing zeros (8.5038, 0.3,
// 1661203462.584767).
func FormatSeconds(t Time) string {
	s := strings.TrimRight(t.String(), "0")
	return strings.TrimSuffix(s, ".")
}
