package aggregate

// The hot loop of the spatiotemporal dynamic program (bestIntervals), for
// one column j of a node's table: for every start i <= j, the best of the
// candidates for [i..j], taken in this order:
//
//	agg(i,j), then best(i,m) + agg(m+1,j) for m = i, ..., j-1
//
// The largest value wins; among candidates of that value, the first wins
// unless a later one has a larger gain, or the same gain and a smaller
// loss. columnBest is written in assembly where available
// (column_amd64.s); columnBestGeneric is the same computation in Go. Both
// find the largest value first (the maximum of a set of numbers is exact,
// whatever the order of the comparisons), then go through the candidates
// equal to it, in order: the same choice as comparing the candidates one
// after the other, without a branch per candidate.

// columnBestGeneric sets, for i in [0, j] with j = len(top)-1, where
// best(i,m) is (v, g, l)[i*T+m] and agg(m,j) is (av, ag, al)[m]:
//
//   - top[i] to the largest candidate value for [i..j];
//   - pos[i] to the winning candidate: 0 for agg(i,j), m-i+1 for
//     best(i,m) + agg(m+1,j); -1 if no candidate equals top[i], which only
//     NaN values can cause.
//
// Rows i with skip[i] set are left alone (skip may be nil).
func columnBestGeneric(v, g, l []float64, T int, av, ag, al, top []float64, pos []int, skip []bool) {
	j := len(top) - 1
	for i := 0; i <= j; i++ {
		if skip != nil && skip[i] {
			continue
		}
		heads, tails := v[i*T+i:i*T+j], av[i+1:j+1]
		tails = tails[:len(heads)] // lets the compiler drop bounds checks
		m0, m1 := av[i], av[i]
		m := 0
		for ; m+2 <= len(heads); m += 2 {
			m0 = max(m0, heads[m]+tails[m])
			m1 = max(m1, heads[m+1]+tails[m+1])
		}
		if m < len(heads) {
			m0 = max(m0, heads[m]+tails[m])
		}
		t := max(m0, m1)
		top[i] = t
		found := -1
		var wg, wl float64 // gain and loss of the winner so far
		if av[i] == t {
			found, wg, wl = 0, ag[i], al[i]
		}
		for m, h := range heads {
			if h+tails[m] != t {
				continue
			}
			cg, cl := g[i*T+i+m]+ag[i+1+m], l[i*T+i+m]+al[i+1+m]
			if found < 0 || cg > wg || (cg == wg && cl < wl) {
				found, wg, wl = m+1, cg, cl
			}
		}
		pos[i] = found
	}
}
