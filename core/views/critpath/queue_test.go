package critpath

import (
	"reflect"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/trace"
)

// stopAfter is a sink that passes n calls of State on to a, then none.
type stopAfter struct {
	*Accumulator
	n int
}

func (s *stopAfter) State(st trace.State) {
	if s.n > 0 {
		s.n--
		s.Accumulator.State(st)
	}
}

func (s *stopAfter) Finish(trace.Time, trace.Time) {}

// The sink calls are applied in batches on another goroutine: a trace of
// many batches gives the result of the calls applied as they are made,
// a read that stops midway leaves no batch running once closed, and a
// panic while a batch is applied is raised again on the caller's
// goroutine.
func TestQueuedCalls(t *testing.T) {
	tr := read(t, "../../../../shared/traces/tracer-stencil4d/stencil4d-otf/traces-32/traces.otf2", "otf2")
	defer func(n int) { batchLen = n }(batchLen)
	batchLen = 64
	if n := tr.States.Len(); n < 10*batchLen {
		t.Fatalf("%d states: fewer than ten batches", n)
	}
	direct := New(Options{})
	replayDirect(tr, direct)
	want, err := direct.Result()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Compute(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Segments, want.Segments) || !reflect.DeepEqual(got.Waits, want.Waits) ||
		!reflect.DeepEqual(got.Attribution, want.Attribution) {
		t.Errorf("queued: %d segments, %d waits; applied at once: %d, %d", len(got.Segments), len(got.Waits),
			len(want.Segments), len(want.Waits))
	}

	a := New(Options{SpillDir: t.TempDir(), SpillMemory: 1})
	tr.Replay(&stopAfter{a, 2*batchLen + 10})
	if a.queue.applied == nil {
		t.Fatal("no batch handed over")
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if a.queue.applied != nil || len(a.queue.filling.kinds) != 0 {
		t.Error("a batch left after Close")
	}

	b := New(Options{})
	b.other(func() { panic("applied") })
	func() {
		defer func() {
			if p := recover(); p != "applied" {
				t.Errorf("recovered %v, want the batch's panic", p)
			}
		}()
		b.flush()
		t.Error("no panic")
	}()
	b.Close()
}

// replayDirect replays t into a, each call applied as it is made.
func replayDirect(t *trace.Trace, a *Accumulator) {
	t.Replay(directSink{a})
}

// directSink calls the methods that apply the sink's calls.
type directSink struct{ a *Accumulator }

func (d directSink) DefineType(t trace.Type)                  { d.a.defineType(t) }
func (d directSink) DefineValue(v trace.Value)                { d.a.defineValue(v) }
func (d directSink) CreateContainer(c trace.Container)        { d.a.createContainer(c) }
func (d directSink) DestroyContainer(id int32, at trace.Time) { d.a.mpi.DestroyContainer(id, at) }
func (d directSink) State(s trace.State)                      { d.a.state(s) }
func (d directSink) Variable(trace.Variable)                  {}
func (d directSink) Link(l trace.Link)                        { d.a.link(l) }
func (d directSink) Event(e trace.Event)                      { d.a.event(e) }
func (d directSink) Finish(start, end trace.Time)             { d.a.finish(start, end) }
