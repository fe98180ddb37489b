package critpath

import (
	"errors"
	"reflect"
	"strconv"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/trace/tracetest"
)

// launches is a GPU trace of n kernel launches from one thread onto four
// streams: 2n states and n launches, beyond trace.StopEvery.
func launches(n int) *trace.Trace {
	streams := []string{"stream 1", "stream 2", "stream 3", "stream 4"}
	g := newGPUTrace(append([]string{"cpu"}, streams...)...)
	for i := range n {
		at := trace.Time(10 * i)
		g.state("cpu", "cudaLaunchKernel", at, at+4, 0)
		s := streams[i%len(streams)]
		g.state(s, "k"+strconv.Itoa(i%7), at+5, at+5+trace.Time(3+i%37), 0)
		g.launch("cpu", at, s, at+5)
	}
	g.t.Finish(0, trace.Time(10*n+100))
	return g.t
}

// The path of a GPU trace (graphCollector.result) stops once Cancel is
// closed, with trace.ErrComputationCanceled and nothing: in the graph's
// construction when closed before, in the walk of the path when closed
// once the graph is built. Open, the path is the one found without it.
func TestGraphCanceled(t *testing.T) {
	tr := launches(trace.StopEvery)
	collect := func(cancel <-chan struct{}) *graphCollector {
		a := New(Options{})
		defer a.Close()
		tr.Replay(a)
		if a.graph == nil {
			t.Fatal("no graph collected")
		}
		a.graph.cancel = cancel
		return a.graph
	}
	tracetest.Canceled(t, "graph", func(cancel <-chan struct{}) (*Result, error) {
		return collect(cancel).result()
	}, func(got, want *Result) bool {
		return reflect.DeepEqual(got.Segments, want.Segments) && reflect.DeepEqual(got.Attribution, want.Attribution)
	})
	// Through Compute too: the looks are passed on.
	if r, err := Compute(tr, Options{Cancel: tracetest.Closed()}); !errors.Is(err, trace.ErrComputationCanceled) || r != nil {
		t.Errorf("Compute with Cancel closed: %v, a result %v", err, r != nil)
	}

	cancel := make(chan struct{})
	gr, semantics, err := collect(cancel).build()
	if err != nil || semantics != HTA {
		t.Fatalf("build: %v, semantics %q", err, semantics)
	}
	close(cancel)
	if r, err := gr.longestPath(semantics); !errors.Is(err, trace.ErrComputationCanceled) || r != nil {
		t.Errorf("closed once the graph is built: %v, a result %v; want the cancellation and none", err, r != nil)
	}
}
