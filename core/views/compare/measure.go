package compare

import "math"

// The measure of a difference between runs (docs/compare.md derives it).
//
// For a footprint F (a hierarchy node over a range of slices) and the runs
// compared, V[r][x] is the sum over F's cells of run r of state x's value,
// M_r = sum_x V[r][x] its mass and M = sum_r M_r. Run r's distribution over
// the states is P_r = V[r]/M_r, the pooled one P = sum_r V[r]/M, and the
// mass weights pi_r = M_r/M. The seed's loss of aggregating F with every
// run together exceeds the sum of each run's own loss over F by exactly
//
//	M * (JS_pi(P_1..P_R) + KL(pi || w))
//
// where JS_pi is the Jensen-Shannon divergence of the runs' distributions
// weighted by their masses and w_r the share of F's cells that are run
// r's. With complete cells (every cell sums to 1: see Idle and Absent) pi
// = w and the second term vanishes.

// Entropy returns the Shannon entropy, in bits, of the distribution
// proportional to v (v need not sum to 1; zeros count for nothing).
func Entropy(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m += x
	}
	if m <= 0 {
		return 0
	}
	h := 0.0
	for _, x := range v {
		if x > 0 {
			h -= x / m * math.Log2(x/m)
		}
	}
	return h
}

// KL returns the Kullback-Leibler divergence KL(p || q), in bits, of the
// distributions proportional to p and q. It is +Inf when p puts mass
// where q puts none.
func KL(p, q []float64) float64 {
	mp, mq := 0.0, 0.0
	for i := range p {
		mp += p[i]
		mq += q[i]
	}
	if mp <= 0 {
		return 0
	}
	d := 0.0
	for i, x := range p {
		if x <= 0 {
			continue
		}
		if q[i] <= 0 {
			return math.Inf(1)
		}
		d += x / mp * math.Log2(x*mq/(mp*q[i]))
	}
	return math.Max(d, 0)
}

// Divergence is the difference between the runs over one footprint.
type Divergence struct {
	// JS is the Jensen-Shannon divergence, in bits, of the runs' state
	// distributions weighted by their masses: the mutual information
	// between the run and the state of a unit of mass drawn from the
	// footprint. 0 when the runs spend their time alike, at most H(pi)
	// <= log2 R.
	JS float64
	// Mass is M, the total of the values (the cells, when complete).
	Mass float64
	// MassKL is KL(pi || w): how much the runs' masses differ from their
	// shares of the cells (0 with complete cells).
	MassKL float64
}

// Score returns M (JS + KL(pi||w)), in bit-cells: what the seed's loss
// charges for merging the runs over the footprint once each is
// aggregated over it.
func (d Divergence) Score() float64 { return d.Mass * (d.JS + d.MassKL) }

// Diverge returns the divergence of the runs whose sums over a footprint
// are sums[r] (one value per state) and whose numbers of cells there are
// cells[r]. Runs with no cells are left out; runs with cells and no mass
// count in the mass divergence only.
func Diverge(sums [][]float64, cells []float64) Divergence {
	states := 0
	if len(sums) > 0 {
		states = len(sums[0])
	}
	return diverge(sums, cells, make([]float64, states), make([]float64, len(sums)))
}

// diverge is Diverge with its scratch given: pooled (one per state) and
// masses (one per run).
func diverge(sums [][]float64, cells []float64, pooled, masses []float64) Divergence {
	clear(pooled)
	var d Divergence
	nCells := 0.0
	for r, v := range sums {
		masses[r] = 0
		if cells[r] <= 0 {
			continue
		}
		nCells += cells[r]
		for x, y := range v {
			pooled[x] += y
			masses[r] += y
		}
		d.Mass += masses[r]
	}
	if d.Mass <= 0 {
		return Divergence{}
	}
	// sum_r pi_r KL(P_r || P) = (1/M) sum_{r,x} V_rx log2(V_rx M / (M_r V_x)):
	// each logarithm is near 0 when the runs agree, which keeps precision
	// where it matters.
	js := 0.0
	for r, v := range sums {
		if cells[r] <= 0 || masses[r] <= 0 {
			continue
		}
		scale := d.Mass / masses[r]
		for x, y := range v {
			if y > 0 {
				js += y * math.Log2(y*scale/pooled[x])
			}
		}
		pi, w := masses[r]/d.Mass, cells[r]/nCells
		d.MassKL += pi * math.Log2(pi/w)
	}
	d.JS = math.Max(js/d.Mass, 0)
	d.MassKL = math.Max(d.MassKL, 0)
	return d
}

// CellDivergence returns the Jensen-Shannon divergence, in bits, of the
// runs' distributions over (position, state) within a footprint:
// cells[r] lists run r's cells (position by position, each its states'
// values), all runs in the same positions. With complete cells it is the
// mean, over the positions, of the divergence of the runs' cells there;
// it is at least the divergence over states alone (Diverge's JS), the
// excess telling that the runs spend their time alike in total but not
// in the same places or at the same times.
func CellDivergence(cells [][]float64, states int) float64 {
	runs := len(cells)
	if runs == 0 || states == 0 {
		return 0
	}
	n := len(cells[0])
	masses := make([]float64, runs)
	total := 0.0
	for r := range cells {
		for _, v := range cells[r] {
			masses[r] += v
		}
		total += masses[r]
	}
	if total <= 0 {
		return 0
	}
	js := 0.0
	for i := 0; i < n; i++ {
		pooled := 0.0
		for r := range cells {
			pooled += cells[r][i]
		}
		if pooled <= 0 {
			continue
		}
		for r := range cells {
			if v := cells[r][i]; v > 0 {
				js += v * math.Log2(v*total/(masses[r]*pooled))
			}
		}
	}
	return math.Max(js/total, 0)
}
