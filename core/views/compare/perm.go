package compare

import (
	"fmt"
	"math"
	bits64 "math/bits"
	"math/rand/v2"
	"sort"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// TestOptions tune the permutation test that tells a difference from the
// noise between repetitions (docs/compare.md, "The noise floor").
type TestOptions struct {
	// Permutations is the most permutations a row gets: 0 means 999, a
	// negative value no test. A row stops early once Stop permutations
	// have reached its statistic (it is then plainly not significant).
	Permutations int
	Stop         int // 0 means 10
	// Exact enumerates every relabelling of the runs when there are at
	// most that many (0 means 10,000).
	Exact int
	// Block is the number of consecutive slices swapped together (all the
	// row's resources with them) when runs have no repetitions (0 means
	// 1), and MaxBlocks the most blocks of a row (0 means 256: neighbouring
	// blocks are grouped beyond).
	Block, MaxBlocks int
	// Alpha is the family-wise error rate of Reported (0 means 0.05).
	Alpha float64
	// Seed seeds the random permutations (the results are reproducible).
	Seed uint64
}

func (o TestOptions) withDefaults() (TestOptions, error) {
	if o.Permutations == 0 {
		o.Permutations = 999
	}
	if o.Stop == 0 {
		o.Stop = 10
	}
	if o.Exact == 0 {
		o.Exact = 10000
	}
	if o.Block == 0 {
		o.Block = 1
	}
	if o.MaxBlocks == 0 {
		o.MaxBlocks = 256
	}
	if o.Alpha == 0 {
		o.Alpha = 0.05
	}
	if o.Block < 0 || o.MaxBlocks < 1 || o.Stop < 1 || o.Exact < 0 {
		return o, errs.Argument("test", "block, max_blocks and stop must be positive")
	}
	if !(o.Alpha > 0 && o.Alpha < 1) {
		return o, errs.Argument("alpha", "must be in (0, 1), got %v", o.Alpha)
	}
	return o, nil
}

// RowTest is the test of one row.
type RowTest struct {
	// Statistic is the row's difference in bit-cells: its Score, or with
	// groups of repetitions Mass x Between. Floor is its 95% quantile
	// under the null (the noise floor), Excess = Statistic - Floor.
	Statistic, Floor, Excess float64
	// PValue is the share of permutations whose statistic reaches the
	// observed one (with it); when none does, the tail of a gamma
	// distribution fitted to the permutations' mean and variance. PMin is
	// the resolution of the permutations (1/(k+1)), Permutations k.
	PValue, PMin float64
	Permutations int
	// The same for the outlier score; NaN at the root.
	OutlierStatistic, OutlierFloor, OutlierP float64
	// PAdjusted and OutlierPAdjusted are corrected for the number of tests
	// (Holm, over both tests of every row); Reported tells that either is
	// at most Alpha.
	PAdjusted, OutlierPAdjusted float64
	Reported                    bool
}

// TestSummary describes the test of a table.
type TestSummary struct {
	// Method is "labels" (the runs' group labels permuted: repetitions),
	// "blocks" (no repetitions: the runs' cells permuted block of slices by
	// block of slices within each row) or "none".
	Method string
	// Exact tells that every relabelling was enumerated (Labelings of
	// them); PMin is then the smallest p-value they can give.
	Exact     bool
	Labelings int
	PMin      float64
	// Permutations is the most a row got, Alpha the error rate, Reported
	// the rows reported; Note says what limits the test.
	Permutations int
	Alpha        float64
	Reported     int
	Note         string
}

type tester struct {
	s      *Set
	tab    *Table
	opt    TestOptions
	method string
	rng    *rand.Rand
	// exact labellings (group of each run), when enumerated
	labelings [][]int
	pmin      float64
	maxPerm   int
	rows      []*Difference
	// scratch
	null, outNull         []float64
	units, parents        [][]float64
	masses, cells, pooled []float64
	scratch               []float64
}

func newTester(s *Set, tab *Table, opt TestOptions) *tester {
	R, X := len(s.Runs), len(s.States)
	t := &tester{s: s, tab: tab, opt: opt,
		units: matrix(R, X), parents: matrix(R, X), masses: make([]float64, R), cells: make([]float64, R),
		pooled: make([]float64, X), scratch: make([]float64, R)}
	switch {
	case opt.Permutations < 0:
		t.method = "none"
	case tab.Grouped:
		t.method = "labels"
		sizes := make([]int, len(tab.Groups))
		for _, g := range tab.GroupOf {
			sizes[g]++
		}
		if n := multinomial(sizes); n <= float64(opt.Exact) {
			t.labelings = enumerate(sizes)
			// Groups of equal sizes can be swapped without changing the
			// divergence between them.
			sym := 1.0
			count := map[int]int{}
			for _, n := range sizes {
				count[n]++
			}
			for _, c := range count {
				sym *= factorial(c)
			}
			t.pmin = sym / float64(len(t.labelings))
		}
	default:
		t.method = "blocks"
	}
	return t
}

func factorial(n int) float64 {
	f := 1.0
	for i := 2; i <= n; i++ {
		f *= float64(i)
	}
	return f
}

// multinomial returns the number of distinct labellings of runs with
// groups of the given sizes.
func multinomial(sizes []int) float64 {
	n := 0
	out := 0.0 // in logs
	for _, k := range sizes {
		n += k
		lf, _ := math.Lgamma(float64(k + 1))
		out -= lf
	}
	ln, _ := math.Lgamma(float64(n + 1))
	return math.Round(math.Exp(out + ln))
}

// enumerate lists every assignment of runs to groups of the given sizes.
func enumerate(sizes []int) [][]int {
	n := 0
	for _, k := range sizes {
		n += k
	}
	left := append([]int(nil), sizes...)
	cur := make([]int, n)
	var out [][]int
	var rec func(i int)
	rec = func(i int) {
		if i == n {
			out = append(out, append([]int(nil), cur...))
			return
		}
		for g := range left {
			if left[g] > 0 {
				left[g]--
				cur[i] = g
				rec(i + 1)
				left[g]++
			}
		}
	}
	rec(0)
	return out
}

// stats returns the divergence and outlier statistics of run sums whose
// units are given by unitOf (nil: each run its own), from the tester's
// scratch (no allocation: it runs once per permutation).
func (t *tester) stats(runSums, parSums [][]float64, hasParent bool, cells float64, unitOf []int, units int) (float64, float64) {
	us, ps, masses, ref := runSums, parSums, t.masses[:len(runSums)], t.s.Reference
	if unitOf != nil {
		us, ps, masses, ref = t.units[:units], t.parents[:units], t.masses[:units], unitOf[t.s.Reference]
		for u := range us {
			clear(us[u])
			clear(ps[u])
		}
		for r, u := range unitOf {
			addTo(us[u], runSums[r])
			addTo(ps[u], parSums[r])
		}
	}
	cs := t.cells[:len(us)]
	for u := range cs {
		cs[u] = 0
	}
	if unitOf == nil {
		for u := range cs {
			cs[u] = cells
		}
	} else {
		for _, u := range unitOf {
			cs[u] += cells
		}
	}
	div := diverge(us, cs, t.pooled, t.scratch[:len(us)]).Score()
	out := math.NaN()
	if hasParent {
		for u, v := range us {
			masses[u] = 0
			for _, y := range v {
				masses[u] += y
			}
		}
		_, out, _ = outlier(us, ps, masses, ref)
	}
	return div, out
}

func addTo(dst, src []float64) {
	for i, v := range src {
		dst[i] += v
	}
}

// test runs the permutations of one row.
func (t *tester) test(d *Difference, data *rowData, index int) {
	t.rng = rand.New(rand.NewPCG(t.opt.Seed, uint64(index)))
	rt := &d.Test
	*rt = RowTest{Statistic: math.NaN(), Floor: math.NaN(), Excess: math.NaN(), PValue: math.NaN(), PMin: math.NaN(),
		OutlierStatistic: math.NaN(), OutlierFloor: math.NaN(), OutlierP: math.NaN(),
		PAdjusted: math.NaN(), OutlierPAdjusted: math.NaN()}
	if t.method == "none" {
		return
	}
	var unitOf []int
	units := 0
	if t.method == "labels" {
		unitOf, units = t.tab.GroupOf, len(t.tab.Groups)
	}
	obs, obsOut := t.stats(data.runSums, data.parSums, data.hasParent, data.cells, unitOf, units)
	rt.Statistic, rt.OutlierStatistic = obs, obsOut
	t.null, t.outNull = t.null[:0], t.outNull[:0]
	exceed, exceedOut := 0, 0
	eps := 1e-12 * math.Max(1, math.Abs(obs))
	epsOut := 1e-12 * math.Max(1, math.Abs(obsOut))
	record := func(div, out float64) {
		t.null = append(t.null, div)
		if div >= obs-eps {
			exceed++
		}
		if data.hasParent {
			t.outNull = append(t.outNull, out)
			if out >= obsOut-epsOut {
				exceedOut++
			}
		}
	}
	stop := func() bool {
		k := len(t.null)
		if k < 99 {
			return false
		}
		settled := func(e int) bool {
			// Enough exceedances: plainly not significant. None after 199:
			// the p-value comes from the fitted tail, which more
			// permutations barely move.
			return e >= t.opt.Stop || (e == 0 && k >= 199)
		}
		return settled(exceed) && (!data.hasParent || settled(exceedOut))
	}
	exact := false
	switch {
	case t.method == "labels" && t.labelings != nil:
		exact = true
		for _, lab := range t.labelings {
			record(t.stats(data.runSums, data.parSums, data.hasParent, data.cells, lab, units))
		}
	case t.method == "labels":
		lab := append([]int(nil), unitOf...)
		for k := 0; k < t.opt.Permutations && !stop(); k++ {
			t.rng.Shuffle(len(lab), func(i, j int) { lab[i], lab[j] = lab[j], lab[i] })
			record(t.stats(data.runSums, data.parSums, data.hasParent, data.cells, lab, units))
		}
	default:
		t.blockPermutations(d, data, record, stop)
	}
	k := len(t.null)
	t.maxPerm = max(t.maxPerm, k)
	rt.Permutations = k
	if k == 0 {
		return
	}
	rt.Floor = quantile(t.null, 0.95)
	rt.Excess = obs - rt.Floor
	if exact {
		rt.PValue = float64(exceed) / float64(k)
		rt.PMin = t.pmin
		if data.hasParent {
			rt.OutlierFloor = quantile(t.outNull, 0.95)
			rt.OutlierP = float64(exceedOut) / float64(k)
		}
		return
	}
	rt.PMin = 1 / float64(k+1)
	rt.PValue = pValue(t.null, exceed, obs, gammaTail)
	if data.hasParent {
		rt.OutlierFloor = quantile(t.outNull, 0.95)
		rt.OutlierP = pValue(t.outNull, exceedOut, obsOut, gammaTail)
	}
}

// pValue is (exceed+1)/(k+1), or, when no permutation reached the
// observed statistic, the tail of a distribution fitted to the null's
// mean and variance (at most 1/(k+1)).
func pValue(null []float64, exceed int, obs float64, tail func(mean, variance, x float64) float64) float64 {
	k := len(null)
	if exceed > 0 {
		return float64(exceed+1) / float64(k+1)
	}
	mean, m2 := 0.0, 0.0
	for i, v := range null {
		delta := v - mean
		mean += delta / float64(i+1)
		m2 += delta * (v - mean)
	}
	variance := m2 / float64(max(1, k-1))
	// Not 0: a tail that underflows still ranks above none.
	return math.Max(math.Min(tail(mean, variance, obs), 1/float64(k+1)), math.SmallestNonzeroFloat64)
}

func quantile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}

// blockPermutations permutes the runs' cells block by block within the
// row: a block is Block consecutive slices of every resource of the row
// (the resources of one slice move together: their cells share the
// slice's events, an iteration longer in one run makes every resource
// wait longer, and swapping them apart would make that common shift look
// significant), blocks grouped into at most MaxBlocks.
func (t *tester) blockPermutations(d *Difference, data *rowData, record func(div, out float64), stop func() bool) {
	s := t.s
	R, X := len(s.Runs), len(s.States)
	lo, hi := s.Resources.LeafLo[d.Node], s.Resources.LeafHi[d.Node]
	width := int(d.Last-d.First) + 1
	n0 := (width + t.opt.Block - 1) / t.opt.Block
	nb := min(n0, t.opt.MaxBlocks)
	if nb < 2 {
		// One block: swapping it changes nothing.
		record(t.stats(data.runSums, data.parSums, data.hasParent, data.cells, nil, 0))
		return
	}
	blocks := make([]float64, nb*R*X)
	for l := lo; l < hi; l++ {
		for i := 0; i < width; i++ {
			b := (i / t.opt.Block) * nb / n0
			for r := 0; r < R; r++ {
				cell := s.Cell(r, int(l), int(d.First)+i)
				dst := blocks[(b*R+r)*X : (b*R+r+1)*X]
				for x, v := range cell {
					dst[x] += v
				}
			}
		}
	}
	sumsP, parP := matrix(R, X), matrix(R, X)
	perm := make([]int, R)
	var diff []float64
	if R == 2 {
		// Swapping block b moves diff_b = B_b,1 - B_b,0 from run 1 to run 0.
		// By block, the states padded to a multiple of 4 with zeros
		// (swapTwo's lanes).
		diff = make([]float64, nb*lanes(X))
		for b := 0; b < nb; b++ {
			for x := 0; x < X; x++ {
				diff[b*lanes(X)+x] = blocks[(b*2+1)*X+x] - blocks[(b*2)*X+x]
			}
		}
	}
	var words []uint64
	if R == 2 {
		words = make([]uint64, (nb+63)/64)
	}
	for k := 0; k < t.opt.Permutations && !stop(); k++ {
		if R == 2 {
			swap(sumsP, data.runSums, diff, words, nb, t.rng)
		} else {
			for r := range sumsP {
				clear(sumsP[r])
			}
			for b := 0; b < nb; b++ {
				for i := range perm {
					perm[i] = i
				}
				t.rng.Shuffle(R, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
				for r := 0; r < R; r++ {
					addTo(sumsP[r], blocks[(b*R+perm[r])*X:(b*R+perm[r]+1)*X])
				}
			}
		}
		if data.hasParent {
			for r := 0; r < R; r++ {
				for x := 0; x < X; x++ {
					parP[r][x] = data.parSums[r][x] - data.runSums[r][x] + sumsP[r][x]
				}
			}
		}
		record(t.stats(sumsP, parP, data.hasParent, data.cells, nil, 0))
	}
}

// swap is swapTwo; the tests put the loop it replaced in its place.
var swap = swapTwo

// lanes is the stride of swapTwo's differences: x states padded to a
// multiple of 4.
func lanes(x int) int { return (x + 3) &^ 3 }

// swapTwo sets sums to the sums of two runs, runSums, with the blocks
// random bits choose swapped: block b moves diff[b*S:b*S+X] (S =
// lanes(X)) from run 1 to run 0. The bits are drawn as they always were,
// a Uint64 for every 64 blocks, bit i of word w for block 64w+i (words
// holds them: one per 64 blocks, that many blocks). The swapped blocks
// are added in the order of the blocks, as they always were: the same
// sums, bit for bit. They are visited by their set bits, not by a branch
// on each random bit (half of them mispredicted: most of the test's time
// on 10,000 rows), 4 states at a time, whose 8 sums do not wait for each
// other.
func swapTwo(sums, runSums [][]float64, diff []float64, words []uint64, blocks int, rng *rand.Rand) {
	for w := range words {
		words[w] = rng.Uint64()
	}
	if r := blocks % 64; r != 0 {
		words[len(words)-1] &= 1<<r - 1
	}
	X := len(sums[0])
	S := lanes(X)
	diff = diff[:blocks*S]
	var in0, in1, out0, out1 [4]float64
	for x0 := 0; x0 < X; x0 += 4 {
		n := min(4, X-x0)
		copy(in0[:], runSums[0][x0:x0+n])
		copy(in1[:], runSums[1][x0:x0+n])
		a0, a1, a2, a3 := in0[0], in0[1], in0[2], in0[3]
		c0, c1, c2, c3 := in1[0], in1[1], in1[2], in1[3]
		for w, bits := range words {
			for ; bits != 0; bits &= bits - 1 {
				i := (64*w+bits64.TrailingZeros64(bits))*S + x0
				d := diff[i : i+4 : i+4]
				a0, a1, a2, a3 = a0+d[0], a1+d[1], a2+d[2], a3+d[3]
				c0, c1, c2, c3 = c0-d[0], c1-d[1], c2-d[2], c3-d[3]
			}
		}
		out0, out1 = [4]float64{a0, a1, a2, a3}, [4]float64{c0, c1, c2, c3}
		copy(sums[0][x0:x0+n], out0[:n])
		copy(sums[1][x0:x0+n], out1[:n])
	}
}

// clone returns a tester for another goroutine: the same test, its own
// scratch.
func (t *tester) clone() *tester {
	R, X := len(t.s.Runs), len(t.s.States)
	return &tester{s: t.s, tab: t.tab, opt: t.opt, method: t.method, labelings: t.labelings, pmin: t.pmin,
		units: matrix(R, X), parents: matrix(R, X), masses: make([]float64, R), cells: make([]float64, R),
		pooled: make([]float64, X), scratch: make([]float64, R)}
}

// adjust corrects the rows' p-values for their number (Holm, over the
// divergence and the outlier tests of every row together: the table's
// family-wise error rate is at most Alpha) and marks the rows reported.
func (t *tester) adjust() {
	type test struct {
		d       *Difference
		outlier bool
		p       float64
	}
	var tests []test
	for _, d := range t.rows {
		if !math.IsNaN(d.Test.PValue) {
			tests = append(tests, test{d, false, d.Test.PValue})
		}
		if !math.IsNaN(d.Test.OutlierP) {
			tests = append(tests, test{d, true, d.Test.OutlierP})
		}
	}
	sort.SliceStable(tests, func(a, b int) bool { return tests[a].p < tests[b].p })
	m := len(tests)
	running := 0.0
	for k, ts := range tests {
		running = math.Max(running, math.Min(1, float64(m-k)*ts.p))
		if ts.outlier {
			ts.d.Test.OutlierPAdjusted = running
		} else {
			ts.d.Test.PAdjusted = running
		}
	}
	for _, d := range t.rows {
		d.Test.Reported = d.Test.PAdjusted <= t.opt.Alpha || d.Test.OutlierPAdjusted <= t.opt.Alpha
	}
}

func (t *tester) summary() TestSummary {
	out := TestSummary{Method: t.method, Exact: t.labelings != nil, Labelings: len(t.labelings), PMin: t.pmin,
		Permutations: t.maxPerm, Alpha: t.opt.Alpha}
	for _, d := range t.rows {
		if d.Test.Reported {
			out.Reported++
		}
	}
	switch {
	case t.method == "none":
		out.Note = "no test asked for"
	case out.Exact && t.pmin > t.opt.Alpha:
		out.Note = fmt.Sprintf("%d relabellings of the runs cannot give a p-value below %.3g: at least 4 repetitions per label are needed for alpha = %g", len(t.labelings), t.pmin, t.opt.Alpha)
	case out.Exact && float64(len(t.rows))*t.pmin > t.opt.Alpha:
		out.Note = fmt.Sprintf("%d relabellings of the runs give p-values down to %.3g, but corrected for %d rows none can be below %.3g: more repetitions, or fewer rows (a coarser level), are needed to report a row at alpha = %g", len(t.labelings), t.pmin, len(t.rows), math.Min(1, float64(len(t.rows))*t.pmin), t.opt.Alpha)
	case t.method == "blocks":
		out.Note = "without repetitions the runs' cells are permuted by slices within each row; rows chosen on the same data (a level's) have optimistic p-values"
	}
	return out
}
