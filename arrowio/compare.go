package arrowio

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/core/views/compare"
)

// WideRuns is the most runs whose proportions the differences table
// spreads into columns of their own (prop:<run>:<state>); the long
// proportions table has them all.
const WideRuns = 8

// compareMeta describes a comparison in a table's schema metadata.
func compareMeta(s *compare.Set) map[string]string {
	names := make([]string, len(s.Runs))
	labels := make([]string, len(s.Runs))
	for i, r := range s.Runs {
		names[i], labels[i] = r.Name, r.Label
	}
	return map[string]string{
		"macroscope.compare.align":     string(s.Align.Method),
		"macroscope.compare.placement": string(s.Placement),
		"macroscope.compare.runs":      strings.Join(names, "\x1f"),
		"macroscope.compare.labels":    strings.Join(labels, "\x1f"),
		"macroscope.compare.reference": s.Runs[s.Reference].Name,
		"macroscope.slices":            strconv.Itoa(s.Slices),
		"macroscope.start":             s.Start.String(),
		"macroscope.end":               s.End.String(),
		"macroscope.origin":            s.Origin().String(),
	}
}

// DifferencesTable lists the rows of a differences table in its order:
// the footprint (node path, depth, slices, start and end on the common
// axis in seconds, the overview's rows it covers, leaves, cells of one
// run, runs present), whether the optimum keeps the runs apart there
// (split), the measures (mass, divergence, divergence_cells,
// mass_divergence, score, score_share, outlier, outlier_score,
// outlier_run, divergence_between, divergence_within), the test
// (statistic, floor, excess, p_value, p_min, permutations, outlier_p,
// outlier_floor, p_adjusted, outlier_p_adjusted, reported), the state
// that moved most (top_state, top_delta) and, for up to WideRuns runs,
// each run's proportion of each state (prop:<run>:<state>).
func DifferencesTable(s *compare.Set, tab *compare.Table, mem memory.Allocator) arrow.RecordBatch {
	n := len(tab.Rows)
	R, X := s.NumRuns(), len(s.States)
	node, outRun := make([]string, n), make([]string, n)
	ints := map[string][]int32{}
	for _, k := range []string{"rank", "depth", "first_slice", "last_slice", "row_first", "row_last", "leaves", "runs_present", "permutations"} {
		ints[k] = make([]int32, n)
	}
	floats := map[string][]float64{}
	floatNames := []string{"start", "end", "from", "to", "cells", "mass", "divergence", "divergence_cells", "mass_divergence", "presence_divergence",
		"present_share", "divergence_present", "present_score", "score", "score_share", "outlier", "outlier_score", "divergence_between", "divergence_within", "statistic", "floor", "excess",
		"p_value", "p_min", "outlier_p", "outlier_floor", "p_adjusted", "outlier_p_adjusted", "top_delta"}
	for _, k := range floatNames {
		floats[k] = make([]float64, n)
	}
	split, reported := make([]bool, n), make([]bool, n)
	top := make([]int32, n)
	wide := R <= WideRuns
	var props [][]float64
	if wide {
		props = make([][]float64, R*X)
		for i := range props {
			props[i] = make([]float64, n)
		}
	}
	origin := s.Origin()
	for i, d := range tab.Rows {
		node[i] = s.Resources.Path(d.Node, PathSep)
		ints["rank"][i] = int32(i)
		ints["depth"][i] = s.Resources.Depth[d.Node]
		ints["first_slice"][i], ints["last_slice"][i] = d.First, d.Last
		ints["row_first"][i], ints["row_last"][i] = s.Resources.LeafLo[d.Node], s.Resources.LeafHi[d.Node]-1
		ints["leaves"][i] = int32(d.Leaves)
		ints["runs_present"][i] = int32(d.RunsPresent)
		ints["permutations"][i] = int32(d.Test.Permutations)
		split[i], reported[i] = d.Split, d.Test.Reported
		first, last := s.SliceStart(int(d.First)), s.SliceStart(int(d.Last)+1)
		for k, v := range map[string]float64{"start": first.Seconds(), "end": last.Seconds(),
			"from": (first - origin).Seconds(), "to": (last - origin).Seconds(),
			"cells": d.Cells, "mass": d.Mass, "divergence": d.Divergence, "divergence_cells": d.CellDivergence,
			"mass_divergence": d.MassDivergence, "presence_divergence": d.PresenceDivergence, "present_share": d.PresentShare,
			"divergence_present": d.PresentDivergence, "present_score": d.PresentScore, "score": d.Score, "score_share": d.ScoreShare, "outlier": d.Outlier,
			"outlier_score": d.OutlierScore, "divergence_between": d.Between, "divergence_within": d.Within,
			"statistic": d.Test.Statistic, "floor": d.Test.Floor, "excess": d.Test.Excess, "p_value": d.Test.PValue,
			"p_min": d.Test.PMin, "outlier_p": d.Test.OutlierP, "outlier_floor": d.Test.OutlierFloor,
			"p_adjusted": d.Test.PAdjusted, "outlier_p_adjusted": d.Test.OutlierPAdjusted, "top_delta": d.TopDelta} {
			floats[k][i] = v
		}
		if d.OutlierRun >= 0 {
			if tab.Grouped {
				outRun[i] = tab.Groups[d.OutlierRun]
			} else {
				outRun[i] = s.Runs[d.OutlierRun].Name
			}
		}
		top[i] = int32(d.TopState)
		if wide {
			for r := 0; r < R; r++ {
				for x := 0; x < X; x++ {
					props[r*X+x][i] = d.Props[r][x]
				}
			}
		}
	}
	c := newColumns(mem, n)
	c.int32s("rank", ints["rank"])
	c.strings("node", node)
	for _, k := range []string{"depth", "first_slice", "last_slice"} {
		c.int32s(k, ints[k])
	}
	c.float64s("start", floats["start"])
	c.float64s("end", floats["end"])
	c.float64s("from", floats["from"])
	c.float64s("to", floats["to"])
	for _, k := range []string{"row_first", "row_last", "leaves"} {
		c.int32s(k, ints[k])
	}
	c.float64s("cells", floats["cells"])
	c.int32s("runs_present", ints["runs_present"])
	c.bools("split", split)
	for _, k := range []string{"mass", "divergence", "divergence_cells", "mass_divergence", "presence_divergence", "present_share",
		"divergence_present", "present_score", "score", "score_share", "outlier", "outlier_score"} {
		c.optionalFloat64s(k, floats[k])
	}
	c.optionalStrings("outlier_run", outRun)
	for _, k := range []string{"divergence_between", "divergence_within", "statistic", "floor", "excess", "p_value", "p_min"} {
		c.optionalFloat64s(k, floats[k])
	}
	c.int32s("permutations", ints["permutations"])
	for _, k := range []string{"outlier_p", "outlier_floor", "p_adjusted", "outlier_p_adjusted"} {
		c.optionalFloat64s(k, floats[k])
	}
	c.bools("reported", reported)
	c.categories("top_state", s.States, top)
	c.float64s("top_delta", floats["top_delta"])
	if wide {
		for r := 0; r < R; r++ {
			for x := 0; x < X; x++ {
				c.float64s("prop:"+s.Runs[r].Name+":"+s.States[x], props[r*X+x])
			}
		}
	}
	meta := compareMeta(s)
	meta["macroscope.compare.total_score"] = strconv.FormatFloat(tab.Total, 'g', -1, 64)
	meta["macroscope.compare.test"] = tab.Test.Method
	meta["macroscope.compare.test_note"] = tab.Test.Note
	meta["macroscope.compare.alpha"] = strconv.FormatFloat(tab.Test.Alpha, 'g', -1, 64)
	meta["macroscope.compare.reported"] = strconv.Itoa(tab.Test.Reported)
	if tab.Test.Exact {
		meta["macroscope.compare.p_min"] = strconv.FormatFloat(tab.Test.PMin, 'g', -1, 64)
	}
	return c.batch(meta)
}

// ProportionsTable is the long form of the rows' proportions: one row per
// table row, run and state, with the run's label, the proportion, its
// difference to the reference run (delta) and the run's seconds in the
// state over the footprint.
func ProportionsTable(s *compare.Set, tab *compare.Table, mem memory.Allocator) arrow.RecordBatch {
	R, X := s.NumRuns(), len(s.States)
	n := len(tab.Rows) * R * X
	rank, node, run, label, state := make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, n)
	prop, delta, secs := make([]float64, n), make([]float64, n), make([]float64, n)
	paths := make([]string, len(tab.Rows))
	names, labels := make([]string, R), make([]string, R)
	for r, info := range s.Runs {
		names[r], labels[r] = info.Name, info.Label
	}
	groups, groupOf := s.Groups()
	i := 0
	for k, d := range tab.Rows {
		paths[k] = s.Resources.Path(d.Node, PathSep)
		for r := 0; r < R; r++ {
			for x := 0; x < X; x++ {
				rank[i], node[i], run[i], label[i], state[i] = int32(k), int32(k), int32(r), int32(groupOf[r]), int32(x)
				prop[i] = d.Props[r][x]
				delta[i] = d.Props[r][x] - d.Props[s.Reference][x]
				secs[i] = d.Seconds[r][x]
				i++
			}
		}
	}
	c := newColumns(mem, n)
	c.int32s("rank", rank)
	c.categories("node", paths, node)
	c.categories("run", names, run)
	c.categories("label", groups, label)
	c.categories("state", s.States, state)
	c.float64s("proportion", prop)
	c.float64s("delta", delta)
	c.float64s("seconds", secs)
	return c.batch(compareMeta(s))
}

// metaKeys returns the metadata keys of the runs, sorted.
func metaKeys(metas []map[string]string) []string {
	seen := map[string]bool{}
	var keys []string
	for _, m := range metas {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	sort.Strings(keys)
	return keys
}

// RunsTable lists the runs of a comparison: name, label, files, the
// trace's start and duration (seconds), the window modelled, resources
// and those of the union it lacks, states read, the marker boundaries
// used and dropped (Markers alignment), and the user's metadata
// (meta:<key>).
func RunsTable(s *compare.Set, mem memory.Allocator) arrow.RecordBatch {
	R := s.NumRuns()
	name, label, files, where := make([]string, R), make([]string, R), make([]string, R), make([]string, R)
	start, dur, ws, we := make([]float64, R), make([]float64, R), make([]float64, R), make([]float64, R)
	res, missing, matched, markers, dropped := make([]int32, R), make([]int32, R), make([]int32, R), make([]int32, R), make([]int32, R)
	states := make([]int64, R)
	ref := make([]bool, R)
	metas := make([]map[string]string, R)
	for r, run := range s.Runs {
		name[r], label[r], files[r], where[r] = run.Name, run.Label, strings.Join(run.Files, ","), run.MarkerResource
		start[r], dur[r] = run.Start.Seconds(), run.Duration()
		ws[r], we[r] = run.WindowStart.Seconds(), run.WindowEnd.Seconds()
		res[r], missing[r], matched[r] = int32(run.Resources), int32(run.Missing), int32(run.Matched)
		markers[r], dropped[r] = int32(len(run.Markers)), int32(run.DroppedMarkers)
		states[r] = run.States
		ref[r] = r == s.Reference
		metas[r] = run.Meta
	}
	c := newColumns(mem, R)
	c.strings("run", name)
	c.strings("label", label)
	c.bools("reference", ref)
	c.optionalStrings("files", files)
	c.float64s("start", start)
	c.float64s("duration", dur)
	c.float64s("window_start", ws)
	c.float64s("window_end", we)
	c.int32s("resources", res)
	c.int32s("missing_resources", missing)
	c.int32s("matched_by_pattern", matched)
	c.int64s("states", states)
	c.int32s("markers", markers)
	c.int32s("dropped_markers", dropped)
	c.optionalStrings("marker_resource", where)
	for _, k := range metaKeys(metas) {
		v := make([]string, R)
		for r, m := range metas {
			v[r] = m[k]
		}
		c.optionalStrings("meta:"+k, v)
	}
	return c.batch(compareMeta(s))
}

// SeriesTable lists the summaries of the runs of a series, one row each:
// run, label, files, the user's metadata (meta:<key>), start, duration,
// resources (missing from and extra to the reference's), the seconds and
// share of resource-time of each state (seconds:<state>, share:<state>,
// over the union of the runs' states), the divergence, cell divergence and
// score of the whole window against the reference, the test's p-value,
// and the node with the largest outlier score.
func SeriesTable(rows []*compare.SeriesRow, mem memory.Allocator) arrow.RecordBatch {
	n := len(rows)
	var states []string
	index := map[string]int{}
	metas := make([]map[string]string, n)
	for i, r := range rows {
		for _, s := range r.States {
			if _, ok := index[s]; !ok {
				index[s] = len(states)
				states = append(states, s)
			}
		}
		metas[i] = r.Meta
	}
	name, label, files, onode := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	f := map[string][]float64{}
	for _, k := range []string{"start", "duration", "divergence_to_ref", "divergence_cells_to_ref", "score_to_ref", "p_value", "outlier_score",
		"departs_from", "peak_from", "peak_to", "peak_divergence"} {
		f[k] = make([]float64, n)
	}
	res, missing, extra := make([]int32, n), make([]int32, n), make([]int32, n)
	secs, shares := make([][]float64, len(states)), make([][]float64, len(states))
	for x := range states {
		secs[x], shares[x] = make([]float64, n), make([]float64, n)
	}
	for i, r := range rows {
		name[i], label[i], files[i], onode[i] = r.Name, r.Label, strings.Join(r.Files, ","), r.OutlierNode
		f["start"][i], f["duration"][i] = r.Start, r.Duration
		f["divergence_to_ref"][i], f["divergence_cells_to_ref"][i], f["score_to_ref"][i] = r.Divergence, r.CellDivergence, r.Score
		f["p_value"][i], f["outlier_score"][i] = r.PValue, r.OutlierScore
		f["departs_from"][i], f["peak_from"][i], f["peak_to"][i], f["peak_divergence"][i] = r.DepartsFrom, r.PeakFrom, r.PeakTo, r.PeakDivergence
		res[i], missing[i], extra[i] = int32(r.Resources), int32(r.Missing), int32(r.Extra)
		for x, s := range r.States {
			secs[index[s]][i] = r.Seconds[x]
			shares[index[s]][i] = r.Shares[x]
		}
	}
	c := newColumns(mem, n)
	c.strings("run", name)
	c.strings("label", label)
	c.optionalStrings("files", files)
	for _, k := range metaKeys(metas) {
		v := make([]string, n)
		for i, m := range metas {
			v[i] = m[k]
		}
		c.optionalStrings("meta:"+k, v)
	}
	c.float64s("start", f["start"])
	c.float64s("duration", f["duration"])
	c.int32s("resources", res)
	c.int32s("missing_resources", missing)
	c.int32s("extra_resources", extra)
	for x, s := range states {
		c.float64s("seconds:"+s, secs[x])
	}
	for x, s := range states {
		c.float64s("share:"+s, shares[x])
	}
	for _, k := range []string{"divergence_to_ref", "divergence_cells_to_ref", "score_to_ref", "p_value"} {
		c.optionalFloat64s(k, f[k])
	}
	for _, k := range []string{"departs_from", "peak_from", "peak_to", "peak_divergence"} {
		c.optionalFloat64s(k, f[k])
	}
	c.optionalStrings("outlier_node", onode)
	c.optionalFloat64s("outlier_score", f["outlier_score"])
	// The runs' further measures, in the order they first appear.
	var measures []string
	values := map[string][]float64{}
	for i, r := range rows {
		for _, m := range r.Measures {
			v, ok := values[m.Name]
			if !ok {
				measures = append(measures, m.Name)
				v = make([]float64, n)
				if !strings.HasPrefix(m.Name, compare.LeftOutMeasure) { // none left out is 0 s
					for j := range v {
						v[j] = math.NaN()
					}
				}
				values[m.Name] = v
			}
			v[i] = m.Value
		}
	}
	for _, name := range measures {
		c.optionalFloat64s(name, values[name])
	}
	return c.batch(nil)
}

// OpsTable is HTA TraceDiff's compare_traces table: name (or short_name),
// <label>_counts and <label>_total_duration (microseconds) for the control
// and the test, diff_counts, diff_duration and counts_change_categories
// ("+", "-", "=").
func OpsTable(ops []compare.Op, labels [2]string, shortNames bool, mem memory.Allocator) arrow.RecordBatch {
	n := len(ops)
	name := make([]string, n)
	cols := make([][]float64, 6)
	for i := range cols {
		cols[i] = make([]float64, n)
	}
	change := make([]string, n)
	for i, op := range ops {
		name[i] = op.Name
		cols[0][i], cols[1][i] = op.Counts[0], op.Durations[0]
		cols[2][i], cols[3][i] = op.Counts[1], op.Durations[1]
		cols[4][i], cols[5][i] = op.DiffCounts, op.DiffDur
		change[i] = op.Change
	}
	key := "name"
	if shortNames {
		key = "short_name"
	}
	c := newColumns(mem, n)
	c.strings(key, name)
	c.float64s(labels[0]+"_counts", cols[0])
	c.float64s(labels[0]+"_total_duration", cols[1])
	c.float64s(labels[1]+"_counts", cols[2])
	c.float64s(labels[1]+"_total_duration", cols[3])
	c.float64s("diff_counts", cols[4])
	c.float64s("diff_duration", cols[5])
	c.strings("counts_change_categories", change)
	return c.batch(nil)
}
