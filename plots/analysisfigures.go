package plots

import (
	"cmp"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/views/commmatrix"
	"github.com/macroscope-hpc/macroscope/core/views/critpath"
	"github.com/macroscope-hpc/macroscope/core/views/pop"
	"github.com/macroscope-hpc/macroscope/core/views/profile"
	"github.com/macroscope-hpc/macroscope/core/views/stragglers"
)

// The figures of the analyses' results, shared by the command line and
// the Python package: each picks what to draw from a result and draws it
// with the charts of analyses.go.

// FlatProfileFigure draws the mean exclusive and inclusive times of the
// top names of a flat profile (rows as profile.Result.Flat orders them).
func FlatProfileFigure(rows []profile.FlatRow, top int, by profile.By, opt FigureOptions) ([]byte, error) {
	rows = rows[:min(top, len(rows))]
	labels := make([]string, len(rows))
	exc, inc := make([]float64, len(rows)), make([]float64, len(rows))
	for i, row := range rows {
		labels[i], exc[i], inc[i] = row.Name.Name, row.ExclusiveMean, row.InclusiveMean
	}
	return HorizontalBars(labels, []BarSeries{
		{Name: "exclusive", Values: exc, Color: CategoryColor(0)},
		{Name: "inclusive", Values: inc, Color: CategoryColor(1)},
	}, "time per "+by.String()+" (s, mean over those that have the state)", opt)
}

// ImbalanceFigure draws, for the top names of a load imbalance, the range
// of their times over the processes, the mean and the largest, with the
// imbalance and the slowest process beside.
func ImbalanceFigure(rows []profile.ImbalanceRow, top int, metric profile.Metric, by profile.By, opt FigureOptions) ([]byte, error) {
	rows = rows[:min(top, len(rows))]
	n := len(rows)
	labels, notes := make([]string, n), make([]string, n)
	lo, mean, hi := make([]float64, n), make([]float64, n), make([]float64, n)
	for i, row := range rows {
		labels[i], lo[i], mean[i], hi[i] = row.Name.Name, row.Min, row.Mean, row.Max
		notes[i] = "×n/a"
		if !math.IsNaN(row.Imbalance) {
			notes[i] = "×" + strconv.FormatFloat(math.Round(row.Imbalance*100)/100, 'f', -1, 64)
		}
		if len(row.Top) > 0 {
			notes[i] += " " + row.Top[0][strings.LastIndexByte(row.Top[0], '/')+1:]
		}
	}
	return Ranges(labels, lo, mean, hi, notes, metric.String()+" time per "+by.String()+" (s)", opt)
}

// CommMatrixFigure draws one link type's matrix (typ; the first when
// empty) as a heat map of value ("bytes" or "count"; "" for bytes when
// every pair has sizes, else counts), on a log scale if logScale.
func CommMatrixFigure(r *commmatrix.Result, typ, value string, logScale bool, opt FigureOptions) ([]byte, error) {
	var types []string
	for _, row := range r.Rows {
		if len(types) == 0 || types[len(types)-1] != row.Type {
			types = append(types, row.Type)
		}
	}
	if len(types) == 0 {
		return nil, errs.Argument("matrix", "the trace has no links")
	}
	if typ == "" {
		typ = types[0]
	}
	var rows []commmatrix.Row
	sized := true
	for _, row := range r.Rows {
		if row.Type == typ {
			rows = append(rows, row)
			sized = sized && row.Sized > 0
		}
	}
	if len(rows) == 0 {
		return nil, errs.Argument("type", "no link of type %q (types: %v)", typ, types)
	}
	switch value {
	case "":
		value = "count"
		if sized {
			value = "bytes"
		}
	case "count", "bytes":
	default:
		return nil, errs.Argument("value", "%q is not count or bytes", value)
	}
	used := map[string]bool{}
	for _, row := range rows {
		used[row.Source], used[row.Destination] = true, true
	}
	index, labels := map[string]int{}, []string{}
	for _, g := range r.Groups {
		if used[g] {
			index[g] = len(labels)
			labels = append(labels, g)
		}
	}
	m := make([][]float64, len(labels))
	look := trace.Looker{Cancel: opt.Cancel}
	for i := range m {
		if err := look.Stopped(len(labels)); err != nil {
			return nil, err
		}
		m[i] = make([]float64, len(labels))
	}
	for _, row := range rows {
		v := float64(row.Count)
		if value == "bytes" {
			v = row.Bytes
		}
		m[index[row.Source]][index[row.Destination]] += v
	}
	short := ShortNames(labels)
	return Heatmap(short, short, m, logScale, typ+": "+value, "destination ("+r.Level+")", "source ("+r.Level+")", opt)
}

// POPFigure draws POP's table of efficiencies of one form, a column per
// run (labels).
func POPFigure(f *pop.Factors, labels []string, form pop.Form, opt FigureOptions) ([]byte, error) {
	var rows []EfficiencyRow
	for _, r := range f.Form(form) {
		depth := r.Depth
		if !r.Fraction {
			depth = 0
		}
		rows = append(rows, EfficiencyRow{Label: r.Label, Depth: depth, Fraction: r.Fraction, Values: r.Values})
	}
	return EfficiencyTable(labels, rows, opt)
}

// CriticalPathFigure draws a critical path over the resources it crosses
// (all of them when there are at most 16), coloured by what they did
// (kind "path" or ""), its time by state beside each state's mean per
// resource, for the top states (kind "states"), or the top delay costs of
// the wait states by resource and state, short- and long-term (kind
// "delays").
func CriticalPathFigure(r *critpath.Result, at *critpath.Attribution, kind string, top int, opt FigureOptions) ([]byte, error) {
	// The states with the most time on the path get colours; the rest,
	// and time in no state, grey.
	const colored = 9
	colors := map[string]color.RGBA{}
	var legend []LegendEntry
	for i, s := range at.ByState {
		c := color.RGBA{150, 150, 150, 255}
		if s.State == critpath.NoState {
			c = color.RGBA{210, 210, 210, 255}
		} else if i < colored {
			c = CategoryColor(i)
		}
		colors[s.State] = c
		if i < colored || s.State == critpath.NoState {
			legend = append(legend, LegendEntry{Label: s.State, Color: c})
		}
	}
	switch kind {
	case "states":
		shown := at.ByState[:min(top, len(at.ByState))]
		labels, on, total := make([]string, len(shown)), make([]float64, len(shown)), make([]float64, len(shown))
		n := float64(len(r.Resources))
		for i, s := range shown {
			labels[i], on[i], total[i] = s.State, s.OnPath.Seconds(), s.Total.Seconds()/n
		}
		return HorizontalBars(labels, []BarSeries{
			{Name: "on the critical path", Values: on, Color: CategoryColor(0)},
			{Name: "mean per resource", Values: total, Color: CategoryColor(1)},
		}, "time (s)", opt)
	case "delays":
		return delayCostsFigure(r, top, opt)
	case "", "path":
	default:
		return nil, errs.Argument("type", "%q is not path, states or delays", kind)
	}
	// One clock: times from the trace's start, in the unit that reads the
	// path's extent (a 2 ms GPU path in µs), as every figure of the trace.
	origin := r.TraceStart()
	unit, xLabel := TimeAxis(origin, r.Start, r.End)
	sec := func(t trace.Time) float64 { return (t - origin).Seconds() / unit }
	// The rows: every resource, or with many, those the path crosses.
	spans := r.Spans()
	short := ShortNames(r.Resources)
	onPath := make([]bool, len(r.Resources))
	for _, s := range r.Segments {
		onPath[s.Resource] = true
	}
	rowOf := make([]int, len(r.Resources))
	var labels []string
	var rows [][2]float64
	for i := range r.Resources {
		rowOf[i] = -1
		if len(r.Resources) <= 16 || onPath[i] {
			rowOf[i] = len(labels)
			labels = append(labels, short[i])
			rows = append(rows, [2]float64{sec(spans[i][0]), sec(spans[i][1])})
		}
	}
	segs := make([]PathSegment, len(at.Pieces))
	for i, p := range at.Pieces {
		segs[i] = PathSegment{Row: rowOf[p.Resource], Start: sec(p.Start), End: sec(p.End), Color: colors[p.State]}
	}
	var jumps [][3]float64
	for _, s := range r.Segments {
		if s.From >= 0 {
			jumps = append(jumps, [3]float64{sec(s.Start), float64(rowOf[s.From]), float64(rowOf[s.Resource])})
		}
	}
	x0, x1 := sec(r.Start), sec(r.End)
	if x1 <= x0 {
		x1 = x0 + 1e-9
	}
	return PathChart(labels, rows, segs, jumps, legend, x0, x1, xLabel, opt)
}

// delayCostsFigure draws the top delay costs, added up over the kinds of
// wait states they caused, by resource and state.
func delayCostsFigure(r *critpath.Result, top int, opt FigureOptions) ([]byte, error) {
	d := r.DelayCosts()
	if d == nil {
		return nil, errs.Argument("type", "this critical path was computed without the states: no delay costs")
	}
	short := ShortNames(r.Resources)
	type key struct {
		res   int32
		state string
	}
	var order []key
	sums := map[key]*[2]float64{}
	for _, c := range d.Costs {
		k := key{c.Resource, c.State}
		if sums[k] == nil {
			sums[k] = new([2]float64)
			order = append(order, k)
		}
		sums[k][0] += c.ShortTerm / 1e9
		sums[k][1] += c.LongTerm / 1e9
	}
	slices.SortStableFunc(order, func(x, y key) int {
		return cmp.Compare(sums[y][0]+sums[y][1], sums[x][0]+sums[x][1])
	})
	order = order[:min(top, len(order))]
	labels, st, lt := make([]string, len(order)), make([]float64, len(order)), make([]float64, len(order))
	for i, k := range order {
		labels[i], st[i], lt[i] = short[k.res]+": "+k.state, sums[k][0], sums[k][1]
	}
	return HorizontalBars(labels, []BarSeries{
		{Name: "short-term delay cost", Values: st, Color: CategoryColor(0)},
		{Name: "long-term delay cost", Values: lt, Color: CategoryColor(1)},
	}, "waiting caused (s)", opt)
}

// StragglersFigure draws the waiting the top resources caused when last
// (kind "bars" or ""), or every member's delay after each instance's
// first arrival (kind "heatmap", on a log scale if logScale).
func StragglersFigure(r *stragglers.Result, kind string, top int, logScale bool, opt FigureOptions) ([]byte, error) {
	short := ShortNames(r.Resources)
	switch kind {
	case "", "bars":
		by := r.ByResource()
		shown := by[:min(top, len(by))]
		index := map[string]int{}
		for i, res := range r.Resources {
			index[res] = i
		}
		labels, caused := make([]string, len(shown)), make([]float64, len(shown))
		for i, b := range shown {
			labels[i] = short[index[b.Resource]] + " (" + strconv.Itoa(b.TimesLast) + "x)"
			caused[i] = b.WaitCaused.Seconds()
		}
		return HorizontalBars(labels, []BarSeries{{Name: "wait caused", Values: caused, Color: CategoryColor(0)}},
			"waiting caused when arriving last (s); (n x): times last", opt)
	case "heatmap":
		rows := make([]string, len(r.Instances))
		m := make([][]float64, len(r.Instances))
		for i, in := range r.Instances {
			rows[i] = strconv.Itoa(i) + " " + in.Name
			m[i] = make([]float64, len(r.Resources))
			first := in.Arrivals[0]
			for _, t := range in.Arrivals {
				first = min(first, t)
			}
			for k, res := range in.Members {
				m[i][res] = (in.Arrivals[k] - first).Seconds()
			}
		}
		return Heatmap(rows, short, m, logScale, "delay after the first arrival (s)", "resource", "instance", opt)
	}
	return nil, errs.Argument("type", "%q is not bars or heatmap", kind)
}

// ShortNames returns, for each path, its shortest suffix of whole names
// that no other path ends with ("MPI Rank 3/Master thread" where every
// rank has a "Master thread").
func ShortNames(paths []string) []string {
	out := make([]string, len(paths))
	named := make([]bool, len(paths)) // out[i] is "" for an empty path: not a mark
	parts := make([][]string, len(paths))
	for i, p := range paths {
		parts[i] = strings.Split(p, "/")
	}
	for k := 1; ; k++ {
		count := map[string]int{}
		suffix := func(i int) string {
			ps := parts[i]
			return strings.Join(ps[max(0, len(ps)-k):], "/")
		}
		for i := range paths {
			count[suffix(i)]++
		}
		done := true
		for i := range paths {
			if !named[i] && (count[suffix(i)] == 1 || k >= len(parts[i])) {
				out[i], named[i] = suffix(i), true
			}
			if !named[i] {
				done = false
			}
		}
		if done {
			return out
		}
	}
}
