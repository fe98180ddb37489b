package plots

import (
	"image/color"
	"slices"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/moments"
)

// RootLabel labels the root of the hierarchy, whose path is empty.
const RootLabel = "(all)"

// ResultRows lays out rows of moments (moments.Result.Rows) for
// MomentsFigure, with means measured from origin:
//
//   - ByResource: one row per resource labelled by its name, grouped by
//     the deepest level of the hierarchy whose groups hold two rows on
//     average (machines rather than one-process hosts);
//   - ByState: one row per resource and state labelled "name state",
//     grouped by state (states in order of appearance, resources in
//     hierarchy order within each), the norm bar in the state's colour
//     (named by the legend): a dense display shows each state's area;
//   - ByNode: one row per node labelled by its path, grouped by the
//     subtrees of the root's children.
//
// A row adding up several resources (a node) has its norm divided by
// their number, so that its bar is the mean busy time of a resource and
// fits on the time axis; its other moments are those of the sum.
// Groups are returned only when there are several.
func ResultRows(rows []moments.Row, by moments.By, origin trace.Time) ([]MomentRow, []RowGroup, []LegendEntry) {
	out := make([]MomentRow, len(rows))
	keys := make([]string, len(rows)) // group of each row
	stateColor, legend := StateColors(rows)
	depth := rowAncestorDepth(rows)
	for i, r := range rows {
		m := r.Sums.MomentsFrom(origin)
		if r.Resources > 1 {
			m.M0 /= float64(r.Resources)
		}
		out[i] = MomentRow{Label: r.Name, Moments: m}
		switch by {
		case moments.ByResource:
			keys[i] = rowAncestor(r.Path, depth)
		case moments.ByState:
			out[i].Label = r.Name + " " + r.State
			keys[i] = r.State
			out[i].Color = stateColor[r.State]
		case moments.ByNode:
			out[i].Label = rowGroupLabel(r.Path)
			keys[i] = rowAncestor(r.Path, 1)
		}
	}
	if by == moments.ByState {
		// State by state: a stable sort keeps the hierarchy order within.
		rank := map[string]int{}
		for i, e := range legend {
			rank[e.Label] = i
		}
		order := make([]int, len(out))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return rank[keys[a]] - rank[keys[b]] })
		sorted, sortedKeys := make([]MomentRow, len(out)), make([]string, len(out))
		for i, j := range order {
			sorted[i], sortedKeys[i] = out[j], keys[j]
		}
		out, keys = sorted, sortedKeys
	}
	return out, RunGroups(keys), legend
}

// StateColors gives each state of rows a colour, in order of appearance,
// and the legend naming them; rows without a state get none. When the
// rows hold more states than a figure colours apart
// (micro.LegibleStates), those with the least busy time are drawn as
// "other", one legend entry after the others.
func StateColors(rows []moments.Row) (map[string]color.RGBA, []LegendEntry) {
	colors := map[string]color.RGBA{}
	var legend []LegendEntry
	busy := map[string]float64{}
	for _, r := range rows {
		if r.State == "" {
			continue
		}
		busy[r.State] += r.Sums.Busy().Seconds()
		if _, ok := colors[r.State]; ok {
			continue
		}
		// Colour 0 is the skew line's: skip it.
		clr := CategoryColor(len(colors) + 1)
		colors[r.State] = clr
		legend = append(legend, LegendEntry{Label: r.State, Color: clr})
	}
	names := make([]string, len(legend))
	shares := make([]float64, len(legend))
	for i, e := range legend {
		names[i], shares[i] = e.Label, busy[e.Label]
	}
	g := GroupSmallest(names, shares, nil, nil)
	if g.Other < 0 {
		return colors, legend
	}
	kept := legend[:0]
	for i, e := range legend {
		if g.Of[i] == g.Other {
			colors[e.Label] = OtherColor
		} else {
			kept = append(kept, e)
		}
	}
	return colors, append(kept, LegendEntry{Label: OtherName, Color: OtherColor})
}

// RunGroups groups the runs of equal keys, labelled by the key (the root
// label for an empty one); it returns nil for fewer than two groups.
func RunGroups(keys []string) []RowGroup {
	var groups []RowGroup
	for i, k := range keys {
		if n := len(groups); n > 0 && i > 0 && keys[i-1] == k {
			groups[n-1].End = i + 1
			continue
		}
		groups = append(groups, RowGroup{Label: rowGroupLabel(k), Start: i, End: i + 1})
	}
	if len(groups) < 2 {
		return nil
	}
	return groups
}

// rowAncestor returns the first depth names of path.
func rowAncestor(path string, depth int) string {
	if depth <= 0 || path == "" {
		return ""
	}
	names := strings.SplitN(path, moments.PathSep, depth+1)
	return strings.Join(names[:min(depth, len(names))], moments.PathSep)
}

// rowAncestorDepth chooses the depth of the ancestors that group resource
// rows: the deepest whose groups hold at least two rows on average, above
// the rows themselves.
func rowAncestorDepth(rows []moments.Row) int {
	deepest := 0
	for _, r := range rows {
		if r.Path != "" {
			deepest = max(deepest, strings.Count(r.Path, moments.PathSep))
		}
	}
	for d := deepest; d > 0; d-- {
		runs := 0
		for i, r := range rows {
			if i == 0 || rowAncestor(r.Path, d) != rowAncestor(rows[i-1].Path, d) {
				runs++
			}
		}
		if 2*runs <= len(rows) {
			return d
		}
	}
	return 0
}

func rowGroupLabel(path string) string {
	if path == "" {
		return RootLabel
	}
	return path
}

// WindowAxis returns the time axis of a moment display of the window
// [start, end) in seconds from origin: the window itself, so that the axis
// starts at the window's start (labelled 0 on a relative axis) and ends at
// its end. The moments describe activity inside the window; marks that
// reach past it (a mean near an edge with a wide deviation) are cut at
// its edges rather than widening the axis beyond what was analysed.
func WindowAxis(start, end, origin trace.Time) (lo, hi float64) {
	return (start - origin).Seconds(), (end - origin).Seconds()
}

// inUnit expresses the moments of fig and the time range of opt, in
// seconds, in unit seconds: the unit TimeAxis reads the window in, the
// one the model's figures of the same window use (a 40 ms trace in ms,
// not 0.000 to 0.040 s). Every moment is a time (m0 a length, m1 an
// instant, m2 and the signed m3 spreads around it), so one factor scales
// them all.
func inUnit(fig []MomentRow, opt *MomentsOptions, unit float64) {
	if unit == 1 {
		return
	}
	for i := range fig {
		m := &fig[i].Moments
		m.M0, m.M1, m.M2, m.M3 = m.M0/unit, m.M1/unit, m.M2/unit, m.M3/unit
	}
	opt.TimeMin, opt.TimeMax = opt.TimeMin/unit, opt.TimeMax/unit
}

// ResultFigure draws rows of moments of kind by (moments.Result.Rows)
// analysed over the window [start, end): ResultRows laid out on a time
// axis holding the window and every mark, counting from opt.Origin, the
// trace's first instant. opt sets the size, format and title; its rows,
// groups, time range and legend are filled in.
func ResultFigure(rows []moments.Row, by moments.By, start, end trace.Time, opt MomentsOptions) ([]byte, error) {
	if len(rows) == 0 {
		return nil, errs.Argument("rows", "there are no %s rows to draw", by)
	}
	origin := opt.Origin
	unit, label := TimeAxis(origin, start, end)
	fig, groups, legend := ResultRows(rows, by, origin)
	if by == moments.ByState {
		// ResultRows sorted the rows by state, stably: sort their states so.
		states := make([]string, len(fig))
		rank := map[string]int{}
		for i, e := range legend {
			rank[e.Label] = i
		}
		for i, r := range rows {
			states[i] = r.State
		}
		slices.SortStableFunc(states, func(a, b string) int { return rank[a] - rank[b] })
		Recolor(fig, states, legend, opt.StateColors)
	}
	opt.TimeMin, opt.TimeMax = WindowAxis(start, end, origin)
	opt.TimeLabel, opt.Groups, opt.Legend = label, groups, legend
	inUnit(fig, &opt, unit)
	return MomentsFigure(fig, opt)
}

// Recolor gives the rows of a moment display drawn in a state's colour
// (by state: states[i] is row i's state, "" for none) and their legend
// entries the colours of colors, where it names the state: the trace's
// own colours and the user's overrides. States the legend does not name
// (those drawn as "other", see StateColors) keep the colour of "other".
func Recolor(fig []MomentRow, states []string, legend []LegendEntry, colors map[string]color.RGBA) {
	if len(colors) == 0 {
		return
	}
	named := map[string]bool{}
	for _, e := range legend {
		named[e.Label] = true
	}
	for i := range fig {
		if c, ok := colors[states[i]]; ok && named[states[i]] && fig[i].Color != (color.RGBA{}) {
			fig[i].Color = c
		}
	}
	for i := range legend {
		if c, ok := colors[legend[i].Label]; ok {
			legend[i].Color = c
		}
	}
}

// AggregateFigure draws the moments of the aggregates of an aggregation
// (rows as moments.Aggregates gives them, by node or by state), each
// node's aggregates on a line of their own, side by side in time like the
// blocks of the overview (by state: one line per node and state),
// grouped by the root's children; [start, end] is the model's window.
func AggregateFigure(rows []moments.Row, by moments.By, start, end trace.Time, opt MomentsOptions) ([]byte, error) {
	if len(rows) == 0 {
		return nil, errs.Argument("rows", "there are no aggregate rows to draw")
	}
	origin := opt.Origin
	unit, label := TimeAxis(origin, start, end)
	// By node: rows in their order, norms per resource.
	fig, _, _ := ResultRows(rows, moments.ByNode, origin)
	colors, legend := StateColors(rows)
	lines := make([]int, len(rows))
	keys := []string{} // node of each line
	lineOf := map[[2]string]int{}
	for i, r := range rows {
		// Parts come sorted by node: a node's lines are consecutive.
		k := [2]string{r.Path, r.State}
		l, ok := lineOf[k]
		if !ok {
			l = len(keys)
			lineOf[k] = l
			keys = append(keys, r.Path)
		}
		lines[i] = l
		fig[i].Label = r.Path
		if by == moments.ByState {
			fig[i].Label, fig[i].Color = r.State, colors[r.State]
		}
	}
	if by == moments.ByState {
		states := make([]string, len(rows))
		for i, r := range rows {
			states[i] = r.State
		}
		Recolor(fig, states, legend, opt.StateColors)
	}
	opt.TimeMin, opt.TimeMax = WindowAxis(start, end, origin)
	opt.TimeLabel, opt.Lines, opt.Legend = label, lines, legend
	inUnit(fig, &opt, unit)
	if by == moments.ByResource || by == moments.ByNode {
		// One line per node: group them by the root's children.
		for l, k := range keys {
			keys[l], _, _ = strings.Cut(k, moments.PathSep)
		}
	}
	opt.Groups = RunGroups(keys)
	return MomentsFigure(fig, opt)
}
