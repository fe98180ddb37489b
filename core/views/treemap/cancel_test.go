package treemap

import (
	"errors"
	"reflect"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/gen/synthmodel"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// TestOfPartitionCanceled: the treemap of a partition of 50,000
// aggregates with its Cancel closed stops with
// trace.ErrComputationCanceled and no map; with Cancel open it is the map
// laid out without one.
func TestOfPartitionCanceled(t *testing.T) {
	sc := synthmodel.Scenario{Fanout: [5]int{5, 10, 10, 10, 10}, Slices: 4, Noise: 0.002, Contrast: 0.4}
	m, err := sc.Model()
	if err != nil {
		t.Fatal(err)
	}
	all := synthmodel.LeafParts(m)
	closed := make(chan struct{})
	close(closed)
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

// TestLookerLooksEveryStopEvery: the channel is looked at once the items
// done reach trace.StopEvery, whatever their steps, and not before.
func TestLookerLooksEveryStopEvery(t *testing.T) {
	closed := make(chan struct{})
	close(closed)
	k := &looker{cancel: closed}
	done := 0
	for _, step := range []int{1, 7, 1000, 3, 5000} {
		done += step
		if err := k.stopped(step); err != nil {
			t.Fatalf("looked after %d items, before %d", done, trace.StopEvery)
		}
	}
	if err := k.stopped(trace.StopEvery - done); !errors.Is(err, trace.ErrComputationCanceled) {
		t.Fatalf("not stopped after %d items: %v", trace.StopEvery, err)
	}
}
