package aggregate

import (
	"math"

	"github.com/macroscope-hpc/macroscope/core/errs"
)

// Recommendation rules for the level of detail to show first.
const (
	// RuleKnee picks the partition closest to the ideal of full gain at no
	// loss: argmin (G/G0 - 1)^2 + (L/L0)^2 with G0, L0 the gain and loss of
	// aggregating everything (lpaggreg's p_opt).
	RuleKnee = "knee"
	// RuleOcelotl picks, over consecutive levels, the one after the largest
	// | |dGain| - |dLoss| | (Ocelotl's default starting p).
	RuleOcelotl = "ocelotl"
)

// Recommend returns the index of the level the rule picks and a p inside
// its range (the middle). levels must be sorted by p, as the Significant
// functions return them; g0 and l0 scale gain and loss (pass 1, 1 when
// the measures are already normalised).
func Recommend(levels []Level, rule string, g0, l0 float64) (int, float64, error) {
	if rule != RuleKnee && rule != RuleOcelotl {
		return -1, math.NaN(), errs.Argument("recommend", "unknown rule %q (use %q or %q)", rule, RuleKnee, RuleOcelotl)
	}
	if len(levels) == 0 {
		return -1, math.NaN(), nil
	}
	best := 0
	switch rule {
	case RuleOcelotl:
		bestJump := -1.0
		for i := 1; i < len(levels); i++ {
			a, b := levels[i-1].Partition, levels[i].Partition
			jump := math.Abs(math.Abs(b.Gain-a.Gain)/g0 - math.Abs(b.Loss-a.Loss)/l0)
			if jump > bestJump {
				best, bestJump = i, jump
			}
		}
	default:
		bestDist := math.Inf(1)
		for i, l := range levels {
			g, los := l.Partition.Gain/g0, l.Partition.Loss/l0
			if d := (g-1)*(g-1) + los*los; d < bestDist {
				best, bestDist = i, d
			}
		}
	}
	return best, (levels[best].PLow + levels[best].PHigh) / 2, nil
}
