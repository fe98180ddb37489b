package forcelayout

import (
	"errors"
	"math"
	"testing"
)

// Closing Cancel stops a run at its next iteration; Progress counts the
// iterations done.
func TestLayoutCancel(t *testing.T) {
	// A ring of 200 nodes, started on a line: far from converged.
	n := 200
	g := Graph{N: n}
	for i := 0; i < n; i++ {
		g.Edges = append(g.Edges, [2]int32{int32(i), int32((i + 1) % n)})
	}
	x, y := make([]float64, n), make([]float64, n)
	for i := range x {
		x[i], y[i] = float64(i), math.Sin(float64(i))
	}
	cancel := make(chan struct{})
	var seen []int
	st, err := Layout(g, x, y, Params{MaxIterations: 400, Cancel: cancel, Progress: func(done, max int) {
		seen = append(seen, done)
		if max != 400 {
			t.Fatalf("max %d", max)
		}
		if done == 5 {
			close(cancel)
		}
	}})
	if !errors.Is(err, ErrCanceled) || st.Iterations != 5 || len(seen) != 5 || seen[4] != 5 {
		t.Fatalf("stopped after %d iterations (%v), err %v", st.Iterations, seen, err)
	}
	for i := range x {
		if math.IsNaN(x[i]) || math.IsNaN(y[i]) {
			t.Fatalf("node %d lost its position", i)
		}
	}
}
