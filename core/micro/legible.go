package micro

import (
	"fmt"
	"slices"
	"strings"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// LegibleStates is the number of states a figure colours apart: past it
// colours come too close to tell which is which, and a legend no longer
// reads at a glance. Figures of a model with more states draw the
// LegibleStates-1 largest by time in their colours and the others as one
// "other" (plots), and the model says so in its Notes.
const LegibleStates = 20

// keyNotes returns the notes of a model of n categories made with key:
// when n is more than a figure colours apart, a sentence saying so and
// naming the coarser keys that fit (on an Nsight Systems profile,
// key="domain" and key="type", its handful of state types).
func keyNotes(t *trace.Trace, kind trace.Kind, key Key, typeSel []bool, noValue []int32, n int, opt Options) []string {
	if n <= LegibleStates || kind == trace.KindVariable {
		return nil
	}
	note := fmt.Sprintf("the model has %d states (key=%q), more than the %d a figure colours apart: "+
		"figures draw the %d largest by time and the others as \"other\"", n, string(key), LegibleStates, LegibleStates-1)
	var fits []string
	for _, k := range Keys[slices.Index(Keys, key)+1:] {
		if _, labels := categories(t, kind, k, typeSel, noValue, opt); len(labels) <= LegibleStates {
			fits = append(fits, fmt.Sprintf("key=%q gives %d", string(k), len(labels)))
		}
	}
	if len(fits) > 0 {
		note += "; " + strings.Join(fits, ", ")
	}
	return []string{note}
}
