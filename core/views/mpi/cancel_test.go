package mpi

import (
	"errors"
	"reflect"
	"strconv"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
	"github.com/macroscope-hpc/macroscope/core/trace/tracetest"
)

// ring is a trace of ranks each making calls sends and receives in turn,
// each send's message going to the next rank's receive: ranks*calls
// calls, beyond trace.StopEvery for looks inside Blocks.
func ring(ranks, calls int) *trace.Trace {
	tr := trace.New()
	tr.DefineType(trace.Type{Name: "rank", Kind: trace.KindContainer, Parent: trace.None, Start: trace.None, End: trace.None})
	tr.DefineType(trace.Type{Name: "STATE", Kind: trace.KindState, Parent: 0, Start: trace.None, End: trace.None})
	tr.DefineValue(trace.Value{Type: 1, Name: "MPI_Send"})
	tr.DefineValue(trace.Value{Type: 1, Name: "MPI_Recv"})
	for r := range ranks {
		tr.CreateContainer(trace.Container{Name: strconv.Itoa(r), Type: 0, Parent: 0, Start: 0, End: trace.Unset})
	}
	const step = 10
	for r := range ranks {
		for k := range calls {
			tr.State(trace.State{Container: int32(r + 1), Type: 1, Value: int32(k % 2),
				Start: trace.Time(k * step), End: trace.Time(k*step + 8)})
		}
	}
	for r := range ranks {
		for k := 0; k+1 < calls; k += 2 {
			tr.Link(trace.Link{From: int32(r + 1), To: int32((r+1)%ranks + 1),
				Start: trace.Time(k*step + 1), End: trace.Time((k+1)*step + 1)})
		}
	}
	tr.Finish(0, trace.Time(calls*step))
	return tr
}

// blocksCanceled gathers the Blocks of tr with cancel, handing the calls
// and messages to onCalls and onMessage when set (messages need
// OnMessage for the second pass over the links).
func blocksCanceled(tr *trace.Trace, cancel <-chan struct{}, onCalls func(r int), onMessage func()) (*Blocks, error) {
	b := NewBuilder()
	b.Cancel = cancel
	if onCalls != nil {
		b.OnCalls = func(_ *Blocks, r int, _ []Call) { onCalls(r) }
	}
	if onMessage != nil {
		b.OnMessage = func(*Message, Class, Class) { onMessage() }
	}
	tr.Replay(b)
	return b.Blocks()
}

// Blocks with its Cancel closed returns trace.ErrComputationCanceled and
// nothing, with or without OnMessage; open, it gathers what it gathers
// without one. Closed while it goes (at its first resource's calls, at
// its first message handed over), it stops within trace.StopEvery items
// more: the resources and messages after are not handed over.
func TestBlocksCanceled(t *testing.T) {
	const ranks, calls = 64, 1024 // 65,536 calls, 32,768 messages
	tr := ring(ranks, calls)
	same := func(got, want *Blocks) bool {
		return reflect.DeepEqual(got.Resources, want.Resources) && got.NumCalls == want.NumCalls && got.NumMessages == want.NumMessages && reflect.DeepEqual(got.InCalls, want.InCalls) && reflect.DeepEqual(got.Members, want.Members)
	}
	tracetest.Canceled(t, "Blocks", func(cancel <-chan struct{}) (*Blocks, error) {
		return blocksCanceled(tr, cancel, nil, nil)
	}, same)
	tracetest.Canceled(t, "Blocks with OnMessage", func(cancel <-chan struct{}) (*Blocks, error) {
		return blocksCanceled(tr, cancel, nil, func() {})
	}, same)
	if want, err := blocksCanceled(tr, nil, nil, nil); err != nil || want.NumCalls != ranks*calls || want.NumMessages != ranks*calls/2 {
		t.Fatalf("the ring: %v", err)
	}

	// Closed at the first resource's calls: at most StopEvery calls more
	// (and their ends) are looked past, a resource of 1,024 calls and
	// 1,024 ends at a time.
	cancel := make(chan struct{})
	handed := 0
	b, err := blocksCanceled(tr, cancel, func(r int) {
		if r == 0 {
			close(cancel)
		}
		handed++
	}, nil)
	if !errors.Is(err, trace.ErrComputationCanceled) || b != nil {
		t.Errorf("closed at the first resource: %v, a result %v; want the cancellation and none", err, b != nil)
	}
	if most := 1 + trace.StopEvery/(2*calls) + 1; handed > most {
		t.Errorf("closed at the first resource: %d resources handed over, want at most %d of %d", handed, most, ranks)
	}

	// Closed at the first message handed over: at most StopEvery more.
	cancel = make(chan struct{})
	messages := 0
	b, err = blocksCanceled(tr, cancel, nil, func() {
		if messages == 0 {
			close(cancel)
		}
		messages++
	})
	if !errors.Is(err, trace.ErrComputationCanceled) || b != nil {
		t.Errorf("closed at the first message: %v, a result %v; want the cancellation and none", err, b != nil)
	}
	if messages > trace.StopEvery+1 {
		t.Errorf("closed at the first message: %d messages handed over, want at most %d of %d", messages, trace.StopEvery+1, ranks*calls/2)
	}
}

// Blocks stopped while it hands its messages over does not read the rest
// of its spilled links back: the spill file, closed with the channel at
// the first message, is not read again (a read would fail), where the
// old Drain read it to its end.
func TestBlocksCanceledSpilled(t *testing.T) {
	tr := ring(64, 1024) // 32,768 links, chunks of 8,192 at most
	spill := &Spill{Dir: t.TempDir(), Memory: 1}
	defer spill.Close()
	b := NewBuilder()
	b.SpillTo(spill)
	cancel := make(chan struct{})
	b.Cancel = cancel
	messages := 0
	b.OnMessage = func(*Message, Class, Class) {
		if messages == 0 {
			close(cancel)
			spill.f.Close()
		}
		messages++
	}
	tr.Replay(b)
	got, err := b.Blocks()
	if !errors.Is(err, trace.ErrComputationCanceled) || got != nil {
		t.Fatalf("closed at the first message: %v, a result %v; want the cancellation and none", err, got != nil)
	}
	if err := spill.Err(); err != nil {
		t.Errorf("the spilled links were read back after the stop: %v", err)
	}
	if messages > maxChunk {
		t.Errorf("%d messages handed over after the stop, want at most a chunk's %d", messages, maxChunk)
	}
	spill.f = nil
}

// runCanceled gathers the Run of tr with cancel, handing the messages to
// onMessage when set.
func runCanceled(tr *trace.Trace, cancel <-chan struct{}, spill *Spill, onMessage func()) (*Run, error) {
	b := NewBuilder()
	if spill != nil {
		b.SpillTo(spill)
	}
	b.Cancel = cancel
	if onMessage != nil {
		b.OnMessage = func(*Message, Class, Class) { onMessage() }
	}
	tr.Replay(b)
	return b.Run()
}

// Run with its Cancel closed returns trace.ErrComputationCanceled and
// nothing; open, it is the Run gathered without one. Closed at its first
// message, it stops before the next chunk of links (8,192 at most):
// the messages after are not handed over, and a spilled spool's file is
// not read again.
func TestRunCanceled(t *testing.T) {
	const ranks, calls = 64, 1024 // 65,536 calls, 32,768 messages
	tr := ring(ranks, calls)
	tracetest.Canceled(t, "Run", func(cancel <-chan struct{}) (*Run, error) {
		return runCanceled(tr, cancel, nil, nil)
	}, func(got, want *Run) bool { return reflect.DeepEqual(got, want) })
	if want, err := runCanceled(tr, nil, nil, nil); err != nil || want.NumMessages != ranks*calls/2 || len(want.Messages) != ranks*calls/2 {
		t.Fatalf("the ring: %v", err)
	}
	for _, spilled := range []bool{false, true} {
		var spill *Spill
		if spilled {
			spill = &Spill{Dir: t.TempDir(), Memory: 1}
		}
		cancel := make(chan struct{})
		messages := 0
		run, err := runCanceled(tr, cancel, spill, func() {
			if messages == 0 {
				close(cancel)
				if spill != nil {
					spill.f.Close()
				}
			}
			messages++
		})
		if !errors.Is(err, trace.ErrComputationCanceled) || run != nil {
			t.Errorf("spilled %v, closed at the first message: %v, a result %v; want the cancellation and none", spilled, err, run != nil)
		}
		if messages > maxChunk {
			t.Errorf("spilled %v: %d messages handed over after the stop, want at most a chunk's %d", spilled, messages, maxChunk)
		}
		if spill != nil {
			if err := spill.Err(); err != nil {
				t.Errorf("the spilled links were read back after the stop: %v", err)
			}
			spill.f = nil
			spill.Close()
		}
	}
}
