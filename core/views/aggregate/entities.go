package aggregate

import (
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// Entities names what the spatial kind measures its aggregates over.
//
// The spatial kind follows Lamarche-Perrin et al. by default (the
// spatial aggregation of Viva): each resource is measured once, by its
// values over the whole window, so an aggregate of |A| resources saves
// |A| - 1 values (gain "size") and its divergence is that of the
// resources' values to their mean. A resource's value for a state is its
// mean over the window's slices, the share of the window it spends in the
// state, which does not depend on the number of slices: neither do the
// measures, raw or normalised, nor the levels of p (up to rounding).
//
// The other kinds measure an aggregate over the cells (resource x slice)
// it covers; EntitiesCells gives the spatial kind the same measure, so
// that the three kinds' partitions and quality curves compare directly.
// With the entropy gain, the cells' measures differ from the resources'
// by the same amount for every cut (the resources' own temporal gain and
// loss), so the raw optimum at a given p is the same; but normalisation
// divides by the whole model's measures, which include that amount, so
// the normalised p at which a cut becomes optimal then depends on the
// number of slices.
type Entities string

// The entities of the spatial kind.
const (
	// EntitiesCells measures aggregates over their cells (the default of
	// the spatiotemporal and temporal kinds).
	EntitiesCells Entities = "cells"
	// EntitiesResources measures aggregates over their resources, each
	// by its mean over the window (spatial kind only, and its default).
	EntitiesResources Entities = "resources"
)

// ParseEntities reads an entities name (case-insensitive; empty stays
// empty: the kind's default, see DefaultEntities).
func ParseEntities(s string) (Entities, error) {
	switch e := Entities(strings.ToLower(strings.TrimSpace(s))); e {
	case EntitiesCells, EntitiesResources, "":
		return e, nil
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
