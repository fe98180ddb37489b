package aggregate

// The hot loop of the spatiotemporal dynamic program (bestIntervals), for
// one column j of a node's table: for every start i <= j, the best of the
// candidates for [i..j], taken in this order:
//
//	agg(i,j), then best(i,m) + agg(m+1,j) for m = i, ..., j-1
//
// The largest value wins; among candidates of that value, the first wins
// unless a later one has a larger gain, or the same gain and a smaller
// loss.
//
// Tables are stored by column (best(i,m) at m*T+i, see table), so the
// search runs down the rows: for each m, the candidates of every row
// i <= m are one contiguous column of best plus one number, agg(m+1,j).
// Each row keeps its largest value so far and the candidate that reached
// it first, replaced only by a strictly larger one: vector lanes are rows,
// with no reduction across lanes and no branch per candidate. A row in
// which a candidate equals the largest value so far (or anything is NaN)
// is flagged instead, and goes through its candidates again with the
// whole rule (resolveRow; the assembly goes through them again for the
// four rows of a block at once, and row by row only when a NaN is
// involved); in lpaggreg's synthetic model about one row in twelve. The
// candidates are added as the plain loop adds them (best + agg), so the
// values compared, and the values kept, are the same bits.
//
// columnSearch is written in assembly where available (column_amd64.s);
// columnSearchGeneric is the same computation in Go.

// columnSearchGeneric sets, for i in [0, j] with j = len(pos)-1, where
// best(i,m) is (v, g, l)[m*T+i] and agg(m,j) is (av, ag, al)[m], pos[i] to
// the winning candidate for [i..j]: 0 for agg(i,j), c = m+1 for
// best(i,m) + agg(m+1,j) (the cut after m); -1 if no candidate equals
// the largest value, which only NaN values cause. Rows i with skip[i] set
// are left alone (skip may be nil).
//
// Going through the candidates in order, a row keeps the first of the
// largest value as long as no other equals it; resolveRow decides the
// rows where one does (or where anything is NaN).
func columnSearchGeneric(v, g, l []float64, T int, av, ag, al []float64, pos []int, skip []bool) {
	j := len(pos) - 1
	for i := 0; i <= j; i++ {
		if skip != nil && skip[i] {
			continue
		}
		top, c := av[i], 0
		tie := top != top
		for m := i; m < j; m++ {
			x := v[m*T+i] + av[m+1]
			if x > top {
				top, c = x, m+1
			} else if !(x < top) { // equal, or unordered
				tie = true
			}
		}
		if tie {
			c = resolveRow(i, j, T, v, g, l, av, ag, al)
		}
		pos[i] = c
	}
}

// resolveRow returns the winning candidate for [i..j] (0 or the cut c, as
// columnSearch) by the whole rule, or -1 if no candidate equals the
// largest value, which only NaN values cause.
func resolveRow(i, j, T int, v, g, l, av, ag, al []float64) int {
	t := av[i]
	for m := i; m < j; m++ {
		t = max(t, v[m*T+i]+av[m+1])
	}
	found := -1
	var wg, wl float64 // gain and loss of the winner so far
	if av[i] == t {
		found, wg, wl = 0, ag[i], al[i]
	}
	for m := i; m < j; m++ {
		if v[m*T+i]+av[m+1] != t {
			continue
		}
		cg, cl := g[m*T+i]+ag[m+1], l[m*T+i]+al[m+1]
		if found < 0 || cg > wg || (cg == wg && cl < wl) {
			found, wg, wl = m+1, cg, cl
		}
	}
	return found
}

// The search at p = 0, in one pass.
//
// At p = 0 every value is minus a loss, bit for bit but for the sign of
// zero: a part's value is 0*g - 1*l = -l (0*g is a zero for a finite g,
// and a zero minus l is -l), and the values and losses of the tables are
// then added in the same order (a candidate is best + agg in both, a
// parent's split the sum of its children's in both), and rounding to
// nearest is symmetric, so that each value is the negated loss. Equal
// values have equal losses, so the whole rule's last test (the same gain
// and a smaller loss) never decides there, and the winner of a row is the
// first candidate, in order, of the largest value and, among those, of
// the largest gain: the lexicographic optimum on (value, gain), which one
// pass finds by keeping a candidate only when it is strictly larger in
// that order. That is resolveRow's answer without its second pass; at
// p = 0 most rows tie (every block of identical cells loses nothing), and
// the search for p > 0 flags them all for it. A NaN (a value 0*Inf, or an
// overflow) sends the row to resolveRow as in columnSearchGeneric.

// noLex turns the one-pass search at p = 0 off, so that tests can compare
// its solves with the general search's.
var noLex bool

// columnSearchLexGeneric is columnSearchGeneric for tables whose values
// are minus their losses (p = 0; see above), with no row skipped.
func columnSearchLexGeneric(v, g, l []float64, T int, av, ag, al []float64, pos []int) {
	j := len(pos) - 1
	for i := 0; i <= j; i++ {
		top, tg, c := av[i], ag[i], 0
		nan := top != top
		for m := i; m < j; m++ {
			x := v[m*T+i] + av[m+1]
			if x > top {
				top, tg, c = x, g[m*T+i]+ag[m+1], m+1
			} else if x == top {
				if cg := g[m*T+i] + ag[m+1]; cg > tg {
					tg, c = cg, m+1
				}
			} else if x != x {
				nan = true
			}
		}
		if nan {
			c = resolveRow(i, j, T, v, g, l, av, ag, al)
		}
		pos[i] = c
	}
}

// columnComposeGeneric is columnsBestComposed in Go for one column: the
// search of column j = len(pos)-1 (columnSearchLexGeneric's if lex, for
// tables whose values are minus their losses), then every row's optimum,
// best(i,j) at j*T+i, and its cut, cut[i]. It reports false, having
// composed nothing, if a row has no winner (NaN qualities), which the
// general loop of bestIntervals handles.
func columnComposeGeneric(v, g, l []float64, T int, av, ag, al []float64, pos []int, cut []byte, lex bool) bool {
	if lex {
		columnSearchLexGeneric(v, g, l, T, av, ag, al, pos)
	} else {
		columnSearchGeneric(v, g, l, T, av, ag, al, pos, nil)
	}
	for _, c := range pos {
		if c < 0 {
			return false
		}
	}
	j := len(pos) - 1
	cut = cut[:len(pos)]
	for i, c := range pos {
		at := j*T + i
		cut[i] = byte(c)
		if c == 0 {
			v[at], g[at], l[at] = av[i], ag[i], al[i]
			continue
		}
		from := (c-1)*T + i // best(i, c-1)
		v[at], g[at], l[at] = v[from]+av[c], g[from]+ag[c], l[from]+al[c]
	}
	return true
}

// columnsComposeGeneric is columnsBestComposed in Go: columnComposeGeneric
// for the columns j0, ..., last of a node's tables, agg and best, with pos
// holding last+1 values and cut the node's cut block, until a column has
// a row with no winner. It returns the number of columns composed.
func columnsComposeGeneric(best, agg table, T, j0, last int, pos []int, cut []byte, lex bool) int {
	for j := j0; j <= last; j++ {
		at, c := j*T, triIndex(0, j)
		if !columnComposeGeneric(best.v, best.g, best.l, T, agg.v[at:at+j+1], agg.g[at:at+j+1], agg.l[at:at+j+1], pos[:j+1], cut[c:c+j+1], lex) {
			return j - j0
		}
	}
	return last + 1 - j0
}
