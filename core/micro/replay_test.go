package micro

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// buildWhole is Build computing the innermost states from the whole trace
// (the reference the replay must equal).
func buildWhole(tr *trace.Trace, opt Options) (*Model, error) {
	defer func(on bool) { buildReplays = on }(buildReplays)
	buildReplays = false
	return Build(tr, opt)
}

// TestBuildReplayEqualsWholeTrace checks Build's replay of a trace (its
// states in the order a reader delivered them) against the computation on
// the whole trace, cell by cell, on nested streams (the replay follows
// them) and on traces in any order (it hands over to the whole trace).
func TestBuildReplayEqualsWholeTrace(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	replayed := 0
	for iter := 0; iter < 40; iter++ {
		var tr *trace.Trace
		if iter%2 == 0 {
			var rec recording
			randomStream(rng, &rec)
			tr = rec.trace()
		} else {
			tr = randomTrace(rng, 5)
			withEventsAndVariables(rng, tr)
		}
		for _, opt := range optionSets(tr, true) {
			want, wantErr := buildWhole(tr, opt)
			got, gotErr := Build(tr, opt)
			sameResult(t, fmt.Sprintf("trace %d, %s", iter, describe(opt)), want, wantErr, got, gotErr)
			if iter%2 == 0 && opt.Depth == Innermost && opt.Metric.entityKind() == trace.KindState && wantErr == nil {
				if start, end, err := window(tr, opt); err == nil {
					if _, ok, _ := replayStates(tr, opt, start, end); ok {
						replayed++
					}
				}
			}
		}
	}
	if replayed == 0 {
		t.Fatal("no nested stream was replayed: the test checks nothing")
	}
}
