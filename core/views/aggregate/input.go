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
