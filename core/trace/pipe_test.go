package trace

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// callLog is a Sink that writes down every call with its arguments.
type callLog struct {
	calls []string
	// panicAt, if positive, makes the panicAt-th call panic.
	panicAt int
}

func (c *callLog) add(format string, args ...any) {
	c.calls = append(c.calls, fmt.Sprintf(format, args...))
	if len(c.calls) == c.panicAt {
		panic(fmt.Sprintf("sink failed at call %d", c.panicAt))
	}
}

func (c *callLog) DefineType(t Type)                  { c.add("type %+v", t) }
func (c *callLog) DefineValue(v Value)                { c.add("value %+v", v) }
func (c *callLog) CreateContainer(k Container)        { c.add("container %+v", k) }
func (c *callLog) DestroyContainer(id int32, at Time) { c.add("destroy %d %d", id, at) }
func (c *callLog) State(s State)                      { c.add("state %+v", s) }
func (c *callLog) Variable(v Variable)                { c.add("variable %+v", v) }
func (c *callLog) Link(l Link)                        { c.add("link %+v", l) }
func (c *callLog) Event(e Event)                      { c.add("event %+v", e) }
func (c *callLog) Finish(start, end Time)             { c.add("finish %d %d", start, end) }

// randomCalls makes n calls of every kind on sink, drawn from seed, mostly
// states as a reader's are; it does not call Finish.
func randomCalls(sink Sink, n int, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 1))
	children := []int32{1, 2, 3}
	for i := range n {
		t := Time(r.Int64N(1 << 40))
		switch k := r.IntN(20); {
		case k < 10:
			sink.State(State{Container: r.Int32N(64), Type: 1, Value: r.Int32N(9), Start: t, End: t + 5, Depth: r.Int32N(3), Order: int32(i)})
		case k < 12:
			sink.Event(Event{Container: r.Int32N(64), Type: 2, Value: r.Int32N(4), Time: t})
		case k < 14:
			sink.Link(Link{Container: 0, Type: 3, Value: 1, Start: t, End: t + 9, From: 1, To: 2, Key: fmt.Sprint("k", i), Size: math.NaN()})
		case k < 15:
			sink.Variable(Variable{Container: 4, Type: 5, Start: t, End: t + 1, Value: r.Float64()})
		case k < 16:
			sink.DefineType(Type{Name: fmt.Sprint("t", i), Kind: KindState, Parent: None, Color: "1 0 0"})
		case k < 17:
			sink.DefineValue(Value{Type: 1, Name: fmt.Sprint("v", i), Category: "c"})
		case k < 18:
			sink.CreateContainer(Container{Name: fmt.Sprint("c", i), Type: 0, Parent: 0, Start: t, End: Unset, Children: children})
			// The reader's slice changes after the call: the pipe
			// passes what it was at the call.
			children[0]++
		default:
			sink.DestroyContainer(r.Int32N(64), t)
		}
	}
}

func TestPipeSameCalls(t *testing.T) {
	for _, n := range []int{0, 1, pipeBatchLen - 1, pipeBatchLen, pipeBatchLen + 1, 3*pipeBatchLen - 1, 10*pipeBatchLen + 17} {
		for _, finish := range []bool{true, false} {
			var direct, piped callLog
			randomCalls(&direct, n, uint64(n))
			p := NewPipe(&piped)
			randomCalls(p, n, uint64(n))
			if finish {
				direct.Finish(3, 99)
				p.Finish(3, 99)
				// Finish returns once the sink has everything: read
				// before Wait.
				if !slices.Equal(piped.calls, direct.calls) {
					t.Fatalf("%d calls, after Finish: the sink got %d calls, not the %d made directly (or not the same)", n, len(piped.calls), len(direct.calls))
				}
			}
			p.Wait()
			p.Wait() // again: nothing more
			if len(direct.calls) != n+b2i(finish) {
				t.Fatalf("%d calls made, %d logged", n, len(direct.calls))
			}
			if !slices.Equal(piped.calls, direct.calls) {
				i := 0
				for i < min(len(piped.calls), len(direct.calls)) && piped.calls[i] == direct.calls[i] {
					i++
				}
				t.Fatalf("%d calls (finish %v): the sink got %d calls, directly %d; the first that differs is #%d", n, finish, len(piped.calls), len(direct.calls), i)
			}
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestPipeSinkPanics checks that a panic of the sink comes back on the
// caller's goroutine, with its value, and that the calls after it are
// not made.
func TestPipeSinkPanics(t *testing.T) {
	for _, at := range []int{1, 2, pipeBatchLen, pipeBatchLen + 1, 5 * pipeBatchLen} {
		for _, n := range []int{at, at + 3, at + 10*pipeBatchLen} {
			var sink callLog
			sink.panicAt = at
			want := fmt.Sprintf("sink failed at call %d", at)
			got := func() (v any) {
				defer func() { v = recover() }()
				p := NewPipe(&sink)
				randomCalls(p, n, 7)
				p.Finish(0, 1)
				return nil
			}()
			if got != want {
				t.Fatalf("sink panics at call %d of %d: the caller got %v, want %q", at, n, got, want)
			}
			if len(sink.calls) != at {
				t.Fatalf("sink panics at call %d of %d: it got %d calls", at, n, len(sink.calls))
			}
		}
	}
}

// TestPipeWaitRaises checks that Wait, after a reader stopped without
// Finish, raises the sink's panic.
func TestPipeWaitRaises(t *testing.T) {
	var sink callLog
	sink.panicAt = 5
	p := NewPipe(&sink)
	randomCalls(p, 10, 1)
	defer func() {
		if v := recover(); v != "sink failed at call 5" {
			t.Fatalf("Wait raised %v", v)
		}
	}()
	p.Wait()
	t.Fatal("Wait did not raise the sink's panic")
}

func TestPipeAfterFinish(t *testing.T) {
	p := NewPipe(&callLog{})
	p.Finish(0, 1)
	defer func() {
		if recover() == nil {
			t.Fatal("Finish after Finish did not panic")
		}
	}()
	p.Finish(0, 1)
}

func BenchmarkPipeStates(b *testing.B) {
	var c Counter
	p := NewPipe(&c)
	s := State{Container: 1, Type: 1, Value: 1, Start: 1, End: 2}
	n := 0
	for b.Loop() {
		p.State(s)
		n++
	}
	p.Finish(0, 1)
	if c.States != n {
		b.Fatalf("%d states, %d piped", n, c.States)
	}
}
