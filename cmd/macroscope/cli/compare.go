package cli

import (
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/macroscope-hpc/macroscope/arrowio"
	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/views/aggregate"
	"github.com/macroscope-hpc/macroscope/core/views/compare"
	"github.com/macroscope-hpc/macroscope/core/views/pop"
	"github.com/macroscope-hpc/macroscope/plots"
)

var compareCommand = command{
	name:     "compare",
	summary:  "what changed between runs, where and when, in bits: differences table, figure, operations, series",
	synopsis: "[flags] trace trace...",
	about: `
Reads the runs one after the other, each into its own microscopic model on
a common time axis (--align), and puts them in one model whose hierarchy has
the run as a level. Its optimal aggregation at the recommended level (or
--p) keeps the runs apart where they differ; the differences table ranks
its footprints by divergence x size (--rank), with each run's proportions,
the outlier score (what changed unlike its peers) and a permutation test
against the noise between repetitions (--labels). Writes the table, the long
table of proportions, the runs and the significant levels, and draws the
runs' aligned overviews one above the other. --ops writes HTA TraceDiff's
per-operation table of two PyTorch (Kineto) runs; --series a table of one
row per run against the first (or --reference), without the joint model.
See docs/compare.md.`,
	run: runCompare,
}

func runCompare(c *cli) error {
	var labels, names nameList
	c.fs.Var(&labels, "labels", "comma-separated label of each run: runs sharing one are repetitions (default: each its own)")
	c.fs.Var(&names, "names", "comma-separated name of each run (default: the files' names)")
	reference := c.fs.Int("reference", 0, "index of the reference run (from 0)")
	align := c.fs.String("align", "stretch", "time alignment: stretch (each run's extent cut into the slices), start, absolute, markers or auto (start when the runs' durations are within 5%, else stretch)")
	length := c.fs.String("length", "max", "with --align start (or auto choosing start): the common window, max, min or seconds")
	markers := c.fs.String("markers", "", "with --align markers: the name of the marker states or events (* for any text; default: the program's steps as the trace's reader marks them, PyTorch profiler's ProfilerStep#N of Kineto, Nsight Systems or rocprof traces)")
	markersBy := c.fs.String("markers-by", "", "with --align markers: match markers by number (the step's, or the last in their names) or ordinal (default: number when every marker has one)")
	markersOn := c.fs.String("markers-resource", "", "with --align markers: the container whose markers count (default: the first holding one)")
	runLevel := c.fs.String("run-level", "resource", "where the run goes in the hierarchy: resource (under each) or top")
	match := c.fs.String("match", "auto", "how the runs' resources are matched: auto (by path, and names that differ only by their numbers, process or thread ids, paired in order), path or position")
	rows := c.fs.String("rows", "nodes", "rows of the table: nodes (the level's), aggregates (where the runs' parts meet) or hierarchy (every node over the window)")
	rank := c.fs.String("rank", "score", "order of the table: score (divergence x size), outlier, divergence or present (what differs where every run has the footprint)")
	top := c.fs.Int("top", 10, "rows printed (and outlined in the figure when none is reported)")
	permutations := c.fs.Int("permutations", 999, "most permutations of a row's test (negative: no test)")
	alpha := c.fs.Float64("alpha", 0.05, "family-wise error rate of the rows reported")
	seed := c.fs.Uint64("seed", 0, "seed of the permutations")
	ops := c.fs.String("ops", "", "write HTA TraceDiff's operations table of the reference and the next run (.parquet, .feather or .csv; relative to --out)")
	iteration := c.fs.String("iteration", "first", "with --ops: first (each run's, HTA's default), all, or an iteration number")
	device := c.fs.String("device", "ALL", "with --ops: ALL, CPU or GPU")
	shortNames := c.fs.Bool("short-names", false, "with --ops: group by HTA's short names")
	series := c.fs.String("series", "", "write the table of a row per run against the reference instead of the comparison (.parquet, .feather or .csv; relative to --out)")
	metadata := c.fs.String("metadata", "", "CSV of the runs' metadata: a row per run (a column \"run\" naming it, else in order), kept as meta:<column>")
	noAnalyses := c.fs.Bool("no-analyses", false, "with --series: no POP factors (pop:<factor> columns of the runs with MPI calls: a second read of each)")
	c.outputs = append(c.outputs, outputFlag{"ops", ops}, outputFlag{"series", series})
	c.aggregationFlags(aggregate.KindSpatiotemporal, "spatiotemporal (the only kind of a comparison)")
	c.figureFlags("compare.png", 960, 0)
	table := c.tableFlag("table", "differences.parquet", "differences table")
	props := c.tableFlag("proportions", "proportions.parquet", "long table of each run's proportions")
	runsTable := c.tableFlag("runs", "runs.parquet", "table of the runs")
	levelsOut := c.tableFlag("levels", "", "table of every significant level of p, found by a sweep of the levels")
	if err := c.parse(2, math.MaxInt); err != nil {
		return err
	}
	*c.threshold = c.thresholdOr(1e-2)
	if c.kind != aggregate.KindSpatiotemporal {
		return errs.Argument("kind", "a comparison's model is aggregated spatiotemporally, not %s", c.kind)
	}
	opt, err := compareOptions(c, *align, *length, *markers, *markersBy, *markersOn, *runLevel, *match, *reference)
	if err != nil {
		return err
	}
	rankBy, err := compare.ParseRank(*rank)
	if err != nil {
		return err
	}
	if *rows != "nodes" && *rows != "aggregates" && *rows != "hierarchy" {
		return errs.Argument("rows", `must be nodes, aggregates or hierarchy, got %q`, *rows)
	}
	n := len(c.positional)
	if names.set && len(names.names) != n {
		return errs.Argument("names", "%d names for %d runs", len(names.names), n)
	}
	if labels.set && len(labels.names) != n {
		return errs.Argument("labels", "%d labels for %d runs", len(labels.names), n)
	}
	metas, err := readMetadata(*metadata, n, names.names, c.positional)
	if err != nil {
		return err
	}
	began := time.Now()
	inputs := make([]compare.Input, n)
	runName := defaultNames(c.positional, names.names)
	for i, path := range c.positional {
		src, err := c.open(path)
		if err != nil {
			return err
		}
		inputs[i] = compare.Input{Name: runName[i], Source: src, Meta: metas[i]}
		if labels.set {
			inputs[i].Label = labels.names[i]
		}
	}
	if *series != "" {
		return c.compareSeries(inputs, opt, *series, *permutations, *seed, !*noAnalyses, began)
	}
	p := startProgress(c.stderr, "runs", "")
	opt.Progress = func(done, total int) { p.update(int64(done), int64(total)) }
	ro, done := c.heldOptions(strings.Join(c.positional, ", "))
	var set *compare.Set
	err = guarded(strings.Join(c.positional, ", "), func() (err error) {
		set, err = compare.Build(inputs, opt, ro)
		return err
	})
	err = c.overBudget(done, err)
	p.stop()
	if err != nil {
		return err
	}
	for _, r := range set.Runs {
		resources := "resources"
		if r.Resources == 1 {
			resources = "resource"
		}
		c.say("run", "%s: %s, %.6g s, %d %s (%d of the union missing), %d states%s", r.Name, strings.Join(r.Files, ", "),
			r.Duration(), r.Resources, resources, r.Missing, r.States, markerNote(r))
		for _, n := range r.Notes {
			c.say("warning", "%s: %s", r.Name, n)
		}
	}
	if n := set.LeftOutNote("--profiler-spans"); n != "" {
		c.say("left out", "%s", n)
	}
	if set.AlignReason != "" {
		c.say("align", "%s", set.AlignReason)
	}
	m := set.Model()
	c.say("model", "%d runs x %d resources x %d slices x %d states, %s alignment, the run %s",
		set.NumRuns(), len(set.Resources.Leaves), set.Slices, len(set.States), set.Align.Method, placementWords(set.Placement))
	a, err := c.aggregate(m, *levelsOut != "")
	if err != nil {
		return err
	}
	var footprints []compare.Row
	switch *rows {
	case "aggregates":
		footprints = set.PartitionRows(a.part)
	case "nodes":
		footprints = compare.NodesOf(set.PartitionRows(a.part))
	default:
		if footprints, err = set.NodeRows(nil); err != nil {
			return err
		}
	}
	tab, err := set.Differences(footprints, compare.TableOptions{Rank: rankBy, Cancel: c.ctx.Done(),
		Test: compare.TestOptions{Permutations: *permutations, Alpha: *alpha, Seed: *seed}})
	if err != nil {
		return err
	}
	c.say("test", "%s: %d of %d rows reported at alpha %g%s", testWords(tab.Test), tab.Test.Reported, len(tab.Rows),
		tab.Test.Alpha, noteWords(tab.Test.Note))
	printDifferences(c, set, tab, *top)
	if *c.figure != "" {
		marked := reportedOrTop(tab, *top)
		w, h := c.figureSize()
		if c.autoHeight && *c.height == 0 {
			h = 0
		}
		drawn := footprints
		if *rows == "hierarchy" {
			drawn = compare.NodesOf(set.PartitionRows(a.part))
		}
		img, err := plots.CompareOverview(set, drawn, marked, plots.CompareOptions{Width: w, Height: h, Format: c.imgFormat,
			Title: fmt.Sprintf("%s, p = %.3g", strings.Join(runNames(set), " / "), a.p)})
		if err != nil {
			return err
		}
		if err := c.writeFigure(img); err != nil {
			return err
		}
	}
	mem := memory.DefaultAllocator
	if *table != "" {
		if err := c.writeTable(*table, arrowio.DifferencesTable(set, tab, mem), ""); err != nil {
			return err
		}
	}
	if *props != "" {
		if err := c.writeTable(*props, arrowio.ProportionsTable(set, tab, mem), ""); err != nil {
			return err
		}
	}
	if *runsTable != "" {
		if err := c.writeTable(*runsTable, arrowio.RunsTable(set, mem), ""); err != nil {
			return err
		}
	}
	if *levelsOut != "" && a.levels != nil {
		if err := c.writeTable(*levelsOut, arrowio.LevelsTable(a.levels, a.rec, mem), ""); err != nil {
			return err
		}
	}
	if *ops != "" {
		if err := c.compareOps(set, *ops, *iteration, *device, *shortNames); err != nil {
			return err
		}
	}
	c.say("done in", "%.2f s", time.Since(began).Seconds())
	return nil
}

// thresholdOr is --threshold, or def when it was not given: a
// comparison's model is large, its levels are searched at 0.01.
func (c *cli) thresholdOr(def float64) float64 {
	if c.set("threshold") {
		return *c.threshold
	}
	return def
}

// compareOptions reads the comparison's flags.
func compareOptions(c *cli, align, length, markers, markersBy, markersOn, runLevel, match string, reference int) (compare.Options, error) {
	method, err := compare.ParseMethod(align)
	if err != nil {
		return compare.Options{}, err
	}
	l, err := compare.ParseLength(length)
	if err != nil {
		return compare.Options{}, err
	}
	placement, err := compare.ParsePlacement(runLevel)
	if err != nil {
		return compare.Options{}, errs.Argument("run-level", "%s", strings.TrimPrefix(err.Error(), "run_level: "))
	}
	m, err := compare.ParseMatch(match)
	if err != nil {
		return compare.Options{}, err
	}
	if reference < 0 || reference >= len(c.positional) {
		return compare.Options{}, errs.Argument("reference", "must be a run index from 0 to %d, got %d", len(c.positional)-1, reference)
	}
	return compare.Options{Slices: *c.slices, Placement: placement, Match: m, Reference: reference, Start: c.start, End: c.end,
		Align: compare.Align{Method: method, Length: l, Markers: compare.MarkerSpec{Name: markers, By: markersBy, Resource: markersOn}},
		Model: micro.Options{Depth: micro.Innermost, Key: micro.Key(*c.key), ProfilerSpans: *c.profilerSpans}}, nil
}

// defaultNames are the runs' names: --names', else their files' names
// without their extensions (base.json.gz: base), with the folders that
// tell apart files named alike (compare.RunNames).
func defaultNames(paths, names []string) []string {
	if len(names) > 0 {
		return names
	}
	return compare.RunNames(paths)
}

// readMetadata reads the runs' metadata CSV: a row per run, matched by a
// column "run" (the runs' names or paths), else in order.
func readMetadata(path string, n int, names, paths []string) ([]map[string]string, error) {
	out := make([]map[string]string, n)
	if path == "" {
		return out, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	records, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, errs.Format(path, 0, "%v", err)
	}
	if len(records) < 2 {
		return nil, errs.Format(path, 1, "a header and a row per run are needed")
	}
	header := records[0]
	key := -1
	for i, h := range header {
		if h == "run" {
			key = i
		}
	}
	rows := records[1:]
	if key < 0 && len(rows) != n {
		return nil, errs.Format(path, len(records), "%d rows for %d runs (give a column \"run\" naming them)", len(rows), n)
	}
	runName := defaultNames(paths, names)
	for i := range out {
		name := runName[i]
		var row []string
		if key < 0 {
			row = rows[i]
		} else {
			for _, r := range rows {
				if r[key] == name || r[key] == paths[i] {
					row = r
				}
			}
			if row == nil {
				return nil, errs.Format(path, 0, "no row for run %q", name)
			}
		}
		out[i] = map[string]string{}
		for j, h := range header {
			if j != key && j < len(row) {
				out[i][h] = row[j]
			}
		}
	}
	return out, nil
}

func markerNote(r compare.Run) string {
	if len(r.Markers) == 0 {
		return ""
	}
	return fmt.Sprintf(", %d marker boundaries on %s (%d dropped)", len(r.Markers), r.MarkerResource, r.DroppedMarkers)
}

func placementWords(p compare.Placement) string {
	if p == compare.AtTop {
		return "at the top"
	}
	return "under each resource"
}

func testWords(t compare.TestSummary) string {
	switch t.Method {
	case "labels":
		if t.Exact {
			return fmt.Sprintf("labels permuted (%d relabellings)", t.Labelings)
		}
		return "labels permuted"
	case "blocks":
		return "runs' cells permuted by slices"
	}
	return "no test"
}

func noteWords(note string) string {
	if note == "" {
		return ""
	}
	return " (" + note + ")"
}

func runNames(s *compare.Set) []string {
	out := make([]string, s.NumRuns())
	for i, r := range s.Runs {
		out[i] = r.Name
	}
	return out
}

// reportedOrTop returns the rows reported, else the first top.
func reportedOrTop(tab *compare.Table, top int) []compare.Difference {
	var out []compare.Difference
	for _, d := range tab.Rows {
		if d.Test.Reported {
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		out = tab.Rows[:min(max(top, 0), len(tab.Rows))]
	}
	return out[:min(max(top, 0), len(out))]
}

// printDifferences prints the first top rows of the table, and the first
// by outlier score when the table is ranked otherwise.
func printDifferences(c *cli, s *compare.Set, tab *compare.Table, top int) {
	print := func(title string, rows []compare.Difference) {
		fmt.Fprintln(c.stdout, title)
		tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  node\tslices\ttime (s)\tdivergence (bit)\tscore (bit-cells)\toutlier\tp\tp adjusted\treported\tmoved most\t")
		origin := s.Origin()
		for _, d := range rows {
			node := s.Resources.Path(d.Node, arrowio.PathSep)
			if d.Node == 0 {
				node = plots.RootLabel
			}
			from, to := (s.SliceStart(int(d.First)) - origin).Seconds(), (s.SliceStart(int(d.Last)+1) - origin).Seconds()
			fmt.Fprintf(tw, "  %s\t%d-%d\t%.4g-%.4g\t%.4g\t%.4g\t%s\t%s\t%s\t%v\t%s %+.3g\t\n", node, d.First, d.Last, from, to, d.Divergence, d.Score,
				num(d.OutlierScore), num(d.Test.PValue), num(math.Min(d.Test.PAdjusted, d.Test.OutlierPAdjusted)), d.Test.Reported,
				s.States[d.TopState], d.TopDelta)
		}
		tw.Flush()
	}
	rows := tab.Rows[:min(max(top, 0), len(tab.Rows))]
	print(fmt.Sprintf("differences, first %d of %d (time from %s):", len(rows), len(tab.Rows), originWords(s)), rows)
}

// departureWords says when and where a run of a series departs from the
// reference, or that it does not.
func departureWords(row *compare.SeriesRow) string {
	if math.IsNaN(row.PeakFrom) {
		return ", like the reference slice by slice"
	}
	where := ""
	if row.OutlierNode != "" {
		where = ", largest outlier " + row.OutlierNode
	}
	return fmt.Sprintf(", departs from %.4g s, most at %.4g-%.4g s (%.3g bit)%s", row.DepartsFrom, row.PeakFrom, row.PeakTo,
		row.PeakDivergence, where)
}

// originWords says what the printed times count from.
func originWords(s *compare.Set) string {
	switch s.Align.Method {
	case compare.Start:
		return "each run's start"
	case compare.Absolute:
		return "the earliest run's start"
	}
	return s.Runs[s.Reference].Name + "'s start, the reference"
}

func num(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.3g", v)
}

// compareOps writes HTA TraceDiff's operations table of the reference
// and the next run, each read again for its operations.
func (c *cli) compareOps(set *compare.Set, path, iteration, device string, short bool) error {
	opt := compare.OpsOptions{Device: compare.Device(strings.ToUpper(device)), ShortNames: short}
	if _, err := compare.ParseDevice(device); err != nil {
		return err
	}
	switch iteration {
	case "first":
	case "all":
		opt.All = true
	default:
		var it int64
		if _, err := fmt.Sscan(iteration, &it); err != nil {
			return errs.Argument("iteration", `must be first, all or an iteration number, got %q`, iteration)
		}
		opt.Iterations = [2][]int64{{it}, {it}}
	}
	control := set.Reference
	test := (control + 1) % set.NumRuns()
	var sums [2]*compare.OpsSummary
	for i, r := range []int{control, test} {
		file := c.positional[r]
		src, err := c.open(file)
		if err != nil {
			return err
		}
		sink := compare.NewOpsSink()
		ro, done := c.heldOptions(file)
		err = guarded(file, func() error { return src.Read(sink, ro) })
		if err := c.overBudget(done, err); err != nil {
			return err
		}
		sums[i] = sink.Summary()
		sums[i].File = file
	}
	ops, warnings, err := compare.Ops(sums[0], sums[1], opt)
	if err != nil {
		return err
	}
	for _, w := range warnings {
		c.say("warning", "%s", w)
	}
	labels := [2]string{set.Runs[control].Name, set.Runs[test].Name}
	c.say("ops", "%d operations of %s and %s", len(ops), labels[0], labels[1])
	return c.writeTable(path, arrowio.OpsTable(ops, labels, short, memory.DefaultAllocator), "")
}

// compareSeries writes the table of a row per run against the reference,
// each run read and compared alone.
func (c *cli) compareSeries(inputs []compare.Input, opt compare.Options, path string, permutations int, seed uint64, analyses bool, began time.Time) error {
	mopt := opt.Model
	mopt.Slices, mopt.Metric = opt.Slices, micro.StateDuration
	// Each run over the window from its own start, as Build's stretch.
	mopt.Start, mopt.End, mopt.Relative = opt.Start, opt.End, true
	// read reads a run; told, it says what the reader skipped or found
	// missing and the model's notes, under the run's name (the reference,
	// read twice, says them once).
	read := func(in compare.Input, tell bool) (*micro.Model, error) {
		var m *micro.Model
		ro, done := c.heldOptions(in.Name)
		err := guarded(in.Name, func() (err error) {
			m, _, err = micro.FromSource(in.Source, mopt, ro)
			return err
		})
		if err = c.overBudget(done, err); err != nil {
			return nil, err
		}
		if tell {
			for _, n := range ro.Notes.Messages() {
				c.say("warning", "%s: %s", in.Name, n)
			}
			for _, n := range m.Notes {
				c.say("warning", "%s: %s", in.Name, cliNote(n))
			}
		}
		return m, nil
	}
	ref, err := read(inputs[opt.Reference], false)
	if err != nil {
		return err
	}
	var rows []*compare.SeriesRow
	var popRuns []pop.Run // of the rows popRows, for the study's factors
	var popRows []*compare.SeriesRow
	for i, in := range inputs {
		m, err := read(in, true)
		if err != nil {
			return err
		}
		in.Model, in.Source = m, nil
		row, err := compare.Summarize(in, ref, compare.SeriesOptions{Match: opt.Match, Test: compare.TestOptions{Permutations: permutations, Seed: seed}})
		if err != nil {
			return err
		}
		if analyses {
			var run *pop.Run
			if row.Measures, run, err = c.popMeasures(c.positional[i]); err != nil {
				return err
			}
			if run != nil {
				popRuns, popRows = append(popRuns, *run), append(popRows, row)
			}
		}
		rows = append(rows, row)
		c.say("run", "%s: %.6g s, divergence to the reference %.4g bit%s", row.Name, row.Duration, row.Divergence, departureWords(row))
	}
	if len(popRuns) > 1 {
		// The factors of the study (scalabilities, speed-up), against
		// POP's reference among the runs with MPI calls.
		study, err := pop.StudySummary(popRuns, pop.Auto)
		if err != nil {
			return err
		}
		for k, row := range popRows {
			for _, f := range study[k] {
				row.Measures = append(row.Measures, compare.Measure{Name: "pop:" + f.Key, Value: f.Values[0]})
			}
		}
	}
	if n := compare.SeriesLeftOutNote(rows, "--profiler-spans"); n != "" {
		c.say("left out", "%s", n)
	}
	if err := c.writeTable(path, arrowio.SeriesTable(rows, memory.DefaultAllocator), ""); err != nil {
		return err
	}
	c.say("done in", "%.2f s", time.Since(began).Seconds())
	return nil
}

// popMeasures reads the run at path once more for its POP factors
// (pop.Factors.RunSummary) and the run, none when it has no MPI calls (POP does not
// apply to it).
func (c *cli) popMeasures(path string) ([]compare.Measure, *pop.Run, error) {
	run, err := c.popRun(path, pop.Options{EagerLimit: pop.DefaultEagerLimit})
	// POP refuses a trace outside its scope (no MPI calls) as data that
	// hold nothing for it: the row has no POP factors.
	var empty *errs.EmptyError
	if errors.As(err, &empty) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	f, err := pop.ComputeFactors([]pop.Run{*run}, pop.Auto)
	if err != nil {
		return nil, nil, err
	}
	var out []compare.Measure
	for _, r := range f.RunSummary(0) {
		out = append(out, compare.Measure{Name: "pop:" + r.Key, Value: r.Values[0]})
	}
	return out, run, nil
}
