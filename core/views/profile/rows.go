package profile

import (
	"cmp"
	"math"
	"slices"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// FlatRow is a state name's line of the flat profile.
type FlatRow struct {
	Name
	Count     int64 // states
	Processes int   // processes that have the name
	// Inclusive and Exclusive add up the name's states over all
	// processes; the means divide them by Processes (pipit's values).
	Inclusive, Exclusive         trace.Time
	InclusiveMean, ExclusiveMean float64 // seconds
	// Share is Exclusive over the exclusive time of all names.
	Share float64
}

// Flat returns the flat profile, the names with the most exclusive time
// first.
func (r *Result) Flat() []FlatRow {
	rows := make([]FlatRow, len(r.Names))
	var total trace.Time
	for i, n := range r.Names {
		row := FlatRow{Name: n, Processes: len(r.Sums[i])}
		for _, s := range r.Sums[i] {
			row.Count += s.Count
			row.Inclusive += s.Inclusive
			row.Exclusive += s.Exclusive
		}
		row.InclusiveMean = row.Inclusive.Seconds() / float64(row.Processes)
		row.ExclusiveMean = row.Exclusive.Seconds() / float64(row.Processes)
		total += row.Exclusive
		rows[i] = row
	}
	for i := range rows {
		if total > 0 {
			rows[i].Share = float64(rows[i].Exclusive) / float64(total)
		}
	}
	slices.SortStableFunc(rows, func(a, b FlatRow) int {
		return cmp.Or(cmp.Compare(b.Exclusive, a.Exclusive), cmp.Compare(a.Type, b.Type), cmp.Compare(a.Name.Name, b.Name.Name))
	})
	return rows
}

// ProcessRow is the time of a state name in one process.
type ProcessRow struct {
	Name
	Process string
	Sum
}

// PerProcess returns the sums of every name in every process that has
// it, by name (in the order of Flat) then process.
func (r *Result) PerProcess() []ProcessRow {
	var rows []ProcessRow
	for _, f := range r.Flat() {
		i := slices.Index(r.Names, f.Name)
		procs := make([]int32, 0, len(r.Sums[i]))
		for p := range r.Sums[i] {
			procs = append(procs, p)
		}
		slices.Sort(procs)
		for _, p := range procs {
			rows = append(rows, ProcessRow{Name: f.Name, Process: r.Processes[p], Sum: r.Sums[i][p]})
		}
	}
	return rows
}

// Metric chooses the time load imbalance compares.
type Metric uint8

// The metrics.
const (
	Exclusive Metric = iota
	Inclusive
)

// ParseMetric reads "exclusive" or "inclusive" (also pipit's "time.exc",
// "time.inc"); "" is exclusive.
func ParseMetric(s string) (Metric, error) {
	switch s {
	case "", "exclusive", "exc", "time.exc":
		return Exclusive, nil
	case "inclusive", "inc", "time.inc":
		return Inclusive, nil
	}
	return 0, errs.Argument("metric", "%q is not exclusive or inclusive", s)
}

func (m Metric) String() string {
	if m == Inclusive {
		return "inclusive"
	}
	return "exclusive"
}

// ImbalanceRow is a state name's load imbalance across the processes that
// have it. Times are seconds.
type ImbalanceRow struct {
	Name
	Processes      int
	Mean, Max, Min float64
	// Imbalance is Max / Mean (NaN when Mean is 0), pipit's value.
	Imbalance float64
	// Top lists the processes of the largest times, largest first.
	Top []string
	// Saving is Max - Mean: what perfect balance of the name would save
	// on its slowest process; RuntimeShare is Saving over the trace's
	// duration.
	Saving, RuntimeShare float64
}

// Imbalance returns every name's load imbalance, the names of the largest
// mean first; top is how many processes Top lists.
func (r *Result) Imbalance(metric Metric, top int) []ImbalanceRow {
	span := (r.End - r.Start).Seconds()
	rows := make([]ImbalanceRow, 0, len(r.Names))
	type procTime struct {
		p int32
		t trace.Time
	}
	for i, n := range r.Names {
		times := make([]procTime, 0, len(r.Sums[i]))
		var total trace.Time
		for p, s := range r.Sums[i] {
			t := s.Exclusive
			if metric == Inclusive {
				t = s.Inclusive
			}
			times = append(times, procTime{p, t})
			total += t
		}
		// Largest first; ties by process path, so that the result does not
		// depend on the order the processes were met in.
		slices.SortFunc(times, func(a, b procTime) int {
			return cmp.Or(cmp.Compare(b.t, a.t), cmp.Compare(r.Processes[a.p], r.Processes[b.p]))
		})
		row := ImbalanceRow{Name: n, Processes: len(times)}
		row.Mean = total.Seconds() / float64(len(times))
		row.Max, row.Min = times[0].t.Seconds(), times[len(times)-1].t.Seconds()
		row.Imbalance = row.Max / row.Mean
		if row.Mean == 0 {
			row.Imbalance = math.NaN()
		}
		for _, pt := range times[:min(top, len(times))] {
			row.Top = append(row.Top, r.Processes[pt.p])
		}
		row.Saving = row.Max - row.Mean
		if span > 0 {
			row.RuntimeShare = row.Saving / span
		}
		rows = append(rows, row)
	}
	slices.SortStableFunc(rows, func(a, b ImbalanceRow) int {
		return cmp.Or(cmp.Compare(b.Mean, a.Mean), cmp.Compare(a.Type, b.Type), cmp.Compare(a.Name.Name, b.Name.Name))
	})
	return rows
}
