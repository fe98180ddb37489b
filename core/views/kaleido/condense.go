package kaleido

import (
	"math"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// Condensing is the level-condensing plan of Tick and Park 1991 (section 3.1) for a
// tree of height Height in a window of width w with d pixels between
// levels. When Active is false every level is kept.
type Condensing struct {
	Height    int // h, longest root-to-leaf path + 1
	MaxHeight int // hmax = floor(w / 2d)
	Active    bool
	C0        int // floor(h / hmax), when Active
	Threshold int // t = c0 hmax - c0 (h - c0 hmax), when Active
}

// PlanCondensing computes the plan for a tree of height h. width and
// spacing must be positive and allow at least one level (w >= 2d).
func PlanCondensing(h int, width, spacing float64) (Condensing, error) {
	if !(width > 0) || math.IsInf(width, 0) {
		return Condensing{}, errs.Argument("width", "must be a positive number of pixels, got %v", width)
	}
	if !(spacing > 0) || math.IsInf(spacing, 0) {
		return Condensing{}, errs.Argument("level_spacing", "must be a positive number of pixels, got %v", spacing)
	}
	hmax := math.Floor(width / (2 * spacing))
	if hmax < 1 {
		return Condensing{}, errs.Argument("level_spacing", "%v pixels between levels leaves no level in a window %v pixels wide (need width >= 2 x spacing)", spacing, width)
	}
	hmax = min(hmax, math.MaxInt32)
	c := Condensing{Height: h, MaxHeight: int(hmax)}
	if h > c.MaxHeight {
		c.Active = true
		c.C0 = h / c.MaxHeight
		c.Threshold = c.C0*c.MaxHeight - c.C0*(h-c.C0*c.MaxHeight)
	}
	return c, nil
}

// Ratio returns the condensing ratio c of level l (1 when inactive).
func (c Condensing) Ratio(l int) int {
	switch {
	case !c.Active:
		return 1
	case l <= c.Threshold:
		return c.C0
	}
	return c.C0 + 1
}

// Kept reports whether the nodes of level l are kept (l mod c == 0).
func (c Condensing) Kept(l int) bool { return l%c.Ratio(l) == 0 }

// DisplayedLevels returns, for each level 0..Height-1, its level in the
// condensed tree (the number of kept levels above it), or None when the
// level is condensed away.
func (c Condensing) DisplayedLevels() []int32 {
	out := make([]int32, c.Height)
	k := int32(0)
	for l := range out {
		if c.Kept(l) {
			out[l] = k
			k++
		} else {
			out[l] = None
		}
	}
	return out
}
