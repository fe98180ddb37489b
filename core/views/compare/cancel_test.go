package compare

import (
	"errors"
	"fmt"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/gen/bsp"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/trace/tracetest"
)

// TestCanceled: with the read's Cancel closed once the runs are read, the
// union of their models stops; with TableOptions.Cancel closed, the
// differences stop; both return trace.ErrComputationCanceled and nothing.
// With Cancel open the table is the one computed without it.
func TestCanceled(t *testing.T) {
	a := bsp.Scenario{Ranks: 8, PerNode: 4, Iterations: 50, Noise: 0.01, Seed: 1}
	b := a
	b.Seed, b.Slow, b.Slowdown = 2, []int{5}, 0.2
	inputs := []Input{{Name: "before", Source: a.Source()}, {Name: "after", Source: b.Source()}}
	open := make(chan struct{})
	bld, err := newBuilder(inputs, Options{Slices: 10}, trace.ReadOptions{Cancel: open})
	if err != nil {
		t.Fatal(err)
	}
	if err := bld.plan(); err != nil {
		t.Fatal(err)
	}
	for i := range bld.inputs {
		if err := bld.read(i); err != nil {
			t.Fatal(err)
		}
	}
	bld.ro.Cancel = tracetest.Closed()
	if s, err := bld.set(); !errors.Is(err, trace.ErrComputationCanceled) || s != nil {
		t.Errorf("union: %v, error %v", s != nil, err)
	}
	set, err := Build(inputs, Options{Slices: 10}, trace.ReadOptions{Cancel: open})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := set.NodeRows(nil)
	if err != nil {
		t.Fatal(err)
	}
	tracetest.Canceled(t, "Differences", func(cancel <-chan struct{}) (*Table, error) {
		return set.Differences(rows, TableOptions{Rank: ByOutlier, Test: TestOptions{Permutations: 200, Seed: 3}, Cancel: cancel})
	}, func(got, want *Table) bool {
		// Printed, not reflect.DeepEqual: a measure without a value is NaN.
		return fmt.Sprintf("%+v", *got) == fmt.Sprintf("%+v", *want) && len(want.Rows) > 0
	})
}
