// Package aggregate computes the optimal aggregations of a microscopic
// model: partitions of (hierarchy x time) that trade information loss for
// simplicity, following Dosimont et al. 2014 (Ocelotl's spatiotemporal aggregation)
// and Lamarche-Perrin et al. (Viva's spatial aggregation).
//
// Three kinds of partitions are searched (Kind): any partition consistent
// with the hierarchy and the order of time (Spatiotemporal), cuts of the
// hierarchy over a time window (Spatial), and time cuts shared by every
// resource (Temporal). All measure an aggregate alike, over the cells
// (resource x slice) it covers, so their results compare directly.
//
// The trade-off is pIC = p * gain - (1-p) * loss, where gain measures how
// much simpler an aggregate is than its cells (entropy reduction, or the
// number of values saved) and loss how much information it hides
// (Kullback-Leibler divergence of the cells to their mean). p = 0 keeps
// every cell (the most precise partition); p = 1 merges everything. The
// spatial kind measures as Lamarche-Perrin et al. by default: resources
// valued by their shares of the window, the number of values saved
// (DefaultGain, DefaultEntities).
//
// What p means: an aggregate beats its parts when p/(1-p) exceeds the loss
// it adds divided by the gain it brings. With raw entropy measures these
// are bits weighted by the cells' values, so the p at which a given
// anomaly is merged shrinks as the system grows (a heterogeneous machine
// of 100 processes among a million is merged away from p ~ 1.5e-4). With
// Options.Normalize, gain
// and loss are fractions of those of the coarsest partition: p/(1-p) is
// the share of the total loss one accepts to pay for each share of the
// total gain, the coarsest partition wins a little above p = 1/2 on most
// models, and the range of p reads the same on any model. Either way, the
// optimum as a function of p is a staircase of finitely many partitions,
// which SignificantExact lists exactly, whatever their scale.
package aggregate

import (
	"math"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/hier"
	"github.com/macroscope-hpc/macroscope/core/sparse"
)

// Input is what aggregation needs of a microscopic model: a hierarchy whose
// leaves are resources, and a non-negative value per leaf, slice and state,
// held densely (Values) or by their non-zero entries (Cells).
//
// The engines give the same results, bit for bit, whichever holds the
// values: an entry missing from Cells adds the same exact zeros that the
// dense array holds. With Cells, their work follows the non-zero values:
// a node's states are those with a value in its cells, and a state's sums
// over intervals of time skip the slices where it is absent (see
// docs/aggregation.md, "Sparse models").
type Input struct {
	Tree   *hier.Tree
	Slices int
	States int
	// Values at [(leaf*Slices+slice)*States+state], or nil when Cells
	// holds them.
	Values []float64
	// Cells holds the non-zero values, cell leaf*Slices+slice after cell,
	// or is nil when Values holds them.
	Cells *sparse.Cells
}

// isSparse tells whether the values are in Cells.
func (in Input) isSparse() bool { return in.Cells != nil }

// cellEntries returns the states and values of the non-zero entries of
// cells (leaf, first) to (leaf, last) of a sparse input, in order.
func (in Input) cellEntries(leaf, first, last int) ([]int32, []float64) {
	c := leaf * in.Slices
	return in.Cells.Range(c+first, c+last+1)
}

func (in Input) validate(workers int) error {
	if in.Tree == nil || in.Tree.Len() == 0 || len(in.Tree.Leaves) == 0 {
		return errs.Argument("model", "the hierarchy is empty")
	}
	if in.Slices < 1 {
		return errs.Argument("slices", "a model needs at least one time slice, got %d", in.Slices)
	}
	if in.Slices > math.MaxUint16-2 {
		return errs.Argument("slices", "at most %d slices can be aggregated, got %d", math.MaxUint16-2, in.Slices)
	}
	if in.States < 1 {
		return errs.Argument("model", "the model has no state")
	}
	if in.Cells != nil {
		return in.validateCells(workers)
	}
	if want := len(in.Tree.Leaves) * in.Slices * in.States; len(in.Values) != want {
		return errs.Argument("model", "%d values for %d leaves x %d slices x %d states", len(in.Values), len(in.Tree.Leaves), in.Slices, in.States)
	}
	if i := firstInvalid(in.Values, workers); i >= 0 {
		leaf, rest := i/(in.Slices*in.States), i%(in.Slices*in.States)
		return errs.Argument("model", "value %v at leaf %q, slice %d, state %d is not a finite non-negative number",
			in.Values[i], in.Tree.Path(in.Tree.Leaves[leaf], "/"), rest/in.States, rest%in.States)
	}
	return nil
}

// validateCells checks a sparse input: its layout, then its values.
func (in Input) validateCells(workers int) error {
	if in.Values != nil {
		return errs.Argument("model", "the values are given twice, dense and sparse")
	}
	cells := len(in.Tree.Leaves) * in.Slices
	if err := in.Cells.Check(cells, in.States); err != nil {
		return errs.Argument("model", "%d leaves x %d slices x %d states: %v", len(in.Tree.Leaves), in.Slices, in.States, err)
	}
	if i := firstInvalid(in.Cells.Value, workers); i >= 0 {
		c := in.Cells.CellOf(i)
		return errs.Argument("model", "value %v at leaf %q, slice %d, state %d is not a finite non-negative number",
			in.Cells.Value[i], in.Tree.Path(in.Tree.Leaves[c/in.Slices], "/"), c%in.Slices, in.Cells.State[i])
	}
	return nil
}

// firstInvalid returns the index of the first value that is not a finite
// non-negative number, or -1, looking at chunks of the values on up to
// workers goroutines (a million-leaf model has over 100 million values).
func firstInvalid(values []float64, workers int) int {
	const chunk = 1 << 20
	n := (len(values) + chunk - 1) / chunk
	first := make([]int, n)
	forChunks(n, workers, func(c int) {
		lo := c * chunk
		first[c] = -1
		for i, v := range values[lo:min(lo+chunk, len(values))] {
			if !(v >= 0) || math.IsInf(v, 0) { // also catches NaN
				first[c] = lo + i
				break
			}
		}
	})
	for _, i := range first {
		if i >= 0 {
			return i
		}
	}
	return -1
}
