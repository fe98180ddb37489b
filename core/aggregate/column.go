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
// is flagged instead, and left to resolveRow, which applies the whole rule
// to it; in lpaggreg's synthetic model about one row in twelve. The
// candidates are added as the plain loop adds them (best + agg), so the
// values compared, and the values kept, are the same bits.
//
// columnSearch is written in assembly where available (column_amd64.s);
// columnSearchGeneric is the same computation in Go.

// columnSearchGeneric sets, for i in [0, j] with j = len(pos)-1, where
// best(i,m) is v[m*T+i] and agg(m,j) is av[m], pos[i] to the winning
// candidate for [i..j] when it is the only one of its value: 0 for
// agg(i,j), c = m+1 for best(i,m) + agg(m+1,j) (the cut after m). pos[i]
// is -1 when, going through the candidates in order, one equals the
// largest value before it, or is NaN, or agg(i,j) is NaN: resolveRow
// decides those rows. Rows i with skip[i] set are left alone (skip may be
// nil).
func columnSearchGeneric(v []float64, T int, av []float64, pos []int, skip []bool) {
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
			c = -1
		}
		pos[i] = c
	}
}

// resolveRow returns the winning candidate for [i..j] (0 or the cut c, as
// columnSearch) by the whole rule, or -1 if no candidate equals the
// largest value, which only NaN values cause. best(i,m) is (v, g, l)[m*T+i]
// and agg(m,j) is (av, ag, al)[m].
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

// composeRow sets best(i,j) (at j*T+i) to its optimum, the candidate c
// (0 or a cut, see columnSearch), and returns c as the cut to record.
func composeRow(v, g, l []float64, T, i, j int, av, ag, al []float64, c int) {
	at := j*T + i
	if c == 0 {
		v[at], g[at], l[at] = av[i], ag[i], al[i]
		return
	}
	from := (c-1)*T + i // best(i, c-1)
	v[at], g[at], l[at] = v[from]+av[c], g[from]+ag[c], l[from]+al[c]
}

// columnComposeGeneric is columnBestComposed in Go: the search of column
// j = len(pos)-1, then every row's optimum and cut (cut[i] for row i). It
// reports false, once it has found a row with no winner (NaN qualities),
// which the general loop of bestIntervals handles.
func columnComposeGeneric(v, g, l []float64, T int, av, ag, al []float64, pos []int, cut []byte) bool {
	columnSearchGeneric(v, T, av, pos, nil)
	return resolveColumn(v, g, l, T, av, ag, al, pos, cut, true)
}

// resolveColumn resolves the flagged rows of a searched column (pos[i] <
// 0) and composes them, or every row if all is set; it reports false,
// leaving the rest undone, at a row with no winner.
func resolveColumn(v, g, l []float64, T int, av, ag, al []float64, pos []int, cut []byte, all bool) bool {
	j := len(pos) - 1
	cut = cut[:len(pos)]
	for i, c := range pos {
		if c >= 0 && !all {
			continue
		}
		if c < 0 {
			if c = resolveRow(i, j, T, v, g, l, av, ag, al); c < 0 {
				return false
			}
			pos[i] = c
		}
		composeRow(v, g, l, T, i, j, av, ag, al, c)
		cut[i] = byte(c)
	}
	return true
}
