package topology

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/trace/tracetest"
)

// ringOfRanks is a trace of ranks, each sending a message to the next:
// a graph of communications of ranks nodes and edges.
func ringOfRanks(ranks int) *trace.Trace {
	tr := trace.New()
	tr.DefineType(trace.Type{Name: "rank", Kind: trace.KindContainer, Parent: trace.None, Start: trace.None, End: trace.None})
	tr.DefineType(trace.Type{Name: "message", Kind: trace.KindLink, Parent: trace.None, Start: 0, End: 0})
	for r := range ranks {
		tr.CreateContainer(trace.Container{Name: strconv.Itoa(r), Type: 0, Parent: 0, Start: 0, End: trace.Unset})
	}
	for r := range ranks {
		tr.Link(trace.Link{Type: 1, From: int32(r + 1), To: int32((r+1)%ranks + 1), Start: trace.Time(r), End: trace.Time(r + 1)})
	}
	tr.Finish(0, trace.Time(ranks+1))
	return tr
}

// Build with its Cancel closed returns trace.ErrComputationCanceled and
// no graph; open, the graph built without it (printed: the metrics
// are NaN, which DeepEqual would take for a difference).
func TestBuildCanceled(t *testing.T) {
	tr := ringOfRanks(2 * trace.StopEvery)
	tracetest.Canceled(t, "Build", func(cancel <-chan struct{}) (*View, error) {
		tp, err := Build(tr, Options{Cancel: cancel})
		if err != nil {
			return nil, err
		}
		return tp.View(), nil
	}, func(got, want *View) bool {
		return len(want.Nodes) == 2*trace.StopEvery && len(want.Edges) == 2*trace.StopEvery && fmt.Sprint(*got) == fmt.Sprint(*want) // NaN for no metric
	})
}
