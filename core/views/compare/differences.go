package compare

import (
	"math"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Rank orders the differences table.
type Rank string

const (
	// ByScore ranks by M (JS + KL(pi||w)): divergence times size, the
	// information the seed's loss charges for merging the runs there. The
	// default.
	ByScore Rank = "score"
	// ByOutlier ranks by the outlier score: how much more a footprint
	// differs from its parent in a run than in the reference. It names
	// the cause of a change that spreads (a slowed process in a bulk
	// synchronous program makes every other one wait, and change more than
	// it does).
	ByOutlier Rank = "outlier"
	// ByDivergence ranks by the divergence in bits, whatever the size.
	ByDivergence Rank = "divergence"
	// ByPresent ranks by PresentScore: what differs where the runs all
	// have the footprint (the same ranks of runs of 32 and 64 ranks, the
	// time both runs last), leaving out that a run lacks a resource or a
	// time.
	ByPresent Rank = "present"
)

// ParseRank reads a ranking name; empty is ByScore.
func ParseRank(s string) (Rank, error) {
	switch r := Rank(s); r {
	case ByScore, ByOutlier, ByDivergence, ByPresent:
		return r, nil
	case "":
		return ByScore, nil
	}
	return "", errs.Argument("rank", "unknown ranking %q (use %q, %q, %q or %q)", s, ByScore, ByOutlier, ByDivergence, ByPresent)
}

// Difference is a row of the differences table.
type Difference struct {
	Row
	Leaves int     // resources under the node
	Cells  float64 // cells of one run: leaves x slices
	// RunsPresent counts the runs that have at least one of the node's
	// resources.
	RunsPresent int
	// Mass is M, the total of the cells of every run (R x Cells with
	// complete cells).
	Mass float64
	// Divergence is the Jensen-Shannon divergence, in bits, of the runs'
	// state distributions over the footprint; CellDivergence that of their
	// distributions over (resource, slice, state), at least as large: the
	// excess is a difference of placement in space or time with the same
	// totals. MassDivergence is KL(pi||w) (0 with complete cells).
	Divergence, CellDivergence, MassDivergence float64
	// PresenceDivergence, PresentShare and PresentDivergence split the
	// divergence where some run lacks a resource or a time (Absent): with
	// Z the event "absent", I(X;R) = I(Z;R) + P(Z=0) I(X;R|Z=0), so
	// Divergence = PresenceDivergence + PresentShare x PresentDivergence,
	// where PresenceDivergence is the divergence of the runs' absent
	// shares, PresentShare the footprint's share present, and
	// PresentDivergence the divergence of the runs' distributions over
	// their states where they are present (each run weighted by its
	// present mass). PresentScore is Mass x PresentShare x
	// PresentDivergence: ByPresent's key. Without Absent, PresentShare is
	// 1 and PresentDivergence the divergence.
	PresenceDivergence, PresentShare, PresentDivergence, PresentScore float64
	// Score is Mass x (Divergence + MassDivergence) in bit-cells, and
	// ScoreShare its share of the table's total (which, for the rows of a
	// partition, is the between-run loss of the whole partition).
	Score, ScoreShare float64
	// Outlier says, for the run (or group) where it is largest, how much
	// the footprint changed from the reference unlike its siblings (the
	// rest of the nearest ancestor with more resources): the divergence,
	// in bits, of its distribution from the one it would have had it
	// changed as they did (see outlier). OutlierScore is that times the
	// run's mass over F; OutlierRun the run (or group). NaN at the root
	// (and for a node holding every resource).
	Outlier, OutlierScore float64
	OutlierRun            int
	// Between and Within, with groups of runs (labels): the divergence of
	// the groups' pooled distributions, and the mean divergence among the
	// runs of a group (Divergence = Between + Within, the chain rule).
	Between, Within float64
	// Props are each run's state proportions over the footprint, Seconds
	// its time in each state (the run's own seconds); [run][state].
	Props, Seconds [][]float64
	// TopState is the state whose proportion differs most from the
	// reference's in some run, TopDelta that difference (run - reference).
	TopState int
	TopDelta float64
	Test     RowTest
}

// Table is the differences table.
type Table struct {
	Rows []Difference
	// Groups are the runs' labels in the order first seen; Grouped
	// tells that some label has several runs (repetitions).
	Groups  []string
	GroupOf []int
	Grouped bool
	// Total is the sum of the rows' scores.
	Total float64
	Test  TestSummary
}

// TableOptions choose the ranking, the test and the rows kept.
type TableOptions struct {
	Rank Rank
	// Top keeps the first Top rows once ranked (0: all). The test and its
	// correction for multiple rows count every row.
	Top  int
	Test TestOptions
	// Cancel, once closed, stops Differences (looked at before every
	// row, which its permutation test makes long), which returns
	// trace.ErrComputationCanceled and no table. Nil: never.
	Cancel <-chan struct{}
}

// Groups returns the runs' labels in the order first seen and the group
// of each run.
func (s *Set) Groups() ([]string, []int) {
	index := map[string]int{}
	var labels []string
	of := make([]int, len(s.Runs))
	for r, run := range s.Runs {
		g, ok := index[run.Label]
		if !ok {
			g = len(labels)
			index[run.Label] = g
			labels = append(labels, run.Label)
		}
		of[r] = g
	}
	return labels, of
}

// rowData is what a row's measures and test are computed from.
type rowData struct {
	runSums, parSums [][]float64 // by run
	hasParent        bool
	cells            float64 // per run
}

// Differences measures the rows: their divergences, outlier scores,
// proportions and test, ranked.
func (s *Set) Differences(rows []Row, opt TableOptions) (*Table, error) {
	rank, err := ParseRank(string(opt.Rank))
	if err != nil {
		return nil, err
	}
	topt, err := opt.Test.withDefaults()
	if err != nil {
		return nil, err
	}
	R, X := len(s.Runs), len(s.States)
	labels, groupOf := s.Groups()
	tab := &Table{Groups: labels, GroupOf: groupOf, Grouped: len(labels) < R}
	ps := s.prefixSums()
	presentUnder := s.presentCounts()
	main := newTester(s, tab, topt)
	tab.Rows = make([]Difference, len(rows))
	for i, row := range rows {
		if row.First < 0 || row.Last < row.First || int(row.Last) >= s.Slices || row.Node < 0 || int(row.Node) >= s.Resources.Len() {
			return nil, errs.Argument("rows", "row %d (node %d, slices %d to %d) is not in the model", i, row.Node, row.First, row.Last)
		}
		tab.Rows[i].Row = row
		main.rows = append(main.rows, &tab.Rows[i])
	}
	// Rows are measured and tested on every core, each with its own
	// permutations (seeded by the row: the same table whatever the cores).
	if err := trace.Stopped(opt.Cancel); err != nil {
		return nil, err
	}
	workers := max(1, min(runtime.GOMAXPROCS(0), len(rows)))
	var stopped atomic.Bool
	next := make(chan int, len(rows))
	for i := range rows {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	testers := make([]*tester, workers)
	for w := 0; w < workers; w++ {
		testers[w] = main.clone()
		wg.Add(1)
		go func(t *tester) {
			defer wg.Done()
			data := rowData{runSums: matrix(R, X), parSums: matrix(R, X)}
			for i := range next {
				if stopped.Load() || trace.Stopped(opt.Cancel) != nil {
					stopped.Store(true)
					continue // drains the rows left
				}
				s.measureRow(&tab.Rows[i], &data, tab, ps, presentUnder)
				t.test(&tab.Rows[i], &data, i)
			}
		}(testers[w])
	}
	wg.Wait()
	if stopped.Load() {
		return nil, trace.ErrComputationCanceled
	}
	for _, t := range testers {
		main.maxPerm = max(main.maxPerm, t.maxPerm)
	}
	for i := range tab.Rows {
		tab.Total += tab.Rows[i].Score
	}
	for i := range tab.Rows {
		if tab.Total > 0 {
			tab.Rows[i].ScoreShare = tab.Rows[i].Score / tab.Total
		}
	}
	main.adjust()
	tab.Test = main.summary()
	key := func(d *Difference) float64 {
		switch rank {
		case ByOutlier:
			if math.IsNaN(d.OutlierScore) {
				return math.Inf(-1)
			}
			return d.OutlierScore
		case ByDivergence:
			return d.Divergence
		case ByPresent:
			return d.PresentScore
		}
		return d.Score
	}
	sort.SliceStable(tab.Rows, func(i, j int) bool { return key(&tab.Rows[i]) > key(&tab.Rows[j]) })
	if opt.Top > 0 && opt.Top < len(tab.Rows) {
		tab.Rows = tab.Rows[:opt.Top]
	}
	return tab, nil
}

func matrix(n, m int) [][]float64 {
	flat := make([]float64, n*m)
	out := make([][]float64, n)
	for i := range out {
		out[i] = flat[i*m : (i+1)*m : (i+1)*m]
	}
	return out
}

// measureRow gathers the row's sums and measures it.
func (s *Set) measureRow(d *Difference, data *rowData, tab *Table, ps *sums, presentUnder []int) {
	R := len(s.Runs)
	row := d.Row
	d.Leaves = s.Resources.NumLeaves(row.Node)
	data.cells = float64(d.Leaves) * float64(row.Last-row.First+1)
	d.Cells = data.cells
	for r := 0; r < R; r++ {
		ps.over(row.Node, r, row.First, row.Last, data.runSums[r])
		if presentUnder[int(row.Node)*R+r] > 0 {
			d.RunsPresent++
		}
	}
	// The outlier compares the footprint with its peers: those of the
	// nearest ancestor that has more resources than it (a host holding a
	// single rank is no peer group for it).
	parent := s.Resources.Parent[row.Node]
	for parent >= 0 && s.Resources.NumLeaves(parent) == d.Leaves {
		parent = s.Resources.Parent[parent]
	}
	data.hasParent = parent >= 0
	if data.hasParent {
		for r := 0; r < R; r++ {
			ps.over(parent, r, row.First, row.Last, data.parSums[r])
		}
	}
	s.measure(d, data, tab, ps)
}

// presentCounts returns, by resource node and run, how many of the
// node's resources the run has.
func (s *Set) presentCounts() []int {
	R := len(s.Runs)
	out := make([]int, s.Resources.Len()*R)
	for _, n := range s.Resources.PostOrder() {
		if s.Resources.IsLeaf(n) {
			l := s.Resources.LeafLo[n]
			for r := 0; r < R; r++ {
				if s.Present[r][l] {
					out[int(n)*R+r] = 1
				}
			}
			continue
		}
		for _, c := range s.Resources.Children[n] {
			for r := 0; r < R; r++ {
				out[int(n)*R+r] += out[int(c)*R+r]
			}
		}
	}
	return out
}

// measure fills the row's divergences, outlier, proportions and seconds.
func (s *Set) measure(d *Difference, data *rowData, tab *Table, ps *sums) {
	R, X := len(s.Runs), len(s.States)
	cells := make([]float64, R)
	for r := range cells {
		cells[r] = data.cells
	}
	div := Diverge(data.runSums, cells)
	d.Divergence, d.Mass, d.MassDivergence = div.JS, div.Mass, div.MassKL
	d.Score = div.Score()
	d.CellDivergence = s.cellDivergence(d.Row, data.runSums)
	s.presence(d, data.runSums, cells)
	if tab.Grouped {
		d.Between, d.Within = s.betweenWithin(data.runSums, tab.GroupOf, len(tab.Groups), data.cells)
	} else {
		d.Between, d.Within = d.Divergence, 0
	}
	// Proportions, seconds and the state that moved most.
	d.Props, d.Seconds = matrix(R, X), matrix(R, X)
	for r := 0; r < R; r++ {
		m := 0.0
		for _, v := range data.runSums[r] {
			m += v
		}
		for x, v := range data.runSums[r] {
			if m > 0 {
				d.Props[r][x] = v / m
			}
		}
		secs := s.Runs[r].SliceSeconds
		row := ps.row(d.Node, r)
		for t := d.First; t <= d.Last; t++ {
			for x := 0; x < X; x++ {
				d.Seconds[r][x] += (row[(int(t)+1)*X+x] - row[int(t)*X+x]) * secs[t]
			}
		}
	}
	ref := s.Reference
	d.TopState, d.TopDelta = 0, 0
	for r := 0; r < R; r++ {
		if r == ref {
			continue
		}
		for x := 0; x < X; x++ {
			if delta := d.Props[r][x] - d.Props[ref][x]; math.Abs(delta) > math.Abs(d.TopDelta) {
				d.TopState, d.TopDelta = x, delta
			}
		}
	}
	d.Outlier, d.OutlierScore, d.OutlierRun = math.NaN(), math.NaN(), -1
	if data.hasParent {
		units, parents, masses, refUnit := unitSums(data, tab, s.Reference)
		d.Outlier, d.OutlierScore, d.OutlierRun = outlier(units, parents, masses, refUnit)
	}
}

// presence splits the row's divergence into the divergence of the runs'
// absent shares and that of their states where present (Difference).
func (s *Set) presence(d *Difference, runSums [][]float64, cells []float64) {
	d.PresentShare, d.PresentDivergence, d.PresenceDivergence = 1, d.Divergence, 0
	if s.absent >= 0 && d.Mass > 0 {
		present := make([][]float64, len(runSums))
		split := make([][]float64, len(runSums)) // [present, absent] by run
		absent := 0.0
		for r, v := range runSums {
			present[r] = append([]float64(nil), v...)
			present[r][s.absent] = 0
			split[r] = []float64{0, v[s.absent]}
			for _, y := range present[r] {
				split[r][0] += y
			}
			absent += v[s.absent]
		}
		d.PresentShare = math.Max(0, 1-absent/d.Mass)
		d.PresenceDivergence = Diverge(split, cells).JS
		d.PresentDivergence = 0
		if d.PresentShare > 0 {
			d.PresentDivergence = Diverge(present, cells).JS
		}
	}
	d.PresentScore = d.Mass * d.PresentShare * d.PresentDivergence
}

// unitSums returns the row's sums by unit (group when grouped, else
// run), the parent's, the units' masses and the reference unit (that of
// run ref).
func unitSums(data *rowData, tab *Table, ref int) (units, parents [][]float64, masses []float64, refUnit int) {
	if !tab.Grouped {
		masses = make([]float64, len(data.runSums))
		for r, v := range data.runSums {
			for _, y := range v {
				masses[r] += y
			}
		}
		return data.runSums, data.parSums, masses, ref
	}
	G, X := len(tab.Groups), len(data.runSums[0])
	units, parents = matrix(G, X), matrix(G, X)
	masses = make([]float64, G)
	for r, g := range tab.GroupOf {
		for x := 0; x < X; x++ {
			units[g][x] += data.runSums[r][x]
			parents[g][x] += data.parSums[r][x]
			masses[g] += data.runSums[r][x]
		}
	}
	return units, parents, masses, tab.GroupOf[ref]
}

// outlier returns how much the footprint changed unlike its peers, for
// the unit u (a run, or a group) other than the reference where it does
// most: F_u's distribution against what it would be had F changed as
// its siblings S = parent - F did, multiplicatively, from the reference:
//
//	Q_u(x) proportional to F_ref(x) (S_u(x) + d) / (S_ref(x) + d)
//
// where d, half a cell spread over the states, keeps a state the
// siblings gain or lose finite, and a state F gains that it did not have
// gets d in place of F_ref(x). It returns KL(P_{F,u} || Q_u) in bits,
// that times F_u's mass (the outlier score) and u. It is 0 when F changed
// as its siblings did (every rank waiting longer for a slowed one) or
// not at all while they did not, and large for the slowed rank, which
// changed the other way.
func outlier(units, parents [][]float64, masses []float64, ref int) (float64, float64, int) {
	X := len(units[ref])
	d := 0.5 / float64(X)
	q := func(u, x int) float64 {
		f := units[ref][x]
		if f <= 0 {
			if units[u][x] <= 0 {
				return 0
			}
			f = d
		}
		return f * (math.Max(0, parents[u][x]-units[u][x]) + d) / (math.Max(0, parents[ref][x]-units[ref][x]) + d)
	}
	best, bestScore, who := math.NaN(), math.Inf(-1), -1
	for u := range units {
		if u == ref || masses[u] <= 0 {
			continue
		}
		qsum := 0.0
		for x := 0; x < X; x++ {
			qsum += q(u, x)
		}
		kl := 0.0
		for x := 0; x < X; x++ {
			if p := units[u][x] / masses[u]; p > 0 {
				kl += p * math.Log2(p*qsum/q(u, x))
			}
		}
		kl = math.Max(kl, 0)
		if score := masses[u] * kl; score > bestScore {
			best, bestScore, who = kl, score, u
		}
	}
	if who < 0 {
		return math.NaN(), math.NaN(), -1
	}
	return best, bestScore, who
}

// betweenWithin returns the divergence between the groups' pooled
// distributions and the mass-weighted mean divergence within groups.
func (s *Set) betweenWithin(runSums [][]float64, groupOf []int, groups int, cells float64) (float64, float64) {
	X := len(runSums[0])
	pooled := matrix(groups, X)
	gcells := make([]float64, groups)
	members := make([][]int, groups)
	for r, g := range groupOf {
		for x := 0; x < X; x++ {
			pooled[g][x] += runSums[r][x]
		}
		gcells[g] += cells
		members[g] = append(members[g], r)
	}
	between := Diverge(pooled, gcells)
	within, total := 0.0, 0.0
	for g, rs := range members {
		sub := make([][]float64, len(rs))
		c := make([]float64, len(rs))
		m := 0.0
		for i, r := range rs {
			sub[i] = runSums[r]
			c[i] = cells
			for _, v := range runSums[r] {
				m += v
			}
		}
		_ = g
		within += m * Diverge(sub, c).JS
		total += m
	}
	if total > 0 {
		within /= total
	}
	return between.JS, within
}

// cellDivergence returns the divergence of the runs' distributions over
// (resource, slice, state) within the row (see CellDivergence).
func (s *Set) cellDivergence(row Row, runSums [][]float64) float64 {
	R, X := len(s.Runs), len(s.States)
	masses := make([]float64, R)
	total := 0.0
	for r, v := range runSums {
		for _, y := range v {
			masses[r] += y
		}
		total += masses[r]
	}
	if total <= 0 {
		return 0
	}
	js := 0.0
	lo, hi := s.Resources.LeafLo[row.Node], s.Resources.LeafHi[row.Node]
	cells := make([][]float64, R)
	for l := lo; l < hi; l++ {
		for t := row.First; t <= row.Last; t++ {
			for r := 0; r < R; r++ {
				cells[r] = s.Cell(r, int(l), int(t))
			}
			for x := 0; x < X; x++ {
				pooled := 0.0
				for r := 0; r < R; r++ {
					pooled += cells[r][x]
				}
				if pooled <= 0 {
					continue
				}
				for r := 0; r < R; r++ {
					if v := cells[r][x]; v > 0 && masses[r] > 0 {
						js += v * math.Log2(v*total/(masses[r]*pooled))
					}
				}
			}
		}
	}
	return math.Max(js/total, 0)
}
