package plots

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"runtime"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/trace/tracetest"
	"github.com/macroscope-hpc/macroscope/core/views/topology"
)

// gridView is a laid-out view of n x n hosts joined to their right and
// lower neighbours, of varied capacities and utilizations.
func gridView(n int) *topology.View {
	v := &topology.View{}
	for i := range n * n {
		v.Nodes = append(v.Nodes, topology.Node{Path: fmt.Sprint("h", i), Name: fmt.Sprint("h", i), Kind: "HOST",
			Members: 1, Size: 0.2 + 0.8*float64(i%7)/6, Ratio: float64(i%5) / 4, Shape: topology.Square,
			X: float64(i % n), Y: float64(i / n)})
		if i%n+1 < n {
			v.Edges = append(v.Edges, topology.Edge{From: int32(i), To: int32(i + 1), Kind: "HOST-HOST", Count: 1})
		}
		if i+n < n*n {
			v.Edges = append(v.Edges, topology.Edge{From: int32(i), To: int32(i + n), Kind: "HOST-HOST", Count: 1})
		}
	}
	v.Nodes[0].Ratio = math.NaN()
	return v
}

// TestTopologyCanceled: the topology figure with its Cancel closed stops
// with trace.ErrComputationCanceled and no figure, closed before it began
// or while it draws (at its first edge); with Cancel open it is the
// figure drawn without one, byte for byte.
func TestTopologyCanceled(t *testing.T) {
	v := gridView(150) // 22,500 nodes, 44,700 edges
	before := runtime.NumGoroutine()
	closed := tracetest.Closed()
	if img, err := Topology(v, TopologyOptions{Cancel: closed}); !errors.Is(err, trace.ErrComputationCanceled) || img != nil {
		t.Errorf("canceled before: %d bytes, error %v", len(img), err)
	}
	f := &topoFigure{v: v, opt: TopologyOptions{Cancel: closed, MaxLabels: 60}, look: trace.Looker{Cancel: closed}}
	if _, err := Render(500, 500, PNG, f.draw); err != nil || !f.canceled {
		t.Errorf("canceled while drawing: canceled %v, error %v", f.canceled, err)
	}
	if n := tracetest.Settled(before); n > before {
		t.Errorf("%d goroutines left running, %d before", n, before)
	}
	for _, format := range []Format{PNG, SVG} {
		want, err := Topology(v, TopologyOptions{Format: format, Title: "grid"})
		if err != nil {
			t.Fatal(err)
		}
		got, err := Topology(v, TopologyOptions{Format: format, Title: "grid", Cancel: make(chan struct{})})
		if err != nil || !bytes.Equal(got, want) || len(want) == 0 {
			t.Errorf("%s with Cancel open: %v, not the figure drawn without it", format, err)
		}
	}
}
