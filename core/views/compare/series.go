package compare

import (
	"math"

	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// SeriesRow summarises one run of a series (a scaling study, nightly
// runs) against a reference run: what a table of many runs keeps of
// each, computed from two models without the joint model of all the
// runs.
type SeriesRow struct {
	Name, Label string
	Meta        map[string]string
	Files       []string
	// Start and Duration (seconds) are the run's window.
	Start, Duration float64
	// Resources counts the run's resources; Missing the reference's it
	// lacks, Extra its own the reference lacks.
	Resources, Missing, Extra int
	// States are the categories of Seconds and Shares: the union of the
	// run's and the reference's, then Idle (and Absent when a resource is
	// missing). Seconds is the time all resources spend in each, Shares
	// that divided by the run's resource-time (duration x resources).
	States          []string
	Seconds, Shares []float64
	// Divergence, CellDivergence and Score are those of the whole window
	// against the reference (stretch alignment: slice k of both is the
	// same fraction of each run); PValue the test's (blocks of cells).
	Divergence, CellDivergence, Score, PValue float64
	// PeakFrom and PeakTo bound the slice where the run's cells diverge
	// most from the reference's (CellDivergence over every resource, in
	// bits: PeakDivergence), and DepartsFrom starts the first slice where
	// they reach half of that: when the run departs. Seconds from the
	// run's own start (slice k is the same fraction of both runs); NaN
	// when the run does not diverge at all.
	DepartsFrom, PeakFrom, PeakTo, PeakDivergence float64
	// OutlierNode is the node of the hierarchy whose outlier score over
	// the whole window is largest, OutlierScore that score.
	OutlierNode  string
	OutlierScore float64
	// LeftOut and LeftOutRows are what the run's model left out of the
	// profiler's spans (micro.Model's): the Measures "left_out:<role>"
	// hold their seconds, SeriesLeftOutNote says it.
	LeftOut     []micro.LeftOut
	LeftOutRows int
	// Measures are further numbers of the run, each a column after the
	// others (the command line's POP factors, "pop:load_balance"...); a
	// run without one has a null there.
	Measures []Measure
}

// Measure is a named number of a run.
type Measure struct {
	Name  string
	Value float64
}

// LeftOutMeasure prefixes the Measures of a series' row that hold the
// seconds its model left out of each kind of profiler span
// ("left_out:recording", "left_out:step", "left_out:device annotation").
// A run without such spans left out none: 0, not a missing value.
const LeftOutMeasure = "left_out:"

// SeriesOptions tune Summarize.
type SeriesOptions struct {
	Match Match
	Test  TestOptions
}

// Summarize compares run (a model of the run's whole extent: stretch
// alignment) with ref (the reference's, of the same slices).
func Summarize(run Input, ref *micro.Model, opt SeriesOptions) (*SeriesRow, error) {
	refIn := Input{Name: "reference", Model: ref}
	self := run
	self.Name = "run"
	set, err := Build([]Input{refIn, self}, Options{Slices: ref.Slices, Match: opt.Match}, trace.ReadOptions{})
	if err != nil {
		return nil, err
	}
	rows, err := set.NodeRows(nil)
	if err != nil {
		return nil, err
	}
	tab, err := set.Differences(rows, TableOptions{Rank: ByOutlier, Test: opt.Test})
	if err != nil {
		return nil, err
	}
	r := set.Runs[1]
	out := &SeriesRow{Name: run.Name, Label: run.Label, Meta: run.Meta, Files: r.Files, Start: r.Start.Seconds(),
		Duration: r.Duration(), Resources: r.Resources, Missing: r.Missing, Extra: set.Runs[0].Missing,
		States: set.States, OutlierScore: math.NaN(), PValue: math.NaN()}
	out.departure(set.SliceDivergence())
	if out.Label == "" {
		out.Label = out.Name
	}
	for _, d := range tab.Rows {
		if d.Node == 0 {
			out.Divergence, out.CellDivergence, out.Score = d.Divergence, d.CellDivergence, d.Score
			out.PValue = d.Test.PValue
			out.Seconds = append([]float64(nil), d.Seconds[1]...)
		} else if out.OutlierNode == "" && d.OutlierScore > 1e-9 { // none for a run like the reference (rounding aside)
			out.OutlierNode, out.OutlierScore = set.Resources.Path(d.Node, "/"), d.OutlierScore
		}
	}
	out.LeftOut, out.LeftOutRows = r.LeftOut, r.LeftOutRows
	for _, l := range r.LeftOut {
		out.Measures = append(out.Measures, Measure{Name: LeftOutMeasure + l.Role.String(), Value: l.Total()})
	}
	out.Shares = make([]float64, len(out.Seconds))
	if total := out.Duration * float64(r.Resources); total > 0 {
		for x, s := range out.Seconds {
			out.Shares[x] = s / total
		}
	}
	return out, nil
}

// departure sets the row's peak and departure from the divergence of
// each slice.
func (out *SeriesRow) departure(div []float64) {
	out.DepartsFrom, out.PeakFrom, out.PeakTo, out.PeakDivergence = math.NaN(), math.NaN(), math.NaN(), 0
	peak := -1
	for k, v := range div {
		if v > 1e-12 && (peak < 0 || v > div[peak]) {
			peak = k
		}
	}
	if peak < 0 {
		return
	}
	at := func(k int) float64 { return out.Duration * float64(k) / float64(len(div)) }
	out.PeakFrom, out.PeakTo, out.PeakDivergence = at(peak), at(peak+1), div[peak]
	for k, v := range div {
		if v >= div[peak]/2 {
			out.DepartsFrom = at(k)
			break
		}
	}
}
