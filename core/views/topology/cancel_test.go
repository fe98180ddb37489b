package topology

import (
	"errors"
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

// Change stops the changes that rebuild the view (a window, a collapse,
// expanding all; the optimal collapse ends in the same rebuild) at its
// Cancel: closed, it returns
// trace.ErrComputationCanceled; open, the view is the one the change
// gives without it. A change stopped in the rebuild leaves the view it
// had: the new one is never half built.
func TestChangeCanceled(t *testing.T) {
	tr := ringOfRanks(2 * trace.StopEvery)
	base, err := Build(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mid := tr.Start + (tr.End-tr.Start)/2
	for _, c := range []struct {
		name   string
		change func(tp *Topology) error
	}{
		{"window", func(tp *Topology) error { return tp.SetWindow(tr.Start, mid) }},
		{"collapse", func(tp *Topology) error { return tp.Collapse("") }},
		{"expand all", func(tp *Topology) error { tp.ExpandAll(); return nil }},
	} {
		t.Run(c.name, func(t *testing.T) {
			tracetest.Canceled(t, c.name, func(cancel <-chan struct{}) (*View, error) {
				tp := base.Clone()
				if cancel == nil {
					err := c.change(tp) // as before: no Change
					return tp.View(), err
				}
				if err := tp.Change(cancel, c.change); err != nil {
					return nil, err
				}
				return tp.View(), nil
			}, func(got, want *View) bool {
				return len(want.Nodes) > 0 && fmt.Sprint(*got) == fmt.Sprint(*want)
			})
			// Stopped in the rebuild, after the change's own work.
			tp := base.Clone()
			before := fmt.Sprint(*tp.View())
			cancel := make(chan struct{})
			err := tp.Change(cancel, func(tp *Topology) error {
				tp.look.Stopped(trace.StopEvery) // the next look is at the next item
				close(cancel)
				tp.invalidate()
				return nil
			})
			if !errors.Is(err, trace.ErrComputationCanceled) || fmt.Sprint(*tp.View()) != before {
				t.Errorf("stopped in the rebuild: %v; the view changed: %v", err, fmt.Sprint(*tp.View()) != before)
			}
		})
	}
}

// CollapseOptimal under Change stops in its own work (before the rebuild)
// when its channel is closed: the cancel error, no groups, and none of
// them collapsed; with the channel open it collapses what it collapses
// without one.
func TestCollapseOptimalCanceled(t *testing.T) {
	tp := build(t, smallGrid(), Options{})
	before := fmt.Sprint(tp.Collapsed())
	tp.look = trace.Looker{Cancel: tracetest.Closed()}
	paths, err := tp.CollapseOptimal(0.5)
	tp.look = trace.Looker{}
	if !errors.Is(err, trace.ErrComputationCanceled) || paths != nil || fmt.Sprint(tp.Collapsed()) != before {
		t.Errorf("stopped: %q, error %v, collapsed %q (before %s)", paths, err, tp.Collapsed(), before)
	}
	for _, p := range []float64{0, 1e-9, 0.5, 1} {
		want, err := tp.Clone().CollapseOptimal(p)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		if err := tp.Change(make(chan struct{}), func(tp *Topology) (err error) {
			got, err = tp.CollapseOptimal(p)
			return err
		}); err != nil || !equalStrings(got, want) {
			t.Errorf("p=%g with the channel open: %q, %v; want %q", p, got, err, want)
		}
		if err := tp.Clone().Change(tracetest.Closed(), func(tp *Topology) error {
			_, err := tp.CollapseOptimal(p)
			return err
		}); !errors.Is(err, trace.ErrComputationCanceled) {
			t.Errorf("p=%g closed: %v", p, err)
		}
	}
}

// A rebuild stopped while it places the new nodes (after the view is
// built: 2/5 of trace.StopEvery ranks build in fewer items than a look
// is apart, and place the collapse of all of them in more) leaves the
// view, the positions and the births as they were; open, the change is
// the one made without a channel.
func TestPlaceCanceled(t *testing.T) {
	tr := ringOfRanks(trace.StopEvery * 2 / 5)
	base, err := Build(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range base.view.Nodes { // placed, as a layout would: the collapse is born at their centroid
		base.view.Nodes[i].X, base.view.Nodes[i].Y = float64(i), float64(i%7)
	}
	base.remember()
	tp := base.Clone()
	before := fmt.Sprint(*tp.View(), tp.pos, tp.born)
	cancel := make(chan struct{})
	err = tp.Change(cancel, func(tp *Topology) error {
		tp.look.Stopped(trace.StopEvery) // the next look is StopEvery items on
		close(cancel)
		return tp.Collapse("")
	})
	if !errors.Is(err, trace.ErrComputationCanceled) || fmt.Sprint(*tp.View(), tp.pos, tp.born) != before {
		t.Errorf("stopped in the placement: %v; the view, positions or births changed: %v", err, fmt.Sprint(*tp.View(), tp.pos, tp.born) != before)
	}
	want := base.Clone()
	if err := want.Collapse(""); err != nil {
		t.Fatal(err)
	}
	got := base.Clone()
	if err := got.Change(make(chan struct{}), func(tp *Topology) error { return tp.Collapse("") }); err != nil {
		t.Fatal(err)
	}
	if w := fmt.Sprint(*want.View(), want.pos, want.born); len(want.born) != 1 || fmt.Sprint(*got.View(), got.pos, got.born) != w {
		t.Errorf("open: the collapse differs from the one without a channel (%d births)", len(want.born))
	}
}
