package compare

import (
	"errors"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

func secs(s float64) *trace.Time { t := sec(s); return &t }

// TestWindow: start and end count from each run's own start (Stretch,
// Start) or the earliest run's (Absolute); the cells are those of the
// window, checked against the states by hand.
func TestWindow(t *testing.T) {
	// a: 10..14 s, Compute then Wait from 12 s; b: 3..5 s, Compute then
	// Wait from 4 s.
	a := tiny(14, span{"h/r0", "Compute", 10, 12}, span{"h/r0", "Wait", 12, 14})
	b := tiny(5, span{"h/r0", "Compute", 3, 4}, span{"h/r0", "Wait", 4, 5})
	a.Start, b.Start = 10*trace.Second, 3*trace.Second
	runs := []Input{{Name: "A", Trace: a}, {Name: "B", Trace: b}}
	cases := []struct {
		method     Method
		start, end *trace.Time
		axis       [2]float64
		// the cells of A and B in the window's two slices
		a, b [2]map[string]float64
	}{
		// Stretch over [1, 2] s of each run: A 11..12 s, B 4..5 s.
		{Stretch, secs(1), secs(2), [2]float64{11, 12},
			[2]map[string]float64{{"Compute": 1}, {"Compute": 1}},
			[2]map[string]float64{{"Wait": 1}, {"Wait": 1}}},
		// Stretch from 1 s to each run's end: A 11..14, B 4..5.
		{Stretch, secs(1), nil, [2]float64{11, 14},
			[2]map[string]float64{{"Compute": 1.0 / 1.5 * 1, "Wait": 0.5 / 1.5}, {"Wait": 1}},
			[2]map[string]float64{{"Wait": 1}, {"Wait": 1}}},
		// Start over [0.5, 2.5] s from each start: B ends at 2 s.
		{Start, secs(0.5), secs(2.5), [2]float64{0.5, 2.5},
			[2]map[string]float64{{"Compute": 1}, {"Compute": 0.5, "Wait": 0.5}},
			[2]map[string]float64{{"Compute": 0.5, "Wait": 0.5}, {"Wait": 0.5, Absent: 0.5}}},
		// Absolute from 1 s after the earliest start (3 s): 4..12 s.
		{Absolute, secs(1), secs(9), [2]float64{4, 12},
			[2]map[string]float64{{Absent: 1}, {"Compute": 0.5, Absent: 0.5}},
			[2]map[string]float64{{"Wait": 0.25, Absent: 0.75}, {Absent: 1}}},
	}
	for _, c := range cases {
		set, err := Build(runs, Options{Slices: 2, Align: Align{Method: c.method}, Start: c.start, End: c.end}, trace.ReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", c.method, err)
		}
		if c.method == Stretch {
			if set.Runs[0].WindowStart != sec(c.axis[0]) || set.Runs[0].WindowEnd != sec(c.axis[1]) {
				t.Errorf("%s: A's window %v..%v, want %v", c.method, set.Runs[0].WindowStart, set.Runs[0].WindowEnd, c.axis)
			}
		} else if set.Start != sec(c.axis[0]) || set.End != sec(c.axis[1]) {
			t.Errorf("%s: axis %v..%v, want %v", c.method, set.Start, set.End, c.axis)
		}
		for k := range 2 {
			if got := cellOf(set, 0, "h/r0", k); !sameCell(got, c.a[k]) {
				t.Errorf("%s: A slice %d: %v, want %v", c.method, k, got, c.a[k])
			}
			if got := cellOf(set, 1, "h/r0", k); !sameCell(got, c.b[k]) {
				t.Errorf("%s: B slice %d: %v, want %v", c.method, k, got, c.b[k])
			}
		}
	}
	// Refused: markers, an empty window, a window before the start, models.
	for _, o := range []Options{
		{Slices: 2, Align: Align{Method: Markers}, Start: secs(1)},
		{Slices: 2, Start: secs(2), End: secs(1)},
		{Slices: 2, Start: secs(-1)},
	} {
		var ae *errs.ArgumentError
		if _, err := Build(runs, o, trace.ReadOptions{}); !errors.As(err, &ae) {
			t.Errorf("%+v: %v, want an argument error", o, err)
		}
	}
}

// TestWindowGivesDuration: a run whose events all sit at one instant has
// no extent to cut; a window gives it one.
func TestWindowGivesDuration(t *testing.T) {
	good := tiny(2, span{"h/r0", "Compute", 0, 2})
	instant := tiny(0, span{"h/r0", "Compute", 0, 0})
	runs := []Input{{Name: "good", Trace: good}, {Name: "instant", Trace: instant}}
	for _, m := range []Method{Stretch, Start} {
		_, err := Build(runs, Options{Slices: 2, Align: Align{Method: m}}, trace.ReadOptions{})
		if err == nil || !strings.Contains(err.Error(), `run "instant"`) || !strings.Contains(err.Error(), "no duration") {
			t.Errorf("%s without a window: %v", m, err)
		}
		set, err := Build(runs, Options{Slices: 2, Align: Align{Method: m}, Start: secs(0), End: secs(1)}, trace.ReadOptions{})
		if err != nil {
			t.Fatalf("%s with a window: %v", m, err)
		}
		if got := cellOf(set, 0, "h/r0", 1); !sameCell(got, map[string]float64{"Compute": 1}) {
			t.Errorf("%s: good's slice 1: %v", m, got)
		}
	}
}

// TestAutoAlign: runs within 5% of each other's duration are aligned by
// their starts (a change local in time stays local), others stretched;
// the choice is said.
func TestAutoAlign(t *testing.T) {
	a := tiny(10, span{"h/r0", "Compute", 0, 10})
	near := tiny(10.4, span{"h/r0", "Compute", 0, 10.4})
	far := tiny(5, span{"h/r0", "Compute", 0, 5})
	cases := []struct {
		b    *trace.Trace
		want Method
		says string
	}{
		{near, Start, `chose "start": the runs' durations (10 s to 10.4 s) are within 5%`},
		{far, Stretch, `chose "stretch": the runs' durations (5 s to 10 s) differ by more than 5%`},
	}
	for _, c := range cases {
		set, err := Build([]Input{{Name: "A", Trace: a}, {Name: "B", Trace: c.b}}, Options{Slices: 4, Align: Align{Method: Auto}}, trace.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if set.Align.Method != c.want || !strings.Contains(set.AlignReason, c.says) {
			t.Errorf("auto chose %s (%q), want %s (%q)", set.Align.Method, set.AlignReason, c.want, c.says)
		}
		// The model is that of the method chosen, given.
		given, err := Build([]Input{{Name: "A", Trace: a}, {Name: "B", Trace: c.b}}, Options{Slices: 4, Align: Align{Method: c.want}}, trace.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if given.AlignReason != "" || len(given.Values) != len(set.Values) || given.Start != set.Start || given.End != set.End {
			t.Fatalf("auto differs from %s: axis %v..%v against %v..%v", c.want, set.Start, set.End, given.Start, given.End)
		}
		for i := range set.Values {
			if set.Values[i] != given.Values[i] {
				t.Fatalf("auto differs from %s at value %d", c.want, i)
			}
		}
	}
}

// TestMissingNote: a run lacking resources of the others (the smaller run
// of a scaling study) says which, and what their cells are.
func TestMissingNote(t *testing.T) {
	four := tiny(2, span{"h/r0", "Compute", 0, 2}, span{"h/r1", "Compute", 0, 2})
	eight := tiny(1, span{"h/r0", "Compute", 0, 1}, span{"h/r1", "Compute", 0, 1},
		span{"h/r2", "Compute", 0, 1}, span{"h/r3", "Compute", 0, 1})
	set, err := Build([]Input{{Name: "2", Trace: four}, {Name: "4", Trace: eight}}, Options{Slices: 2}, trace.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := "lacks 2 of the 4 resources of the runs: h/r2, h/r3; their cells are (absent)"
	if len(set.Runs[0].Notes) != 1 || !strings.HasPrefix(set.Runs[0].Notes[0], want) || len(set.Runs[1].Notes) != 0 {
		t.Errorf("notes %q, %q; want %q first", set.Runs[0].Notes, set.Runs[1].Notes, want)
	}
}

// TestAutoDetails: align="auto" with a window's end compares every run
// over the same seconds (Start, whatever the durations, a run without
// duration among them) and says so; it keeps a length given; it says
// when the length goes unused; a run without duration given a start
// alone is told to give an end; models are refused with auto's reason.
func TestAutoDetails(t *testing.T) {
	good := tiny(2, span{"h/r0", "Compute", 0, 2})
	instant := tiny(0, span{"h/r0", "Compute", 0, 0})
	runs := []Input{{Name: "good", Trace: good}, {Name: "instant", Trace: instant}}
	for _, w := range [][2]*trace.Time{{secs(0), secs(1)}, {nil, secs(1)}} {
		set, err := Build(runs, Options{Slices: 2, Align: Align{Method: Auto}, Start: w[0], End: w[1]}, trace.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if set.Align.Method != Start || !strings.Contains(set.AlignReason, `chose "start": the window ends 1 s after each run's start`) {
			t.Errorf("auto with a window: %s %q", set.Align.Method, set.AlignReason)
		}
		given, err := Build(runs, Options{Slices: 2, Align: Align{Method: Start}, Start: w[0], End: w[1]}, trace.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !sameValues(set.Values, given.Values) || set.Start != given.Start || set.End != given.End {
			t.Errorf("auto with a window differs from start")
		}
		if got := cellOf(set, 0, "h/r0", 1); !sameCell(got, map[string]float64{"Compute": 1}) {
			t.Errorf("good's slice 1: %v", got)
		}
	}
	for _, m := range []Method{Stretch, Start, Auto} {
		_, err := Build(runs, Options{Slices: 2, Align: Align{Method: m}, Start: secs(0.5)}, trace.ReadOptions{})
		if err == nil || !strings.Contains(err.Error(), `run "instant"`) || !strings.Contains(err.Error(), "a start without an end leaves no window: give an end (end=) too") {
			t.Errorf("%s, a start alone on a run without duration: %v", m, err)
		}
	}

	a := tiny(10, span{"h/r0", "Compute", 0, 10})
	near := tiny(10.4, span{"h/r0", "Compute", 0, 10.4})
	far := tiny(5, span{"h/r0", "Compute", 0, 5})
	for _, l := range []Length{{Seconds: 5}, {Rule: "min"}} {
		pair := []Input{{Name: "A", Trace: a}, {Name: "B", Trace: near}}
		set, err := Build(pair, Options{Slices: 4, Align: Align{Method: Auto, Length: l}}, trace.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		given, err := Build(pair, Options{Slices: 4, Align: Align{Method: Start, Length: l}}, trace.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]trace.Time{"": sec(5), "min": sec(10)}[l.Rule]
		if set.End != want || given.End != want || !sameValues(set.Values, given.Values) || !strings.Contains(set.AlignReason, "over the") {
			t.Errorf("auto, length %+v: axis ends at %v (start: %v), want %v; %q", l, set.End, given.End, want, set.AlignReason)
		}
		set, err = Build([]Input{{Name: "A", Trace: a}, {Name: "B", Trace: far}}, Options{Slices: 4, Align: Align{Method: Auto, Length: l}}, trace.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if set.Align.Method != Stretch || !strings.Contains(set.AlignReason, `applies to "start" alignment only and is not used`) {
			t.Errorf("auto stretching with length %+v: %q", l, set.AlignReason)
		}
	}

	m, err := micro.Build(a, micro.Options{Slices: 4})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Build([]Input{{Name: "A", Model: m}, {Name: "B", Trace: near}}, Options{Slices: 4, Align: Align{Method: Auto}}, trace.ReadOptions{})
	if err == nil || !strings.Contains(err.Error(), `run "A" is a model already built: align="auto" may choose "start"`) {
		t.Errorf("auto with a model: %v", err)
	}
}

func sameValues(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
