package micro

import (
	"errors"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestColumnsAskTheBudget: a trace of many containers with one state each
// makes a column per container in every slice while it streams; the
// columns are weighed against the memory budget as they grow, and the
// read stops with the budget's error, instead of gathering them all (a
// million containers took gigabytes) for the model's check at the end.
func TestColumnsAskTheBudget(t *testing.T) {
	const n = 1 << 16 // columns of 100 slices x 8 bytes: 52 MB, 118 MB at their growth
	tr := trace.New("wide")
	tr.DefineType(trace.Type{Name: "Host", Kind: trace.KindContainer, Parent: trace.None})
	tr.DefineType(trace.Type{Name: "S", Kind: trace.KindState, Parent: 0})
	tr.DefineValue(trace.Value{Type: 1, Name: "a"})
	for i := range n {
		tr.CreateContainer(trace.Container{Type: 0, Parent: 0})
		tr.State(trace.State{Container: int32(i + 1), Type: 1, Value: 0, Start: 0, End: 1000})
	}
	tr.Finish(0, 1000)
	opt := Options{Slices: 100, MemoryBudget: 64 << 20}
	_, _, err := Stream(replay(tr), opt, trace.ReadOptions{}, nil)
	var ae *errs.ArgumentError
	if !errors.As(err, &ae) || ae.Name != "slices" || !strings.Contains(err.Error(), "containers and columns gathered while reading (") {
		t.Fatalf("under 64 MiB: got %v, want the budget's error on the columns gathered", err)
	}
	opt.MemoryBudget = 512 << 20
	m, _, err := Stream(replay(tr), opt, trace.ReadOptions{}, nil)
	if err != nil || m.NumLeaves() != n {
		t.Fatalf("under 512 MiB: %v", err)
	}
}
