package micro

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/names"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// LeftOut is what a model left out of one kind of profiler span
// (Options.ProfilerSpans): the spans a profiler draws around the
// program's work are not work, and a figure led by "ProfilerStep" or
// "PyTorch Profiler (0)" says nothing of the program. Their time is not
// lost: it is here, slice by slice, so that the model's time and this add
// up to the time of the model that keeps them.
type LeftOut struct {
	// Role is the spans' role: trace.RoleRecording, RoleStep (with
	// RoleStepCall) or RoleDeviceAnnotation.
	Role trace.Role
	// Names are the grouped names (names.Group) of the spans with time in
	// the window, in the order of their values.
	Names []string
	// Time holds, slice by slice, what the spans' cells would have held
	// before the division that makes proportions: seconds (their own
	// time, not covered by the states nested in them, for the innermost
	// states; their time at the depth asked otherwise), or events for
	// EventCount.
	Time []float64
}

// Total is the spans' time (or events) over the window.
func (l LeftOut) Total() float64 {
	s := 0.0
	for _, v := range l.Time {
		s += v
	}
	return s
}

// leftOutRole is the role under which the model of options o leaves the
// entities of value v out: RoleStep for the steps (RoleStepCall too),
// v's own for the other profiler spans, RoleNone when v is modelled.
func (o Options) leftOutRole(v trace.Value) trace.Role {
	if o.ProfilerSpans || !v.Role.ProfilerSpan() {
		return trace.RoleNone
	}
	if v.Role == trace.RoleStepCall {
		return trace.RoleStep
	}
	return v.Role
}

// leftOutOrder orders the kinds of spans left out, as they are reported.
var leftOutOrder = []trace.Role{trace.RoleRecording, trace.RoleStep, trace.RoleDeviceAnnotation}

// leftOuts gathers what a model leaves out: by kind of span, the sums of
// their cells slice by slice (in the builder's units) and the values seen.
type leftOuts struct {
	n    int
	sums map[trace.Role][]int64
	seen map[int32]bool
}

func newLeftOuts(n int) *leftOuts {
	return &leftOuts{n: n, sums: map[trace.Role][]int64{}, seen: map[int32]bool{}}
}

// add adds d to slice k of the spans of role r, of value v.
func (l *leftOuts) add(r trace.Role, v int32, k int, d int64) {
	s := l.sums[r]
	if s == nil {
		s = make([]int64, l.n)
		l.sums[r] = s
	}
	s[k] += d
	l.seen[v] = true
}

// result returns the LeftOut of each kind of span with values seen, in
// leftOutOrder, their sums divided by scale (durations in 1/n ns: n*1e9
// seconds; counts: 1).
func (l *leftOuts) result(values []trace.Value, opt Options, scale float64) []LeftOut {
	var out []LeftOut
	for _, r := range leftOutOrder {
		s, ok := l.sums[r]
		if !ok {
			continue
		}
		lo := LeftOut{Role: r, Time: make([]float64, len(s))}
		for k, d := range s {
			lo.Time[k] = float64(d) / scale
		}
		seen := map[string]bool{}
		for i, v := range values {
			if l.seen[int32(i)] && opt.leftOutRole(v) == r {
				if g := names.GroupOf(v.Name, v.Role == trace.RoleScheduledThread); !seen[g] {
					seen[g] = true
					lo.Names = append(lo.Names, g)
				}
			}
		}
		out = append(out, lo)
	}
	return out
}

// leftOutWhat names each kind of span left out, for a person.
var leftOutWhat = map[trace.Role]string{
	trace.RoleRecording:        "the profiler's recording",
	trace.RoleStep:             "the steps",
	trace.RoleDeviceAnnotation: "the copies of the host's annotations on the GPU streams",
}

// LeftOutNote is the sentence that tells a person what model m left out
// and how to keep it (keep: the way the caller spells it, as
// `profiler_spans=True` or `--profiler-spans`); "" when nothing was.
func (m *Model) LeftOutNote(keep string) string {
	if len(m.LeftOut) == 0 {
		return ""
	}
	unit := func(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) + " s" }
	if m.Metric == EventCount {
		unit = func(x float64) string { return strconv.FormatFloat(x, 'f', 0, 64) + " events" }
	}
	var parts []string
	for _, l := range m.LeftOut {
		quoted := make([]string, 0, 4)
		for i, n := range l.Names {
			if i == 3 {
				quoted = append(quoted, fmt.Sprintf("%d more", len(l.Names)-3))
				break
			}
			quoted = append(quoted, strconv.Quote(n))
		}
		parts = append(parts, fmt.Sprintf("%s (%s), %s", leftOutWhat[l.Role], strings.Join(quoted, ", "), unit(l.Total())))
	}
	rows := ""
	if m.LeftOutRows > 0 {
		rows = fmt.Sprintf("; %d resources that held only them are not rows", m.LeftOutRows)
		if m.LeftOutRows == 1 {
			rows = "; 1 resource that held only them is not a row"
		}
	}
	return fmt.Sprintf("left out of the model, as spans around the program's work rather than work: %s%s; %s keeps them",
		strings.Join(parts, "; "), rows, keep)
}
