package partition

import (
	"bytes"
	"errors"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/micro"
	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/trace/tracetest"
)

// TestBuildTraceCanceled: the partial model of a trace in memory with its
// Cancel closed stops with trace.ErrComputationCanceled and no partial;
// with Cancel open it encodes to the same bytes as the one built without.
func TestBuildTraceCanceled(t *testing.T) {
	tr := tracetest.Nested(64, 5000)
	opt := micro.Options{Slices: 100}
	opt, err := opt.Resolve(tr.Start, tr.End)
	if err != nil {
		t.Fatal(err)
	}
	closed := opt
	closed.Cancel = tracetest.Closed()
	if p, err := BuildTrace(tr, closed, tr.Start, tr.End); !errors.Is(err, trace.ErrComputationCanceled) || p != nil {
		t.Errorf("canceled: partial %v, error %v", p != nil, err)
	}
	want, err := BuildTrace(tr, opt, tr.Start, tr.End)
	if err != nil {
		t.Fatal(err)
	}
	open := opt
	open.Cancel = make(chan struct{})
	got, err := BuildTrace(tr, open, tr.Start, tr.End)
	if err != nil {
		t.Fatal(err)
	}
	wb, _ := want.MarshalBinary()
	gb, _ := got.MarshalBinary()
	if !bytes.Equal(gb, wb) {
		t.Errorf("with Cancel open: %d bytes, not the %d of the partial built without", len(gb), len(wb))
	}
}

// stopAt is a sink that closes its channel at its first state and counts
// the states and finishes it is handed.
type stopAt struct {
	*trace.Trace
	cancel           chan struct{}
	states, finished int
}

func (s *stopAt) State(st trace.State) {
	if s.states++; s.states == 1 {
		close(s.cancel)
	}
	s.Trace.State(st)
}

func (s *stopAt) Finish(start, end trace.Time) { s.finished++ }

// TestReplayStopsWithin: closed during the replay, the replay stops at its
// next look (at most trace.StopEvery states later) with the cancel error,
// and never finishes the sink; with the channel open it hands every state
// and finishes once.
func TestReplayStopsWithin(t *testing.T) {
	tr := tracetest.Nested(64, 5000)
	s := &stopAt{Trace: trace.New(), cancel: make(chan struct{})}
	err := replay(tr, s, &trace.Looker{Cancel: s.cancel})
	if !errors.Is(err, trace.ErrComputationCanceled) || s.finished != 0 || s.states > trace.StopEvery+1 || s.states >= tr.States.Len() {
		t.Errorf("stopped at the first state: %d of %d states handed, %d finishes, error %v", s.states, tr.States.Len(), s.finished, err)
	}
	s = &stopAt{Trace: trace.New(), cancel: make(chan struct{})}
	s.states = 1 // never closes
	if err := replay(tr, s, &trace.Looker{Cancel: make(chan struct{})}); err != nil || s.states-1 != tr.States.Len() || s.finished != 1 {
		t.Errorf("open: %d of %d states, %d finishes, error %v", s.states-1, tr.States.Len(), s.finished, err)
	}
}
