package mpi

import (
	"cmp"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/macroscope-hpc/macroscope/core/formats"
	"github.com/macroscope-hpc/macroscope/core/trace"
)

// Blocks gathers what Run does, a resource at a time: the same
// resources, calls (their communicators and collectives set), messages
// tied to the same calls (handed to OnMessage with their calls'
// classes, and those tied at both ends to OnTied with their calls'
// times and classes) and collectives' members, with every chunk of the calls and
// links spilled to the file or none; and it refuses the same unpaired
// collectives with the same error.
func TestBlocksEqualRun(t *testing.T) {
	for _, c := range []struct{ name, path, format string }{
		{"smpi-mixed", smpiDir + "cp_mixed.trace", "paje"},
		{"smpi-coll", smpiDir + "cp_coll.trace", "paje"},
		{"epoch-4", epochDir + "epoch_4proc.prv.zst", "paraver"},
		{"stencil4d-32", corpus + "tracer-stencil4d/stencil4d-otf/traces-32/traces.otf2", "otf2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := os.Stat(c.path); err != nil {
				t.Skipf("trace not available: %v", err)
			}
			tr, err := formats.ReadFile(c.path, c.format)
			if err != nil {
				t.Fatal(err)
			}
			run, err := FromTrace(tr)
			if err != nil {
				t.Fatal(err)
			}
			for _, memory := range []int64{1, -1} {
				blocks, messages, spilled, err := blocksOf(t, tr, memory)
				if err != nil {
					t.Fatal(err)
				}
				if memory == 1 && spilled == 0 && run.NumCalls() > 1000 {
					t.Error("nothing spilled")
				}
				if !reflect.DeepEqual(blocks.Resources, run.Resources) || blocks.NumCalls != run.NumCalls() ||
					blocks.NumMessages != len(run.Messages) || !reflect.DeepEqual(blocks.Names, run.Names) ||
					!reflect.DeepEqual(blocks.Comms, run.Comms) || blocks.Start != run.Start || blocks.End != run.End {
					t.Fatalf("spill memory %d: blocks differ from the run", memory)
				}
				for r := range run.Calls {
					var in trace.Time
					for _, c := range run.Calls[r] {
						in += c.Leave - c.Enter
					}
					if blocks.InCalls[r] != in {
						t.Fatalf("%s: %v in calls, want %v", run.Resources[r].Path, blocks.InCalls[r], in)
					}
					if got := blocks.Calls[r].Take(); !reflect.DeepEqual(got, run.Calls[r]) {
						for j := range got {
							if j >= len(run.Calls[r]) || got[j] != run.Calls[r][j] {
								t.Logf("call %d: %+v", j, got[j])
								if j < len(run.Calls[r]) {
									t.Logf("want %+v", run.Calls[r][j])
								}
								break
							}
						}
						t.Fatalf("spill memory %d: calls of %s differ (%d, want %d)", memory, run.Resources[r].Path, len(got), len(run.Calls[r]))
					}
				}
				if len(messages) != len(run.Messages) || len(messages) > 0 && !reflect.DeepEqual(messages, run.Messages) {
					t.Fatalf("spill memory %d: messages differ", memory)
				}
				for i, coll := range run.Collectives {
					if int(blocks.Members[i]) != len(coll.Members) {
						t.Fatalf("collective %d: %d members, want %d", i, blocks.Members[i], len(coll.Members))
					}
				}
				if len(blocks.Members) != len(run.Collectives) {
					t.Fatalf("%d collectives, want %d", len(blocks.Members), len(run.Collectives))
				}
			}
			t.Logf("%d resources, %d calls, %d messages, %d collectives", len(run.Resources), run.NumCalls(), len(run.Messages), len(run.Collectives))
		})
	}
}

// blocksOf streams tr into a builder spilling beyond memory bytes and
// returns its Blocks (their spill closed at the test's end), the
// messages handed to OnMessage, checking the classes it was given and
// that OnTied was handed those tied at both ends once each, with their
// calls, and the bytes spilled.
func blocksOf(t *testing.T, tr *trace.Trace, memory int64) (*Blocks, []Message, int64, error) {
	t.Helper()
	spill := &Spill{Dir: t.TempDir(), Memory: memory}
	t.Cleanup(func() { spill.Close() })
	b := NewBuilder()
	b.SpillTo(spill)
	b.SpillCalls = true
	type tied struct {
		m          Message
		send, recv Class
	}
	var got []tied
	b.OnMessage = func(m *Message, send, recv Class) { got = append(got, tied{*m, send, recv}) }
	type bothEnds struct {
		link       int32
		send, recv TiedCall
	}
	var ends []bothEnds
	b.OnTied = func(link int32, send, recv TiedCall) { ends = append(ends, bothEnds{link, send, recv}) }
	tr.Replay(b)
	blocks, err := b.Blocks()
	if err != nil {
		return nil, nil, 0, err
	}
	// In the order of the links, the messages tied at both ends.
	slices.SortFunc(ends, func(x, y bothEnds) int { return cmp.Compare(x.link, y.link) })
	k := 0
	for _, x := range got {
		m := x.m
		if m.SendCall < 0 || m.RecvCall < 0 {
			continue
		}
		if k == len(ends) {
			t.Fatalf("message %+v not handed to OnTied", m)
		}
		e := ends[k]
		if k > 0 && ends[k-1].link == e.link {
			t.Fatalf("link %d handed to OnTied twice", e.link)
		}
		for _, end := range []struct {
			got  TiedCall
			want CallRef
		}{{e.send, CallRef{m.From, m.SendCall}}, {e.recv, CallRef{m.To, m.RecvCall}}} {
			c := readCall(blocks, end.want.Resource, end.want.Call)
			if want := (TiedCall{Ref: end.want, Enter: c.Enter, Leave: c.Leave, Class: c.Class}); end.got != want {
				t.Fatalf("message %+v: OnTied handed %+v, want %+v", m, end.got, want)
			}
		}
		k++
	}
	if k != len(ends) {
		t.Fatalf("OnTied handed %d messages, %d tied at both ends", len(ends), k)
	}
	var messages []Message
	for _, x := range got {
		m := x.m
		if m.SendCall >= 0 {
			if c := readCall(blocks, m.From, m.SendCall); c.Class != x.send {
				t.Fatalf("message %+v: send class %v, want %v", m, x.send, c.Class)
			}
		}
		if m.RecvCall >= 0 {
			if c := readCall(blocks, m.To, m.RecvCall); c.Class != x.recv {
				t.Fatalf("message %+v: receive class %v, want %v", m, x.recv, c.Class)
			}
		}
		messages = append(messages, m)
	}
	return blocks, messages, spill.Spilled(), nil
}

// readCall returns call j of resource r of blocks.
func readCall(b *Blocks, r, j int32) Call {
	read := b.Calls[r].Reader()
	for k := int32(0); ; k++ {
		c, ok := read.Next()
		if !ok {
			panic("no such call")
		}
		if k == j {
			return *c
		}
	}
}

// A message within one resource (an MPI_Sendrecv to itself, and an
// MPI_Send to a later MPI_Recv) is handed to OnTied once, with its calls,
// as are those between two.
func TestBlocksMessagesWithinOneResource(t *testing.T) {
	tr := trace.New()
	tr.DefineType(trace.Type{Name: "rank", Kind: trace.KindContainer, Parent: trace.None, Start: trace.None, End: trace.None})
	tr.DefineType(trace.Type{Name: "STATE", Kind: trace.KindState, Parent: 0, Start: trace.None, End: trace.None})
	tr.DefineValue(trace.Value{Type: 1, Name: "MPI_Sendrecv"})
	tr.DefineValue(trace.Value{Type: 1, Name: "MPI_Send"})
	tr.DefineValue(trace.Value{Type: 1, Name: "MPI_Recv"})
	tr.CreateContainer(trace.Container{Name: "0", Type: 0, Parent: 0, Start: 0, End: trace.Unset})
	tr.CreateContainer(trace.Container{Name: "1", Type: 0, Parent: 0, Start: 0, End: trace.Unset})
	tr.State(trace.State{Container: 1, Type: 1, Value: 0, Start: 0, End: 4})
	tr.State(trace.State{Container: 1, Type: 1, Value: 1, Start: 5, End: 6})
	tr.State(trace.State{Container: 1, Type: 1, Value: 2, Start: 7, End: 9})
	tr.State(trace.State{Container: 2, Type: 1, Value: 2, Start: 1, End: 8})
	tr.Link(trace.Link{From: 1, To: 1, Start: 1, End: 3})
	tr.Link(trace.Link{From: 1, To: 2, Start: 2, End: 8})
	tr.Link(trace.Link{From: 1, To: 1, Start: 5, End: 9})
	tr.Finish(0, 10)
	run, err := FromTrace(tr)
	if err != nil {
		t.Fatal(err)
	}
	_, messages, _, err := blocksOf(t, tr, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Messages) != 3 || !reflect.DeepEqual(messages, run.Messages) {
		t.Fatalf("messages %+v, want %+v", messages, run.Messages)
	}
}

// Messages between random pairs of resources (either way, within one,
// many partners each, their ends in or out of a call) are handed to
// OnTied once each with their calls: the calls held for a resource are
// read a partner at a time, in the order of the links.
func TestBlocksTiesRandomMessages(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 26))
	// Each queue of held calls is made as long as it will be, once.
	heldCheck = func(r int32, held []heldCall, expected int32) {
		if len(held) != int(expected) || expected > 0 && cap(held) != int(expected) {
			t.Errorf("resource %d: %d calls held in a queue of %d, expected %d", r, len(held), cap(held), expected)
		}
	}
	defer func() { heldCheck = nil }()
	for range 20 {
		tr := trace.New()
		tr.DefineType(trace.Type{Name: "rank", Kind: trace.KindContainer, Parent: trace.None, Start: trace.None, End: trace.None})
		tr.DefineType(trace.Type{Name: "STATE", Kind: trace.KindState, Parent: 0, Start: trace.None, End: trace.None})
		tr.DefineValue(trace.Value{Type: 1, Name: "MPI_Send"})
		tr.DefineValue(trace.Value{Type: 1, Name: "MPI_Recv"})
		ranks := 2 + rng.IntN(7)
		const calls, step = 40, 10
		for r := range ranks {
			tr.CreateContainer(trace.Container{Name: strconv.Itoa(r), Type: 0, Parent: 0, Start: 0, End: trace.Unset})
		}
		// Call k of every rank spans [10k, 10k+8): a send where k is
		// even, a receive where odd; instants 10k+9 fall in no call.
		for r := range ranks {
			for k := range calls {
				tr.State(trace.State{Container: int32(r + 1), Type: 1, Value: int32(k % 2),
					Start: trace.Time(k * step), End: trace.Time(k*step + 8)})
			}
		}
		instant := func(call int) trace.Time {
			if rng.IntN(10) == 0 {
				return trace.Time(call*step + 9) // in no call
			}
			return trace.Time(call*step + 1 + rng.IntN(6))
		}
		for range 150 {
			from, to := rng.IntN(ranks), rng.IntN(ranks)
			s := 2 * rng.IntN(calls/2-1)
			r := s + 1 + 2*rng.IntN((calls-s)/2)
			tr.Link(trace.Link{From: int32(from + 1), To: int32(to + 1), Start: instant(s), End: instant(r)})
		}
		tr.Finish(0, calls*step)
		run, err := FromTrace(tr)
		if err != nil {
			t.Fatal(err)
		}
		for _, memory := range []int64{1, -1} {
			_, messages, _, err := blocksOf(t, tr, memory)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(messages, run.Messages) {
				t.Fatalf("%d ranks: messages %+v, want %+v", ranks, messages, run.Messages)
			}
		}
	}
}

// Collectives that do not pair up are refused by Blocks as by Run, with
// the same error.
func TestBlocksRefuseUnpairedCollectives(t *testing.T) {
	// Two ranks: the first collective is an MPI_Barrier on one and an
	// MPI_Bcast on the other.
	tr := trace.New()
	tr.DefineType(trace.Type{Name: "rank", Kind: trace.KindContainer, Parent: trace.None, Start: trace.None, End: trace.None})
	tr.DefineType(trace.Type{Name: "STATE", Kind: trace.KindState, Parent: 0, Start: trace.None, End: trace.None})
	tr.DefineValue(trace.Value{Type: 1, Name: "MPI_Barrier"})
	tr.DefineValue(trace.Value{Type: 1, Name: "MPI_Bcast"})
	tr.CreateContainer(trace.Container{Name: "0", Type: 0, Parent: 0, Start: 0, End: trace.Unset})
	tr.CreateContainer(trace.Container{Name: "1", Type: 0, Parent: 0, Start: 0, End: trace.Unset})
	tr.State(trace.State{Container: 1, Type: 1, Value: 0, Start: 0, End: 2})
	tr.State(trace.State{Container: 2, Type: 1, Value: 1, Start: 1, End: 2})
	tr.Finish(0, 3)
	_, runErr := FromTrace(tr)
	_, _, _, blocksErr := blocksOf(t, tr, 1)
	if runErr == nil || blocksErr == nil || runErr.Error() != blocksErr.Error() || !strings.Contains(runErr.Error(), "do not pair up") {
		t.Fatalf("Blocks: %v\nRun: %v", blocksErr, runErr)
	}
}

// A call recorded by events (trace.RoleCall, as Extrae's) entered and
// not yet left is kept aside until it is
// left; a state appended meanwhile on the same resource (an MPI_* state,
// 200 of them so that the call's chunk goes to the file) comes after it,
// and the call still ends where it is left: one outermost call
// MPI_Send [0, 1000], in Run and Blocks alike.
func TestEventCallOpenAcrossStates(t *testing.T) {
	// Straight to the sink: a trace in memory replays a resource's
	// states before its events.
	feed := func(s trace.Sink) {
		s.DefineType(trace.Type{Name: "rank", Kind: trace.KindContainer, Parent: trace.None, Start: trace.None, End: trace.None})
		s.DefineType(trace.Type{Name: "MPI point-to-point", Kind: trace.KindEvent, Parent: 0, Start: trace.None, End: trace.None, Role: trace.RoleCall})
		s.DefineType(trace.Type{Name: "STATE", Kind: trace.KindState, Parent: 0, Start: trace.None, End: trace.None})
		s.DefineValue(trace.Value{Type: 1, Name: "End", Role: trace.RoleOff})
		s.DefineValue(trace.Value{Type: 1, Name: "MPI_Send"})
		s.DefineValue(trace.Value{Type: 2, Name: "MPI_Recv"})
		s.CreateContainer(trace.Container{Name: "0", Type: 0, Parent: 0, Start: 0, End: trace.Unset})
		s.Event(trace.Event{Container: 1, Type: 1, Value: 1, Time: 0})
		for i := range trace.Time(200) {
			s.State(trace.State{Container: 1, Type: 2, Value: 2, Start: 1 + 4*i, End: 2 + 4*i, Depth: 1})
		}
		s.Event(trace.Event{Container: 1, Type: 1, Value: 0, Time: 1000})
		s.Finish(0, 2000) // a call never left would end here
	}
	want := []Call{{Enter: 0, Leave: 1000, Name: 0, Class: Send, Coll: -1}}
	b := NewBuilder()
	feed(b)
	run, err := b.Run()
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Calls) != 1 || !reflect.DeepEqual(run.Calls[0], want) {
		t.Fatalf("Run: %+v, want %+v", run.Calls, want)
	}
	spill := &Spill{Dir: t.TempDir(), Memory: 1}
	defer spill.Close()
	b = NewBuilder()
	b.SpillTo(spill)
	b.SpillCalls = true
	feed(b)
	blocks, err := b.Blocks()
	if err != nil {
		t.Fatal(err)
	}
	if spill.Spilled() == 0 {
		t.Error("nothing spilled")
	}
	if got := blocks.Calls[0].Take(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Blocks: %+v, want %+v", got, want)
	}
}
