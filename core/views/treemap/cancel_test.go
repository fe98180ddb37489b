package treemap

import (
	"errors"
	"reflect"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/gen/synthmodel"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/trace/tracetest"
)

// TestOfPartitionCanceled: the treemap of a partition of 50,000
// aggregates with its Cancel closed stops with
// trace.ErrComputationCanceled and no map; with Cancel open it is the map
// laid out without one.
func TestOfPartitionCanceled(t *testing.T) {
	sc := synthmodel.Wide(4)
	m, err := sc.Model()
	if err != nil {
		t.Fatal(err)
	}
	all := synthmodel.LeafParts(m)
	closed := tracetest.Closed()
	opt := Options{Width: 720, Height: 540, Padding: 1}
	for _, v := range []Value{Leaves, Activity} {
		opt.Value, opt.Cancel = v, closed
		if tm, err := OfPartition(m, all, opt); !errors.Is(err, trace.ErrComputationCanceled) || tm != nil {
			t.Errorf("%s: canceled: map %v, error %v", v, tm != nil, err)
		}
		opt.Cancel = nil
		want, err := OfPartition(m, all, opt)
		if err != nil {
			t.Fatal(err)
		}
		if len(want.Cells) != 1+5+50+500+5000+50_000 {
			t.Errorf("%s: %d cells, want every node of the hierarchy", v, len(want.Cells))
		}
		opt.Cancel = make(chan struct{})
		if got, err := OfPartition(m, all, opt); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: with Cancel open: %v, not the map laid out without it", v, err)
		}
	}
}
