package trace

import (
	"errors"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

func TestWindow(t *testing.T) {
	at := func(s float64) *Time {
		v, _ := FromSeconds(s)
		return &v
	}
	sec := func(s float64) Time { return *at(s) }
	// A Kineto trace on Unix time (hta's control.json.gz spans
	// 1661203462.5847669-1661203463.1255622 s) and a trace starting at 0.
	kFirst, kLast := sec(1661203462.5847669), sec(1661203463.1255622)
	for _, c := range []struct {
		name        string
		start, end  *Time
		first, last Time
		from, to    Time
		err         string
	}{
		{"whole", nil, nil, kFirst, kLast, kFirst, kLast, ""},
		{"from the start", at(0.1), at(0.2), kFirst, kLast, kFirst + sec(0.1), kFirst + sec(0.2), ""},
		{"start only", at(0.1), nil, kFirst, kLast, kFirst + sec(0.1), kLast, ""},
		{"past the end, from the start", at(0.5), at(2), kFirst, kLast, kFirst + sec(0.5), kFirst + sec(2), ""},
		{"on the clock", at(1661203462.6), at(1661203462.7), kFirst, kLast, sec(1661203462.6), sec(1661203462.7), ""},
		{"on the clock, start only", at(1661203462.6), nil, kFirst, kLast, sec(1661203462.6), kLast, ""},
		{"on the clock, before the trace", at(1661203400), nil, kFirst, kLast, 0, 0, "outside the trace, which lasts 0.540795136 s (from 1661203462.584766976 s on its clock)"},
		{"after the trace", at(5), at(6), kFirst, kLast, 0, 0, "the window 5-6 s (from the trace's start) is outside the trace"},
		{"empty", at(0.3), at(0.2), kFirst, kLast, 0, 0, "the window 0.3-0.2 s (from the trace's start) is empty"},
		// A trace from 0: both readings are the same.
		{"zero origin", at(2), at(2.5), 0, sec(8.5), sec(2), sec(2.5), ""},
		{"zero origin, around", at(-1), at(10), 0, sec(8.5), sec(-1), sec(10), ""},
		{"zero origin, after", at(9), at(10), 0, sec(8.5), 0, 0, "outside the trace, which lasts 8.5 s;"},
		// A trace that starts late on its clock (an Nsight session, 60 s
		// in): seconds from the start first, the clock where they cannot be.
		{"late, from the start", at(0.1), at(0.2), sec(60.1), sec(60.4), sec(60.2), sec(60.3), ""},
		{"late, on the clock", at(60.2), at(60.3), sec(60.1), sec(60.4), sec(60.2), sec(60.3), ""},
		// No duration: a window holding its instant.
		{"instant", at(-1), at(1), 0, 0, sec(-1), sec(1), ""},
		// ... which a start alone cannot give: the end is the instant.
		{"instant, start only", at(0.5), nil, sec(3), sec(3), 0, 0, "the trace has no duration (all its events are at t = 3 s), so a start without an end leaves no window: give an end (end=) too"},
	} {
		from, to, err := Window(c.start, c.end, c.first, c.last)
		if c.err != "" {
			var ae *errs.ArgumentError
			if !errors.As(err, &ae) || ae.Name != "window" || !strings.Contains(err.Error()+";", c.err) {
				t.Errorf("%s: error %v, want one saying %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil || from != c.from || to != c.to {
			t.Errorf("%s: [%s, %s] %v, want [%s, %s]", c.name, from, to, err, c.from, c.to)
		}
	}
}
