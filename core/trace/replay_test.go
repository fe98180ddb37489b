package trace_test

import (
	"errors"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/trace/tracetest"
)

// A trace replayed into another holds the same entities.
func TestReplay(t *testing.T) {
	src := trace.New("x")
	src.DefineType(trace.Type{Name: "T", Kind: trace.KindContainer, Parent: trace.None})
	src.DefineType(trace.Type{Name: "S", Kind: trace.KindState, Parent: 0})
	src.DefineType(trace.Type{Name: "E", Kind: trace.KindEvent, Parent: 0})
	src.DefineType(trace.Type{Name: "L", Kind: trace.KindLink, Parent: trace.None, Start: 0, End: 0})
	src.DefineValue(trace.Value{Type: 1, Name: "a"})
	src.DefineValue(trace.Value{Type: 2, Name: "e"})
	src.DefineValue(trace.Value{Type: 3, Name: "l"})
	src.CreateContainer(trace.Container{Name: "c1", Type: 0, Parent: 0})
	src.CreateContainer(trace.Container{Name: "c2", Type: 0, Parent: 0})
	src.State(trace.State{Container: 1, Type: 1, Value: 0, Start: 2, End: 3, Depth: 1, Order: 1})
	src.State(trace.State{Container: 1, Type: 1, Value: 0, Start: 1, End: 4})
	src.Link(trace.Link{Type: 3, Value: 2, Start: 1, End: 2, From: 1, To: 2, Size: 8})
	src.Event(trace.Event{Container: 2, Type: 2, Value: 1, Time: 3})
	src.DestroyContainer(2, 4)
	src.Finish(0, 5)

	dst := trace.New("x")
	src.Replay(dst)
	if got, want := dst.States.String(), src.States.String(); got != want {
		t.Errorf("states %s, want %s", got, want)
	}
	if dst.Links.Len() != 1 || dst.Links.At(0) != src.Links.At(0) || dst.Events.Len() != 1 || dst.Events.At(0) != src.Events.At(0) {
		t.Errorf("links or events differ")
	}
	if len(dst.Containers) != 3 || dst.Containers[2].End != 4 || dst.Containers[1].End != 5 || dst.Start != 0 || dst.End != 5 {
		t.Errorf("containers %+v, span %v-%v", dst.Containers, dst.Start, dst.End)
	}
	if len(dst.Types) != 4 || len(dst.Values) != 3 || len(dst.Containers[0].Children) != 2 {
		t.Errorf("types %d, values %d, root children %v", len(dst.Types), len(dst.Values), dst.Containers[0].Children)
	}
}

// closingSink is a trace that closes cancel once it has received after
// states, and counts the states and Finish it gets.
type closingSink struct {
	*trace.Trace
	cancel         chan struct{}
	after, states  int
	finished, shut bool
}

func (s *closingSink) State(st trace.State) {
	s.Trace.State(st)
	if s.states++; s.states == s.after {
		close(s.cancel)
		s.shut = true
	}
}

func (s *closingSink) Finish(start, end trace.Time) { s.finished = true; s.Trace.Finish(start, end) }

// TestReplayCancel: a replay whose channel is closed before it begins
// sends nothing; closed while it goes, it stops within trace.StopEvery
// states, without Finish, and returns trace.ErrComputationCanceled; left
// open, it replays all, as Replay does.
func TestReplayCancel(t *testing.T) {
	src := tracetest.Nested(4, 3*trace.StopEvery) // 8 x StopEvery states
	all := src.States.Len()
	for _, after := range []int{0, 1, trace.StopEvery + 5} {
		s := &closingSink{Trace: trace.New(), cancel: make(chan struct{}), after: after}
		if after == 0 {
			close(s.cancel)
		}
		err := src.ReplayCancel(s, s.cancel)
		if !errors.Is(err, trace.ErrComputationCanceled) || s.finished {
			t.Fatalf("closed after %d states: error %v, finished %v", after, err, s.finished)
		}
		if s.states < after || s.states > after+trace.StopEvery {
			t.Errorf("closed after %d states: %d sent, want at most %d more", after, s.states, trace.StopEvery)
		}
	}
	s := &closingSink{Trace: trace.New(), cancel: make(chan struct{}), after: -1}
	if err := src.ReplayCancel(s, s.cancel); err != nil || !s.finished || s.states != all {
		t.Fatalf("open channel: error %v, finished %v, %d of %d states", err, s.finished, s.states, all)
	}
}
