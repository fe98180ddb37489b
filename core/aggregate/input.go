// Package aggregate computes the optimal aggregations of a microscopic
// model: partitions of (hierarchy x time) that trade information loss for
// simplicity, following seed 000 (Ocelotl's spatiotemporal aggregation)
// and seed 003 (Viva's spatial aggregation).
//
// The trade-off is pIC = p * gain - (1-p) * loss, where gain measures how
// much simpler an aggregate is than its cells (entropy reduction) and loss
// how much information it hides (Kullback-Leibler divergence of the cells
// to their mean). p = 0 keeps every cell; p = 1 merges everything.
package aggregate

import (
	"math"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/hier"
)

// Input is what aggregation needs of a microscopic model: a hierarchy whose
// leaves are resources, and a non-negative value per leaf, slice and state.
type Input struct {
	Tree   *hier.Tree
	Slices int
	States int
	// Values at [(leaf*Slices+slice)*States+state].
	Values []float64
}

func (in Input) validate() error {
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
	if want := len(in.Tree.Leaves) * in.Slices * in.States; len(in.Values) != want {
		return errs.Argument("model", "%d values for %d leaves x %d slices x %d states", len(in.Values), len(in.Tree.Leaves), in.Slices, in.States)
	}
	for i, v := range in.Values {
		if !(v >= 0) || math.IsInf(v, 0) { // also catches NaN
			leaf, rest := i/(in.Slices*in.States), i%(in.Slices*in.States)
			return errs.Argument("model", "value %v at leaf %q, slice %d, state %d is not a finite non-negative number",
				v, in.Tree.Path(in.Tree.Leaves[leaf], "/"), rest/in.States, rest%in.States)
		}
	}
	return nil
}
