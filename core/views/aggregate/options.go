package aggregate

import (
	"runtime"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// Kind names one of the three families of partitions.
type Kind string

// The kinds of aggregation.
const (
	// KindSpatiotemporal: any partition consistent with the hierarchy and
	// the order of time (Dosimont et al. 2014, Algorithm 1).
	KindSpatiotemporal Kind = "spatiotemporal"
	// KindSpatial: a cut of the hierarchy, every aggregate spanning the
	// whole time window (Lamarche-Perrin et al., Algorithm 1).
	KindSpatial Kind = "spatial"
	// KindTemporal: one set of time cuts shared by every resource,
	// resources never merged (lpaggreg's OLP).
	KindTemporal Kind = "temporal"
)

// ParseKind reads a kind name (case-insensitive).
func ParseKind(s string) (Kind, error) {
	switch k := Kind(strings.ToLower(strings.TrimSpace(s))); k {
	case KindSpatiotemporal, KindSpatial, KindTemporal:
		return k, nil
	case "":
		return KindSpatiotemporal, nil
	}
	return "", errs.Argument("kind", "unknown kind %q (use %q, %q or %q)", s, KindSpatiotemporal, KindSpatial, KindTemporal)
}

// GainMeasure names how the simplification an aggregate brings is measured.
type GainMeasure string

// The gain measures of Lamarche-Perrin et al. (section 3.4).
const (
	// GainEntropy is the entropy reduction sum_x (V_x log2 V_x - sum_c v_c
	// log2 v_c): the information needed to tell the cells apart.
	GainEntropy GainMeasure = "entropy"
	// GainSize is |A| - 1, the number of values an aggregate saves (one
	// value per cell, whatever the number of states). It is not in the units
	// of the loss, so use it with normalisation.
	GainSize GainMeasure = "size"
)

// ParseGain reads a gain measure name (case-insensitive; empty stays
// empty: the kind's default, see DefaultGain).
func ParseGain(s string) (GainMeasure, error) {
	switch g := GainMeasure(strings.ToLower(strings.TrimSpace(s))); g {
	case GainEntropy, GainSize, "":
		return g, nil
	}
	return "", errs.Argument("gain", "unknown gain measure %q (use %q or %q)", s, GainEntropy, GainSize)
}

// Window is a range of slices, First..Last inclusive.
type Window struct {
	First, Last int
}

// Options tune the measures and the resources an engine may use.
type Options struct {
	// Normalize divides every gain by the gain of the coarsest partition
	// of the kind (the one optimal at p = 1: the root over the whole time
	// for the spatiotemporal kind, the root over the window for the
	// spatial kind, every resource over the whole time for the temporal
	// kind) and every loss by its loss, so that both lie in [0, 1]. That
	// is what lpaggreg's R binding does. It changes which partition is
	// optimal for a given p, not the set of partitions that are optimal for
	// some p.
	Normalize bool
	// Gain chooses the gain measure; empty means the kind's default
	// (DefaultGain: the size gain for the spatial kind, as in
	// Lamarche-Perrin et al.; the entropy gain for the others).
	Gain GainMeasure
	// Window restricts the spatial kind to a range of slices; nil means
	// every slice. The other kinds ignore it.
	Window *Window
	// CacheBytes bounds the memory used to keep the gain and loss of every
	// (node, interval) between solves; 0 means 2 GiB, a negative value
	// disables the cache. Larger models recompute them on every solve,
	// but for the nodes it has room for, the dearest, once a search that
	// solves several times (Knee, the Significant functions) has begun.
	CacheBytes int64
	// SweepBytes bounds the memory the significant-p sweeps use to keep the
	// solutions they reuse (see SignificantExact); 0 means 1 GiB, a
	// negative value disables reuse.
	SweepBytes int64
	// Workers is the number of goroutines; 0 means GOMAXPROCS.
	Workers int
	// MemoryBudget bounds the memory a solve needs (the spatiotemporal
	// kind's decisions and scratch, quadratic in the slices): an engine
	// that would need more is refused when it is made. 0 means
	// budget.Default (a share of the memory available), a negative value
	// no limit.
	MemoryBudget int64
	// Ties chooses the optimum returned at p = 0, where many tie; empty
	// means TiesFinest (see TieRule).
	Ties TieRule
	// Entities chooses what the spatial kind measures its aggregates
	// over; empty means the kind's default (DefaultEntities: resources for
	// the spatial kind, see Entities). The other kinds accept cells only.
	Entities Entities
}

// DefaultGain is the gain measure an engine of the kind uses when
// Options.Gain is empty. The spatial kind follows Lamarche-Perrin et al.
// (section 3.4.1): an aggregate of |A| resources saves |A| - 1 values,
// the number of rectangles a treemap no longer draws. The other kinds
// follow Dosimont et al. 2014: the entropy reduction.
func DefaultGain(kind Kind) GainMeasure {
	if kind == KindSpatial {
		return GainSize
	}
	return GainEntropy
}

// DefaultEntities is what an engine of the kind measures its aggregates
// over when Options.Entities is empty: the spatial kind measures each
// resource once, by its shares of the window (Lamarche-Perrin et al.), so
// that its p does not depend on the number of slices; the other kinds
// measure cells.
func DefaultEntities(kind Kind) Entities {
	if kind == KindSpatial {
		return EntitiesResources
	}
	return EntitiesCells
}

func (o Options) withDefaults(kind Kind) (Options, error) {
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.CacheBytes == 0 {
		o.CacheBytes = 2 << 30
	}
	if o.SweepBytes == 0 {
		o.SweepBytes = 1 << 30
	}
	g, err := ParseGain(string(o.Gain))
	if err != nil {
		return o, err
	}
	if o.Gain = g; o.Gain == "" {
		o.Gain = DefaultGain(kind)
	}
	if o.Ties, err = ParseTies(string(o.Ties)); err != nil {
		return o, err
	}
	if o.Entities, err = ParseEntities(string(o.Entities)); err != nil {
		return o, err
	}
	if o.Entities == "" {
		o.Entities = DefaultEntities(kind)
	}
	return o, nil
}

// Engine is an aggregation of one kind, ready to be solved for any p.
type Engine interface {
	Solver
	// Kind tells which partitions the engine searches.
	Kind() Kind
	// Scale returns the gain and loss of the coarsest partition of the
	// kind, in the units of the engine's results (1, 1 when normalised).
	Scale() (gain0, loss0 float64)
	// PartQuality returns the gain and loss, in the engine's units, of
	// aggregating node n over slices i..j.
	PartQuality(n int32, i, j int) (gain, loss float64)
}

// New prepares an aggregation engine of the given kind.
func New(kind Kind, in Input, opt Options) (Engine, error) {
	switch kind {
	case KindSpatiotemporal, "":
		return NewSpatiotemporal(in, opt)
	case KindSpatial:
		return NewSpatial(in, opt)
	case KindTemporal:
		return NewTemporal(in, opt)
	}
	_, err := ParseKind(string(kind))
	return nil, err
}

// prepare checks the input of an engine and completes its options.
func prepare(kind Kind, in Input, opt Options) (Options, error) {
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if err := in.validate(workers); err != nil {
		return opt, err
	}
	return opt.withDefaults(kind)
}
