package aggregate

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/errs"
	"github.com/macroscope-hpc/macroscope/core/hier"
)

// TestSpatiotemporalMemoryBudget: an engine whose solves would need more
// memory than the budget is refused when it is made, with the estimate;
// the memory grows with the square of the slices.
func TestSpatiotemporalMemoryBudget(t *testing.T) {
	in := flatInput(t, 4, 300, 2)
	e, err := NewSpatiotemporal(in, Options{Workers: 1, MemoryBudget: -1})
	if err != nil {
		t.Fatal(err)
	}
	need := e.solveBytes()
	// 5 nodes x 45,150 intervals x 2 bytes of cuts, 1 internal node's
	// 706 words of splits; one worker's scratch and 300 x 300 table.
	tri := int64(300 * 301 / 2)
	if want := 5*tri*2 + 706*8 + tri*17 + 3*300*300*8 + 300*2*8; need != want {
		t.Errorf("solveBytes = %d, want %d", need, want)
	}
	if _, err := NewSpatiotemporal(in, Options{Workers: 1, MemoryBudget: need}); err != nil {
		t.Errorf("within the budget: %v", err)
	}
	_, err = NewSpatiotemporal(in, Options{Workers: 1, MemoryBudget: need - 1})
	var ae *errs.ArgumentError
	if !errors.As(err, &ae) || ae.Name != "slices" ||
		!strings.Contains(err.Error(), "the spatiotemporal aggregation of 5 nodes x 300 slices needs about") {
		t.Errorf("over the budget: %v", err)
	}
}

// flatInput is a model of a root over leaves resources, each in the same
// state mix over slices slices.
func flatInput(t *testing.T, leaves, slices, states int) Input {
	t.Helper()
	b := hier.NewBuilder("root")
	for i := range leaves {
		b.Add(0, "r"+strconv.Itoa(i))
	}
	tree, _ := b.Build()
	values := make([]float64, leaves*slices*states)
	for i := range values {
		values[i] = float64(i%states+1) / float64(states+1)
	}
	return Input{Tree: tree, Slices: slices, States: states, Values: values}
}
