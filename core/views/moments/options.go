package moments

import (
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Selection says which state values count as busy.
type Selection uint8

// The selections.
const (
	// AllStates counts every state value of the selected state types.
	AllStates Selection = iota
	// Only counts the values named in Options.Values, and no other. With
	// an empty list no state counts, which with Options.Gaps measures the
	// time spent outside any state.
	Only
	// AllBut counts every value except those named in Options.Values.
	AllBut
)

var selectionNames = [...]string{"all", "only", "all but"}

func (s Selection) String() string {
	if int(s) < len(selectionNames) {
		return selectionNames[s]
	}
	return "Selection(?)"
}

// ParseSelection accepts "all", "only" and "all but" (or "all_but",
// "allbut", "except"), in any case.
func ParseSelection(s string) (Selection, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "all", "":
		return AllStates, nil
	case "only":
		return Only, nil
	case "all but", "all_but", "allbut", "except":
		return AllBut, nil
	}
	return 0, errs.Argument("select", "%q is none of all, only, all but", s)
}

// Nesting says how nested states (Pajé's PushState, OTF2's regions) make a
// resource busy. When every state counts, both give the same busy
// function: the union of the outermost states. They differ when only some
// values count, and in how busy time is shared out among values.
type Nesting uint8

// The nesting rules.
const (
	// Innermost lets the state on top of the stack decide: a resource
	// computing inside a counted "solve" state but blocked in a nested
	// "MPI_Wait" that does not count is idle while it waits. Each instant
	// belongs to one value, so per-state moments split the busy time.
	Innermost Nesting = iota
	// Union makes a resource busy while any counted state is open,
	// whatever is nested in it; the time goes to the outermost counted
	// state, so per-state moments still split the busy time. On a
	// container holding states of several selected state types, any
	// counted state of any type makes it busy; its per-state sums are
	// then each type's own, and add up to more than its busy time where
	// the types overlap.
	Union
)

var nestingNames = [...]string{"innermost", "union"}

func (n Nesting) String() string {
	if int(n) < len(nestingNames) {
		return nestingNames[n]
	}
	return "Nesting(?)"
}

// ParseNesting accepts "innermost" or "union", in any case.
func ParseNesting(s string) (Nesting, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "innermost", "":
		return Innermost, nil
	case "union":
		return Union, nil
	}
	return 0, errs.Argument("nesting", "%q is neither innermost nor union", s)
}

// NoStateName labels the per-state sums of the time spent in no state
// (see Options.Gaps); their StateSums.Value is trace.None.
const NoStateName = "(no state)"

// Options choose what "busy" means and over which window.
//
// Resources are the containers whose type holds a selected state type.
// A resource's busy function is 0 or 1 at every instant. When containers
// hold states of several selected state types, each (container, state
// type) pair is a resource of its own with Innermost nesting, and with
// Union nesting the container is busy while any busy state of any type is
// open (see statetypes.go). Select a single type for one resource per
// container with either rule.
type Options struct {
	// Select and Values choose the busy state values by name, as the
	// file writes it or grouped as the legend shows it (names.PossibleGroups:
	// the groups that need the trace's other names too): all of them
	// (the default, Values must be empty), only the listed ones, or all
	// but the listed ones.
	Select Selection
	Values []string
	// StateTypes restricts the analysis to states of these type names;
	// empty means every state type.
	StateTypes []string
	// Nesting says how nested states count (default Innermost).
	Nesting Nesting
	// Gaps also counts as busy the time a resource spends in no state of
	// the selected type during its life: the computation between MPI
	// calls in a trace that only records MPI states, for instance. It
	// needs a single selected state type per resource type.
	Gaps bool
	// Start and End bound the window [Start, End) that clips every busy
	// interval; nil means the trace's start or end.
	Start, End *trace.Time
	// Relative says that Start and End count from the trace's first
	// instant (trace.Window), as the front ends take them; Compute
	// resolves them, and an Accumulator wants them resolved (Resolve).
	Relative bool
	// ByState also keeps one Sums per resource and state: per state type
	// and grouped name (names.Group), the values whose names group alike
	// adding up.
	ByState bool
	// Cancel, once closed, stops Compute and Aggregates on a trace in
	// memory, which return trace.ErrComputationCanceled and no result (a
	// read is stopped by its trace.ReadOptions.Cancel instead). Nil:
	// never.
	Cancel <-chan struct{}
}

func (o *Options) validate() error {
	switch o.Select {
	case AllStates:
		if len(o.Values) > 0 {
			return errs.Argument("values", "state values %q are listed but the selection is %q; use only or all but", o.Values, o.Select)
		}
	case Only:
		if len(o.Values) == 0 && !o.Gaps {
			return errs.Argument("values", "no state value is listed and gaps are off: nothing would count as busy")
		}
	case AllBut:
	default:
		return errs.Argument("select", "unknown selection %d", o.Select)
	}
	if o.Nesting > Union {
		return errs.Argument("nesting", "unknown nesting rule %d", o.Nesting)
	}
	if o.Relative && (o.Start != nil || o.End != nil) {
		return errs.Argument("window", "a window counting from the trace's start needs the trace's extent: resolve it first (Options.Resolve)")
	}
	if o.Start != nil && o.End != nil && *o.End <= *o.Start {
		return errs.Argument("window", "empty time window [%s, %s) s", *o.Start, *o.End)
	}
	return nil
}

// Resolve returns the options with the window of a trace that spans
// [first, last] on its clock: Start and End made instants of the trace's
// clock when they count from its start (Relative), checked against the
// trace (trace.Window).
func (o Options) Resolve(first, last trace.Time) (Options, error) {
	if !o.Relative {
		return o, nil
	}
	o.Relative = false
	if o.Start == nil && o.End == nil {
		return o, nil
	}
	start, end, err := trace.Window(o.Start, o.End, first, last)
	if err != nil {
		return o, err
	}
	o.Start, o.End = &start, &end
	return o, nil
}
