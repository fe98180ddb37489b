package aggregate

import (
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// Entities names what the spatial kind measures its aggregates over.
//
// By default every kind measures an aggregate over the cells (resource x
// slice) it covers, so that the three kinds' partitions and quality curves
// compare directly. Lamarche-Perrin et al. (the spatial aggregation of
// Viva) measure each resource once, by its values summed over the window:
// an aggregate of |A| resources saves |A| - 1 values (gain="size"), and
// its entropy gain and divergence are those of the resources' sums. Both
// differ from the cells' by the same amount for every cut (the resources'
// own temporal gain and loss), so the raw optimum at a given p is the
// same; but the normalised measures, and so the p at which a cut becomes
// optimal, depend on the number of slices with cells and not with
// resources: summed over the window, every value is the time spent in the
// state divided by the slice length, so more slices scale every measure
// of every node alike, which normalisation cancels.
type Entities string

// The entities of the spatial kind.
const (
	// EntitiesCells measures aggregates over their cells (the default).
	EntitiesCells Entities = "cells"
	// EntitiesResources measures aggregates over their resources, each
	// summed over the window (spatial kind only).
	EntitiesResources Entities = "resources"
)

// ParseEntities reads an entities name (case-insensitive; empty means
// EntitiesCells).
func ParseEntities(s string) (Entities, error) {
	switch e := Entities(strings.ToLower(strings.TrimSpace(s))); e {
	case EntitiesCells, EntitiesResources:
		return e, nil
	case "":
		return EntitiesCells, nil
	}
	return "", errs.Argument("entities", "unknown entities %q (use %q or %q)", s, EntitiesCells, EntitiesResources)
}

// xlog2xSum returns the sum of v log2 v over vs, in batches of buf's
// length.
func xlog2xSum(vs, buf []float64) float64 {
	e := 0.0
	for len(vs) > 0 {
		b := buf[:min(len(vs), len(buf))]
		xlog2xTo(b, vs[:len(b)])
		for _, v := range b {
			e += v
		}
		vs = vs[len(b):]
	}
	return e
}
