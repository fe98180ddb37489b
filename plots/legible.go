package plots

import (
	"image/color"
	"slices"

	"github.com/macroscope-hpc/macroscope/core/micro"
)

// OtherName labels the states a figure draws together when it has more
// than it can colour apart.
const OtherName = "other"

// OtherColor is the colour of "other": a grey, which the palette never
// gives a state (its colours have chroma), darker than the white of "no
// state".
var OtherColor = color.RGBA{150, 150, 150, 255}

// Grouping says how a figure colours the states of a model: each in its
// colour when they are few enough to tell apart (micro.LegibleStates),
// else the largest by time in their colours and the others, together, as
// "other". States are never lost: "other" holds the time of the states
// it groups (Fold).
type Grouping struct {
	// Names are the model's states, then OtherName when some are grouped.
	Names []string
	// Colors are their colours, parallel to Names.
	Colors ColorMap
	// Of gives the index into Names a state is drawn as: its own, or Other.
	Of []int
	// Other is the index of "other" in Names, -1 when no state is grouped.
	Other int
}

// GroupSmallest groups the states of a figure (names, their colours and
// their shares: time, counts, any measure of how much each is seen): when
// more than micro.LegibleStates have a share, the micro.LegibleStates-1
// largest keep their colours and the others are drawn as "other", except
// those named in keep (the states given a colour by the user, whom a
// figure must show). Fewer states are drawn as they are.
func GroupSmallest(names []string, shares []float64, colors ColorMap, keep map[string]bool) Grouping {
	g := Grouping{Names: names, Colors: colors, Of: make([]int, len(names)), Other: -1}
	for i := range g.Of {
		g.Of[i] = i
	}
	var seen []int
	for i := range names {
		if i < len(shares) && shares[i] > 0 {
			seen = append(seen, i)
		}
	}
	if len(seen) <= micro.LegibleStates {
		return g
	}
	slices.SortStableFunc(seen, func(a, b int) int {
		switch {
		case shares[a] > shares[b]:
			return -1
		case shares[a] < shares[b]:
			return 1
		}
		return 0
	})
	shown := make([]bool, len(names))
	for k, i := range seen {
		shown[i] = k < micro.LegibleStates-1 || keep[names[i]]
	}
	g.Other = len(names)
	g.Names = append(slices.Clip(names), OtherName)
	g.Colors = make(ColorMap, len(names)+1)
	for i := range names {
		g.Colors[i] = colors.Of(i)
		if !shown[i] {
			g.Of[i] = g.Other
		}
	}
	g.Colors[g.Other] = OtherColor
	return g
}

// Fold adds values by state (a cell's proportions, a block's means) into
// out by drawn state (len(Names)), so that "other" holds the sum of the
// states it groups; it returns out.
func (g Grouping) Fold(values, out []float64) []float64 {
	clear(out)
	for x, v := range values {
		out[g.Of[x]] += v
	}
	return out
}

// Shares returns the share of every state of m over its whole window:
// the sum of its values over every resource and slice (time, for the
// state metrics, in units of a slice; counts for events).
func Shares(m *micro.Model) []float64 {
	n := len(m.States)
	out := make([]float64, n)
	if n == 0 {
		return out
	}
	// The non-zero values, whether the model holds them densely or
	// sparsely.
	m.EachNonZero(func(_, _, state int, v float64) { out[state] += v })
	return out
}

// ModelGrouping is GroupSmallest of a model's states by their Shares.
func ModelGrouping(m *micro.Model, colors ColorMap, keep map[string]bool) Grouping {
	return GroupSmallest(m.States, Shares(m), colors, keep)
}
